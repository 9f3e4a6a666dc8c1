#include "lab/param_options.hpp"

namespace vigil::native {

cli::Args::Spec option(const ParamSpec& p) {
  return {std::string(p.flag), true, std::string(p.help) + ", in " + p.range_text(),
          p.default_text(), &p};
}

std::optional<double> ParamReader::value(const ParamSpec& p) {
  if (!status_) return std::nullopt;
  const std::string flag(p.flag);
  double v = p.def;
  if (p.integer) {
    auto i = args_.integer(flag, static_cast<std::int64_t>(p.def));
    if (!i) {
      status_ = i.error();
      return std::nullopt;
    }
    v = static_cast<double>(*i);
  } else {
    auto n = args_.number(flag, p.def);
    if (!n) {
      status_ = n.error();
      return std::nullopt;
    }
    v = *n;
  }
  if (auto s = p.check(v); !s) {
    status_ = s.error();
    return std::nullopt;
  }
  return v;
}

}  // namespace vigil::native
