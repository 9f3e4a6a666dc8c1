#pragma once

#include <string>
#include <vector>

namespace vigil::native {

// `vigil trace`: downloads a peer's ack trace from a running agent and writes the CSV to stdout.
int run_trace(const std::vector<std::string>& args);

}  // namespace vigil::native
