#pragma once

#include <string>
#include <vector>

namespace vigil::native {

// `vigil help TOPIC [--format text|markdown|json]`: a command's options (agent, tune, lab
// EXPERIMENT) or the agent's metrics (metrics), printed from the tables the program itself uses,
// so that the reference pages are generated rather than copied (scripts/gen_docs.sh).
int run_help(const std::vector<std::string>& args);

}  // namespace vigil::native
