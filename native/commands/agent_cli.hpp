#pragma once

#include <string>
#include <vector>

#include "cli/args.hpp"

namespace vigil::native {

// `vigil agent`: runs one SWIM member with its live view. Returns the exit code.
int run_agent(const std::vector<std::string>& args);
// The options `vigil agent` takes, as its --help lists them.
const std::vector<cli::Args::Spec>& agent_option_specs();
// `vigil members`: lists an agent's members, like `serf members`.
int run_members(const std::vector<std::string>& args);
// Its options, as its --help lists them.
const std::vector<cli::Args::Spec>& members_option_specs();
// `vigil demo`: starts N local agents and the web app pointing at them.
int run_demo(const std::vector<std::string>& args);

}  // namespace vigil::native
