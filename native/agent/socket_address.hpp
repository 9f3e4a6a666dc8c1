#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <optional>
#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/swim/address.hpp>

namespace vigil::native {

// A swim::Address as the socket calls take it.
struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  int family() const { return storage.ss_family; }
};

// The socket family an address needs: AF_INET for IPv4, AF_INET6 for IPv6.
int family_of(const swim::Address& address);

// For a socket of `socket_family`: an IPv4 address given to an AF_INET6 socket (dual-stack) is
// written IPv4-mapped.
SocketAddress to_sockaddr(const swim::Address& address, int socket_family);
SocketAddress to_sockaddr(const swim::Address& address);

// AF_INET or AF_INET6 (an IPv4-mapped IPv6 source becomes the IPv4 address); nullopt otherwise.
std::optional<swim::Address> from_sockaddr(const sockaddr* sa, socklen_t length);

// Every address the system resolver (getaddrinfo: /etc/hosts, DNS...) gives for `host` in
// `family` (AF_INET, AF_INET6, or AF_UNSPEC for both), in its order, without repeats. An IP
// literal resolves to itself. The error carries the resolver's message.
Result<std::vector<swim::Address>> resolve(const std::string& host, std::uint16_t port, int family);

}  // namespace vigil::native
