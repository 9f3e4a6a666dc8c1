#include "swim/address.hpp"

#include <algorithm>

namespace vigil::swim {

std::string Address::to_string() const {
  return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 0xFF) + "." +
         std::to_string((ip >> 8) & 0xFF) + "." + std::to_string(ip & 0xFF) + ":" +
         std::to_string(port);
}

std::array<std::uint8_t, 4> Address::ip_bytes() const {
  return {static_cast<std::uint8_t>(ip >> 24), static_cast<std::uint8_t>(ip >> 16),
          static_cast<std::uint8_t>(ip >> 8), static_cast<std::uint8_t>(ip)};
}

Address Address::from_octets(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d,
                             std::uint16_t port) {
  return Address{(static_cast<std::uint32_t>(a) << 24) | (static_cast<std::uint32_t>(b) << 16) |
                     (static_cast<std::uint32_t>(c) << 8) | d,
                 port};
}

std::optional<Address> Address::from_bytes(std::span<const std::uint8_t> ip, std::uint16_t port) {
  if (ip.size() == 16) {
    // ::ffff:a.b.c.d
    static constexpr std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    if (!std::equal(ip.begin(), ip.begin() + 12, kMapped)) return std::nullopt;
    ip = ip.subspan(12);
  }
  if (ip.size() != 4) return std::nullopt;
  return from_octets(ip[0], ip[1], ip[2], ip[3], port);
}

}  // namespace vigil::swim
