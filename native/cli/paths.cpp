#include "cli/paths.hpp"

#include <filesystem>

namespace vigil::cli {

std::string default_web_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path candidate = exe.parent_path().parent_path() / "web";
    if (fs::is_regular_file(candidate / "index.html", ec)) return candidate.string();
  }
  return "build/web";
}

}  // namespace vigil::cli
