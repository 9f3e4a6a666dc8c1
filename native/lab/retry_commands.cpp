// `vigil lab retry chain, hysteresis, fleet, server` experiments: being written (issue 4); no commands registered yet.
#include "lab/lab_command.hpp"

namespace vigil::native {

std::vector<LabCommand> retry_commands() { return {}; }

}  // namespace vigil::native
