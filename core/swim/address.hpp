#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

namespace vigil::swim {

// An IPv4 address and UDP port. vigil's nodes and simulations use IPv4 only; memberlist's
// 16-byte addresses are accepted when they carry an IPv4-mapped address.
struct Address {
  std::uint32_t ip = 0;  // host byte order: 127.0.0.1 is 0x7F000001
  std::uint16_t port = 0;

  bool operator==(const Address&) const = default;
  auto operator<=>(const Address&) const = default;

  std::string to_string() const;
  // The 4 address bytes in network order, as memberlist's Addr field carries them.
  std::array<std::uint8_t, 4> ip_bytes() const;

  static Address from_octets(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d,
                             std::uint16_t port);
  // From memberlist's Addr bytes (4, or 16 IPv4-mapped) and a port.
  static std::optional<Address> from_bytes(std::span<const std::uint8_t> ip, std::uint16_t port);
};

}  // namespace vigil::swim

template <>
struct std::hash<vigil::swim::Address> {
  std::size_t operator()(const vigil::swim::Address& a) const noexcept {
    return std::hash<std::uint64_t>{}((static_cast<std::uint64_t>(a.ip) << 16) | a.port);
  }
};
