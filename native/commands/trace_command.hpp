#pragma once

#include <string>
#include <vector>

#include "cli/args.hpp"

namespace vigil::native {

// `vigil trace`: downloads a peer's ack trace from a running agent and writes the CSV to stdout.
int run_trace(const std::vector<std::string>& args);
// Its options, as its --help lists them.
const std::vector<cli::Args::Spec>& trace_option_specs();

}  // namespace vigil::native
