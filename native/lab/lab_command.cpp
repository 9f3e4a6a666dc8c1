#include "lab/lab_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace vigil::native {

lab::Progress terminal_progress(const std::string& what, const char* unit) {
  if (::isatty(STDERR_FILENO) != 1) return {};
  return [what, unit](int done, int total) {
    std::fprintf(stderr, "\r%s: %d/%d %s", what.c_str(), done, total, unit);
    if (done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  };
}

// "10,100,1000" -> sizes; every element a whole number in range.
Result<std::vector<std::size_t>> size_list(const cli::Args& args, const std::string& name,
                                           std::vector<std::size_t> fallback) {
  auto text = args.text(name);
  if (!text) return fallback;
  std::vector<std::size_t> out;
  std::size_t start = 0;
  while (start <= text->size()) {
    const std::size_t comma = std::min(text->find(',', start), text->size());
    const std::string item = text->substr(start, comma - start);
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || end != item.c_str() + item.size() || v < 1)
      return Error{"--" + name + " expects positive whole numbers separated by commas, got '" +
                   *text + "'"};
    out.push_back(static_cast<std::size_t>(v));
    start = comma + 1;
  }
  return out;
}

Result<bool> on_off(const cli::Args& args, const std::string& name, bool fallback) {
  auto v = args.choice(name, {"on", "off"}, fallback ? "on" : "off");
  if (!v) return v.error();
  return *v == "on";
}

}  // namespace vigil::native
