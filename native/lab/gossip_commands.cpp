// `vigil lab gossip, membership` experiments: being written (issue 4); no commands registered yet.
#include "lab/lab_command.hpp"

namespace vigil::native {

std::vector<LabCommand> gossip_commands() { return {}; }

}  // namespace vigil::native
