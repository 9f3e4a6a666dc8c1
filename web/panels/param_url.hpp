#pragma once

#include <vigil/base/param_spec.hpp>
#include "ui/url_params.hpp"

// A demo parameter in the page's URL, through its ParamSpec.
namespace vigil::web {

// The parameter under its URL key (or its alias) when it lies in its slider's range, otherwise
// `fallback`: a page cannot open a view where its sliders could not go.
double url_param(const UrlParams& p, const ParamSpec& spec, double fallback);
int url_param(const UrlParams& p, const ParamSpec& spec, int fallback);
// As above, falling back to the spec's default.
double url_param(const UrlParams& p, const ParamSpec& spec);

// Under its URL key, never its alias.
void save_param(UrlParams& p, const ParamSpec& spec, double value);

// What the page shows for a model value: itself, or a percentage (ParamSpec::percent).
double page_scale(const ParamSpec& spec);

}  // namespace vigil::web
