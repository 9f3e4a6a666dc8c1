#pragma once

#include <string>
#include <vector>

namespace vigil::native {

// `vigil tune --trace FILE --max-mistakes-per-hour X`: detector settings fitted to a recorded
// heartbeat trace. Returns the process exit code.
int run_tune(const std::vector<std::string>& args);

}  // namespace vigil::native
