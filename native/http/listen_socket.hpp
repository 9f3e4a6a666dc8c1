#pragma once

#include <sys/socket.h>

#include <string>
#include <string_view>
#include <vector>

#include <vigil/base/result.hpp>

namespace vigil::native {

// A TCP socket listening on one address, non-blocking and close-on-exec.
struct ListenSocket {
  int fd = -1;
  std::string address;  // as bound, numeric: "127.0.0.1:8080", "[::1]:8080"
};

// Listening sockets on exactly the address `host` names, at `port`:
// - an IPv4 literal binds that address only; "0.0.0.0" binds every IPv4 address;
// - an IPv6 literal binds that address only; "::" binds every address, IPv6 and IPv4 (the
//   system's dual-stack default, as the protocol port has it);
// - a name binds every address the resolver gives for it ("localhost": 127.0.0.1 and ::1).
// One socket that cannot be bound fails the whole call (no socket is left open) with a message
// naming the address and the reason. Why not libwebsockets' own listener: given an IPv4
// address, the Debian build (IPv6 on) opens a dual-stack socket on every interface instead.
Result<std::vector<ListenSocket>> open_listen_sockets(const std::string& host, int port);

// Whether a connected peer's address is this machine's loopback: 127.0.0.0/8, ::1, or an
// IPv4-mapped 127.0.0.0/8.
bool is_loopback(const sockaddr* address);

// A peer's address as text, without the port ("127.0.0.1", "::1"; an IPv4-mapped address is
// written as IPv4). Empty for a family other than IPv4 or IPv6.
std::string address_text(const sockaddr* address);

// Whether a request's Host header names this machine's loopback: "localhost", a name ending in
// ".localhost" (RFC 6761), 127.0.0.0/8 or [::1], with or without a port. A page on another
// site that re-points its own name to 127.0.0.1 (DNS rebinding) still sends its own name here.
bool is_loopback_host_header(std::string_view host);

}  // namespace vigil::native
