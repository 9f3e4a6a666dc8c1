#pragma once

#include <string>
#include <vector>

#include "cli/args.hpp"

namespace vigil::native {

// `vigil tune --trace FILE --max-mistakes-per-hour X`: detector settings fitted to a recorded
// heartbeat trace. Returns the process exit code.
int run_tune(const std::vector<std::string>& args);
// The options `vigil tune` takes, as its --help lists them.
const std::vector<cli::Args::Spec>& tune_option_specs();

}  // namespace vigil::native
