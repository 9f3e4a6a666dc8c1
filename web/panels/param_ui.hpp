#pragma once

#include <string>
#include <vector>

#include <vigil/base/param_spec.hpp>
#include "panels/param_url.hpp"

// A demo parameter on a slider and on the command line that reproduces the view, through its
// ParamSpec.
namespace vigil::web {

// A slider over the spec's view range, with its label, scale and decimals.
bool param_slider(const ParamSpec& spec, double* v);
bool param_slider(const ParamSpec& spec, int* v);

// The command line: "--flag value" added when the value differs from the spec's default.
void cli_option(std::vector<std::string>& args, const ParamSpec& spec, double value);

}  // namespace vigil::web
