#include <vigil/base/param_spec.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace vigil {

std::string number_text(double x) {
  char buf[40];
  if (x == std::trunc(x) && std::abs(x) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", x);
    return buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

std::string ParamSpec::range_text() const {
  std::string out =
      (min_open ? "(" : "[") + number_text(min) + ", " + number_text(max) + (max_open ? ")" : "]");
  if (!unit.empty()) out += " " + std::string(unit);
  return out;
}

std::string ParamSpec::default_text() const {
  return number_text(def);
}

Status ParamSpec::check(double v) const {
  if (contains(v)) return ok_status();
  return Error{"--" + std::string(flag) + " must be " + (integer ? "a whole number " : "") + "in " +
               range_text() + ", got " + number_text(v)};
}

}  // namespace vigil
