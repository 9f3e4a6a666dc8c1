#include <vigil/swim/address.hpp>

#include <algorithm>
#include <cstdio>

namespace vigil::swim {

namespace {

constexpr std::array<std::uint8_t, 12> kMappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};

// RFC 5952's text form: lower-case hex, leading zeros dropped, the longest run of two or more
// zero groups (the first, on a tie) written "::".
std::string v6_text(const std::array<std::uint8_t, 16>& ip) {
  std::array<unsigned, 8> groups{};
  for (int i = 0; i < 8; ++i) groups[i] = (static_cast<unsigned>(ip[2 * i]) << 8) | ip[2 * i + 1];
  int best_start = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (groups[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && groups[j] == 0) ++j;
    if (j - i > best_len && j - i >= 2) {
      best_start = i;
      best_len = j - i;
    }
    i = j;
  }
  std::string out;
  char buf[8];
  for (int i = 0; i < 8; ++i) {
    if (i == best_start) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    std::snprintf(buf, sizeof buf, "%x", groups[i]);
    out += buf;
  }
  return out;
}

}  // namespace

bool Address::is_v4() const {
  return std::equal(kMappedPrefix.begin(), kMappedPrefix.end(), ip.begin());
}

std::uint32_t Address::v4() const {
  return (static_cast<std::uint32_t>(ip[12]) << 24) | (static_cast<std::uint32_t>(ip[13]) << 16) |
         (static_cast<std::uint32_t>(ip[14]) << 8) | ip[15];
}

std::string Address::ip_text() const {
  if (!is_v4()) return v6_text(ip);
  return std::to_string(ip[12]) + "." + std::to_string(ip[13]) + "." + std::to_string(ip[14]) +
         "." + std::to_string(ip[15]);
}

std::string Address::to_string() const {
  const std::string host = ip_text();
  return (is_v4() ? host : "[" + host + "]") + ":" + std::to_string(port);
}

Address::Bytes Address::ip_bytes() const {
  Bytes b;
  if (is_v4()) {
    std::copy(ip.begin() + 12, ip.end(), b.data.begin());
    b.size = 4;
  } else {
    b.data = ip;
    b.size = 16;
  }
  return b;
}

Address Address::from_v4(std::uint32_t v4, std::uint16_t port) {
  return from_octets(static_cast<std::uint8_t>(v4 >> 24), static_cast<std::uint8_t>(v4 >> 16),
                     static_cast<std::uint8_t>(v4 >> 8), static_cast<std::uint8_t>(v4), port);
}

Address Address::from_octets(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d,
                             std::uint16_t port) {
  Address out;
  out.ip[12] = a;
  out.ip[13] = b;
  out.ip[14] = c;
  out.ip[15] = d;
  out.port = port;
  return out;
}

Address Address::from_v6(const std::array<std::uint8_t, 16>& ip, std::uint16_t port) {
  Address out;
  out.ip = ip;
  out.port = port;
  return out;
}

std::optional<Address> Address::from_bytes(std::span<const std::uint8_t> ip, std::uint16_t port) {
  if (ip.size() == 4) return from_octets(ip[0], ip[1], ip[2], ip[3], port);
  if (ip.size() != 16) return std::nullopt;
  std::array<std::uint8_t, 16> bytes{};
  std::copy(ip.begin(), ip.end(), bytes.begin());
  return from_v6(bytes, port);
}

}  // namespace vigil::swim
