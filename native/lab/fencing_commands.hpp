#pragma once

#include <vector>

#include "lab/lab_command.hpp"

namespace vigil::native {

// `vigil lab fencing`: the stale-leader scenario with fencing tokens (core/fencing).
std::vector<LabCommand> fencing_commands();

}  // namespace vigil::native
