#pragma once

#include <cstdint>

#include <vigil/swim/address.hpp>
#include <vigil/wire/messages.hpp>

namespace vigil::swim::testing {

// Member i of a test cluster lives at 10.0.0.i:7946.
inline Address addr(int i) {
  return Address::from_octets(10, 0, 0, static_cast<std::uint8_t>(i), 7946);
}

// Its IP as memberlist's Addr field carries it (4 bytes).
inline wire::Bytes ip(int i) {
  const auto b = addr(i).ip_bytes();
  return wire::Bytes(b.begin(), b.end());
}

}  // namespace vigil::swim::testing
