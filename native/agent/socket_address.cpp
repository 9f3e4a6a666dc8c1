#include "agent/socket_address.hpp"

#include <arpa/inet.h>
#include <netdb.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <unordered_set>

namespace vigil::native {

int family_of(const swim::Address& address) {
  return address.is_v4() ? AF_INET : AF_INET6;
}

SocketAddress to_sockaddr(const swim::Address& a, int socket_family) {
  SocketAddress out;
  if (a.is_v4() && socket_family != AF_INET6) {
    auto* sa = reinterpret_cast<sockaddr_in*>(&out.storage);
    sa->sin_family = AF_INET;
    sa->sin_addr.s_addr = htonl(a.v4());
    sa->sin_port = htons(a.port);
    out.length = sizeof(sockaddr_in);
    return out;
  }
  auto* sa = reinterpret_cast<sockaddr_in6*>(&out.storage);
  sa->sin6_family = AF_INET6;
  std::memcpy(sa->sin6_addr.s6_addr, a.ip.data(), 16);
  sa->sin6_port = htons(a.port);
  out.length = sizeof(sockaddr_in6);
  return out;
}

SocketAddress to_sockaddr(const swim::Address& address) {
  return to_sockaddr(address, family_of(address));
}

std::optional<swim::Address> from_sockaddr(const sockaddr* sa, socklen_t length) {
  if (sa->sa_family == AF_INET && length >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    return swim::Address::from_v4(ntohl(in->sin_addr.s_addr), ntohs(in->sin_port));
  }
  if (sa->sa_family == AF_INET6 && length >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    std::array<std::uint8_t, 16> ip{};
    std::memcpy(ip.data(), in6->sin6_addr.s6_addr, 16);
    return swim::Address::from_v6(ip, ntohs(in6->sin6_port));  // IPv4-mapped reads as IPv4
  }
  return std::nullopt;
}

Result<std::vector<swim::Address>> resolve(const std::string& host, std::uint16_t port,
                                           int family) {
  addrinfo hints{};
  hints.ai_family = family;
  hints.ai_socktype = SOCK_DGRAM;  // one entry per address, not one per socket type
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0)
    return Error{std::string(rc == EAI_SYSTEM ? std::strerror(errno) : ::gai_strerror(rc))};
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owned(found, &::freeaddrinfo);
  std::vector<swim::Address> out;
  // A set, not a search of `out`: a name may bring thousands of addresses.
  std::unordered_set<swim::Address> seen;
  for (const addrinfo* ai = found; ai; ai = ai->ai_next) {
    auto address = from_sockaddr(ai->ai_addr, ai->ai_addrlen);
    if (!address) continue;
    address->port = port;
    if (seen.insert(*address).second) out.push_back(*address);
  }
  if (out.empty()) return Error{"no address"};
  return out;
}

}  // namespace vigil::native
