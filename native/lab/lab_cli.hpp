#pragma once

#include <string>
#include <vector>

namespace vigil::native {

// `vigil lab <experiment> [options]`: prints an experiment's tables. Returns the exit code.
int run_lab(const std::vector<std::string>& args);

}  // namespace vigil::native
