#include "panels/param_url.hpp"

#include <string>

namespace vigil::web {

double page_scale(const ParamSpec& spec) {
  return spec.percent ? 100.0 : 1.0;
}

double url_param(const UrlParams& p, const ParamSpec& spec, double fallback) {
  const double k = page_scale(spec);
  const double lo = spec.view_min * k, hi = spec.view_max * k;
  double v = fallback * k;
  if (!spec.alias.empty()) v = p.number(std::string(spec.alias), v, lo, hi);
  return p.number(std::string(spec.url_key()), v, lo, hi) / k;
}

int url_param(const UrlParams& p, const ParamSpec& spec, int fallback) {
  return static_cast<int>(url_param(p, spec, static_cast<double>(fallback)));
}

double url_param(const UrlParams& p, const ParamSpec& spec) {
  return url_param(p, spec, spec.def);
}

void save_param(UrlParams& p, const ParamSpec& spec, double value) {
  p.set(std::string(spec.url_key()), value * page_scale(spec));
}

}  // namespace vigil::web
