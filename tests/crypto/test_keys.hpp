#pragma once

#include <cstddef>
#include <cstdint>

#include <vigil/wire/messages.hpp>

namespace vigil::crypto_testing {

// A key of `size` bytes counting up from `first`: distinct keys for rotation tests, readable in
// failure output.
inline wire::Bytes key_of(std::size_t size, std::uint8_t first = 0) {
  wire::Bytes k(size);
  for (std::size_t i = 0; i < size; ++i) k[i] = static_cast<std::uint8_t>(first + i);
  return k;
}

}  // namespace vigil::crypto_testing
