#include "cli/endpoint.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace vigil::cli {

namespace {

// RFC 1123 host names: dot-separated labels of letters, digits and hyphens, no label starting or
// ending with a hyphen; at most 253 characters.
bool is_host_name(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  std::size_t start = 0;
  while (start <= host.size()) {
    const std::size_t dot = std::min(host.find('.', start), host.size());
    const std::string_view label = host.substr(start, dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-')
      return false;
    for (char c : label)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') return false;
    // A last label of digits alone is a mistyped IPv4 address, not a name (RFC 1123, 2.1).
    if (dot == host.size() &&
        std::all_of(label.begin(), label.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    start = dot + 1;
  }
  return true;
}

Result<Endpoint> parse(std::string_view text, bool allow_names) {
  const std::string written(text);
  Endpoint e;
  std::string_view host;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return Error{"expected [IPV6]:PORT, got '" + written + "'"};
    host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
    in6_addr addr{};
    if (::inet_pton(AF_INET6, std::string(host).c_str(), &addr) != 1)
      return Error{"not an IPv6 address between the brackets: '" + std::string(host) + "'"};
    e.kind = Endpoint::Kind::ipv6;
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return Error{"expected HOST:PORT, got '" + written + "'"};
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos)
      return Error{"an IPv6 address needs brackets, as in [::1]:7946; got '" + written + "'"};
    in_addr addr{};
    if (host == "localhost" && !allow_names) {
      host = "127.0.0.1";
    } else if (::inet_pton(AF_INET, std::string(host).c_str(), &addr) == 1) {
      e.kind = Endpoint::Kind::ipv4;
    } else if (allow_names && is_host_name(host)) {
      e.kind = Endpoint::Kind::name;
    } else if (allow_names) {
      return Error{"host must be an IPv4 address, a bracketed IPv6 address or a host name, got '" +
                   std::string(host) + "'"};
    } else {
      return Error{
          "host must be an IPv4 address such as 127.0.0.1 (or an IPv6 address such as [::1]), got "
          "'" +
          std::string(host) + "'"};
    }
  }
  int port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port < 1 || port > 65535)
    return Error{"port must be a number in 1..65535, got '" + std::string(port_text) + "'"};
  e.host = std::string(host);
  e.port = port;
  return e;
}

}  // namespace

std::string Endpoint::to_string() const {
  return (kind == Kind::ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<Endpoint> parse_endpoint(std::string_view text) {
  return parse(text, false);
}

Result<Endpoint> parse_host_port(std::string_view text) {
  return parse(text, true);
}

}  // namespace vigil::cli
