#pragma once

#include <string>
#include <vector>

#include "cli/args.hpp"

namespace vigil::native {

// `vigil serve [--http HOST:PORT] [--web DIR]`: serves the web app until SIGINT/SIGTERM.
int run_serve(const std::vector<std::string>& args);
// Its options, as its --help lists them.
const std::vector<cli::Args::Spec>& serve_option_specs();

}  // namespace vigil::native
