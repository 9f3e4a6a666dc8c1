#pragma once

#include <string>

#include <vigil/retry/params.hpp>
#include "app/url_params.hpp"

namespace vigil::web {

// A retry parameter under its URL key (or its alias) when it lies in its slider's range,
// otherwise `fallback`: a page cannot open a view where its sliders could not go.
inline double url_param(const UrlParams& p, const retry::ParamSpec& spec, double fallback) {
  const double lo = spec.view_min, hi = spec.view_max;
  if (!spec.alias.empty()) fallback = p.number(std::string(spec.alias), fallback, lo, hi);
  return p.number(std::string(spec.url_key()), fallback, lo, hi);
}

inline int url_param(const UrlParams& p, const retry::ParamSpec& spec, int fallback) {
  return static_cast<int>(url_param(p, spec, static_cast<double>(fallback)));
}

// Under its URL key, never its alias.
inline void save_param(UrlParams& p, const retry::ParamSpec& spec, double value) {
  p.set(std::string(spec.url_key()), value);
}

}  // namespace vigil::web
