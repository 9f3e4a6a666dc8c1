#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/args.hpp"

namespace vigil::native {

// `vigil lab <experiment> [options]`: prints an experiment's tables. Returns the exit code.
int run_lab(const std::vector<std::string>& args);
// The options of the experiment named by `words` ("phi", or "retry" "chain"), as its --help lists
// them; empty when no experiment has that name.
std::optional<std::vector<cli::Args::Spec>> lab_option_specs(const std::vector<std::string>& words);

}  // namespace vigil::native
