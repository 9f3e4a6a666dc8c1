#pragma once

#include <string>
#include <vector>

namespace vigil::native {

// `vigil serve [--http HOST:PORT] [--web DIR]`: serves the web app until SIGINT/SIGTERM.
int run_serve(const std::vector<std::string>& args);

}  // namespace vigil::native
