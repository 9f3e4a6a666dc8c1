#include "panels/param_url.hpp"

#include <cstdio>
#include <cstdlib>
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
  double shown = value * page_scale(spec);
  if (spec.percent) {
    // A percentage read from the URL comes back from its fraction an ulp off (7 / 100 * 100 is
    // 7.000000000000001); twelve significant digits give back the number the page was given.
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.12g", shown);
    shown = std::strtod(buf, nullptr);
  }
  p.set(std::string(spec.url_key()), shown);
}

}  // namespace vigil::web
