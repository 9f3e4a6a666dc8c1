#include <vigil/detect/phi_threshold.hpp>

#include <cmath>
#include <cstdio>

namespace vigil::detect {

Result<PhiThreshold> PhiThreshold::create(const PhiAccrualConfig& config, double threshold,
                                          std::string name) {
  if (!std::isfinite(threshold) || threshold <= 0.0)
    return Error{"phi threshold must be a finite number > 0"};
  auto accrual = PhiAccrual::create(config);
  if (!accrual) return accrual.error();
  if (name.empty()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "phi-%g", threshold);
    name = buf;
  }
  return PhiThreshold(std::move(accrual).value(), threshold, std::move(name));
}

const std::string& PhiThreshold::name() const {
  return name_;
}

}  // namespace vigil::detect
