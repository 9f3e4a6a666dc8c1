// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

namespace vigil::swim {

// An IP address (IPv4 or IPv6) and a UDP/TCP port. IPv4 is held IPv4-mapped (::ffff:a.b.c.d), so
// one 16-byte form orders, hashes and compares every address alike.
struct Address {
  // Network byte order. The default is 0.0.0.0, as an IPv4-mapped address.
  std::array<std::uint8_t, 16> ip = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0};
  std::uint16_t port = 0;

  bool operator==(const Address&) const = default;
  // Spelled out: the libc++ of the WebAssembly toolchain has no operator<=> for std::array.
  std::strong_ordering operator<=>(const Address& other) const {
    for (std::size_t i = 0; i < ip.size(); ++i)
      if (ip[i] != other.ip[i]) return ip[i] <=> other.ip[i];
    return port <=> other.port;
  }

  bool is_v4() const;
  // The IPv4 address as a number (127.0.0.1 is 0x7F000001); meaningful only when is_v4().
  std::uint32_t v4() const;
  // "127.0.0.1:7946" or "[::1]:7946".
  std::string to_string() const;
  // The address alone, IPv6 without brackets: "127.0.0.1", "::1".
  std::string ip_text() const;

  // The address bytes as memberlist's Addr field carries them: 4 for IPv4, 16 for IPv6.
  struct Bytes {
    std::array<std::uint8_t, 16> data{};
    std::size_t size = 0;
    const std::uint8_t* begin() const { return data.data(); }
    const std::uint8_t* end() const { return data.data() + size; }
  };
  Bytes ip_bytes() const;

  static Address from_v4(std::uint32_t ip, std::uint16_t port);
  static Address from_octets(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d,
                             std::uint16_t port);
  static Address from_v6(const std::array<std::uint8_t, 16>& ip, std::uint16_t port);
  // From memberlist's Addr bytes (4, or 16 for IPv6 and IPv4-mapped) and a port.
  static std::optional<Address> from_bytes(std::span<const std::uint8_t> ip, std::uint16_t port);
};

}  // namespace vigil::swim

template <>
struct std::hash<vigil::swim::Address> {
  std::size_t operator()(const vigil::swim::Address& a) const noexcept {
    // FNV-1a over the 18 bytes: IPv4 addresses differ only in their last 4 address bytes.
    std::uint64_t h = 14695981039346656037ull;
    auto mix = [&h](std::uint8_t b) { h = (h ^ b) * 1099511628211ull; };
    for (std::uint8_t b : a.ip) mix(b);
    mix(static_cast<std::uint8_t>(a.port >> 8));
    mix(static_cast<std::uint8_t>(a.port));
    return static_cast<std::size_t>(h);
  }
};
