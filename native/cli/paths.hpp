#pragma once

#include <string>

namespace vigil::cli {

// The built web app next to this executable (build/bin/vigil -> build/web), else ./build/web.
std::string default_web_dir();

}  // namespace vigil::cli
