#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vigil::wire::testing {

// Golden vectors written as hex pairs separated by spaces, with 'quoted' runs of ASCII.
inline std::vector<std::uint8_t> hex(std::string_view text) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == ' ') {
      ++i;
    } else if (c == '\'') {
      const auto end = text.find('\'', i + 1);
      for (std::size_t j = i + 1; j < end; ++j) out.push_back(static_cast<std::uint8_t>(text[j]));
      i = end + 1;
    } else {
      out.push_back(
          static_cast<std::uint8_t>(std::stoi(std::string(text.substr(i, 2)), nullptr, 16)));
      i += 2;
    }
  }
  return out;
}

}  // namespace vigil::wire::testing
