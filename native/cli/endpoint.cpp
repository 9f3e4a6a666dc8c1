#include "cli/endpoint.hpp"

#include <arpa/inet.h>

#include <charconv>

namespace vigil::cli {

Result<Endpoint> parse_endpoint(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos)
    return Error{"expected HOST:PORT, got '" + std::string(text) + "'"};
  Endpoint e;
  e.host = std::string(text.substr(0, colon));
  const auto port_text = text.substr(colon + 1);
  int port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 || port > 65535)
    return Error{"port must be a number in 1..65535, got '" + std::string(port_text) + "'"};
  e.port = port;
  if (e.host == "localhost") e.host = "127.0.0.1";
  in_addr addr{};
  if (::inet_pton(AF_INET, e.host.c_str(), &addr) != 1)
    return Error{"host must be an IPv4 address such as 127.0.0.1, got '" + e.host + "'"};
  e.ip = ntohl(addr.s_addr);
  return e;
}

}  // namespace vigil::cli
