#pragma once

#include <string>
#include <string_view>

#include <vigil/base/result.hpp>

namespace vigil::cli {

struct Endpoint {
  enum class Kind { ipv4, ipv6, name };
  std::string host;  // an IPv4 or IPv6 literal (without brackets), or a host name
  int port = 0;
  Kind kind = Kind::ipv4;

  // As it is written on a command line: "127.0.0.1:7946", "[::1]:7946", "node-1:7946".
  std::string to_string() const;
};

// "HOST:PORT" with an IP literal host: dotted IPv4, bracketed IPv6 ("[::1]:7946"), or "localhost"
// (taken as 127.0.0.1); the port in 1..65535.
Result<Endpoint> parse_endpoint(std::string_view text);

// The same, and a host name too (kind name), left for the system resolver to look up when the
// address is used.
Result<Endpoint> parse_host_port(std::string_view text);

}  // namespace vigil::cli
