#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace vigil::cli {

struct Endpoint {
  std::string host;
  int port = 0;
  std::uint32_t ip = 0;  // the host as a number, host byte order
};

// "HOST:PORT" with a dotted IPv4 host (or "localhost") and a port in 1..65535.
Result<Endpoint> parse_endpoint(std::string_view text);

}  // namespace vigil::cli
