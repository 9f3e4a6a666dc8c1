#include <vigil/detect/fixed_timeout.hpp>

namespace vigil::detect {

Result<FixedTimeout> FixedTimeout::create(Millis timeout, std::string name) {
  if (timeout <= Millis{0})
    return Error{"timeout must be > 0 ms, got " + std::to_string(timeout.count())};
  if (name.empty()) name = "timeout-" + std::to_string(timeout.count()) + "ms";
  return FixedTimeout(timeout, std::move(name));
}

const std::string& FixedTimeout::name() const {
  return name_;
}

}  // namespace vigil::detect
