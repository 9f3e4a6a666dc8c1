#pragma once

#include <string>

#include <vigil/base/result.hpp>
#include <vigil/base/time.hpp>

namespace vigil::native {

struct HttpReply {
  int status = 0;
  std::string body;
};

// A blocking HTTP/1.0 GET for the CLI's own use against a vigil agent (`vigil members`, and the
// demo waiting for its agents): one request, bounded by `timeout`, body read to the end.
Result<HttpReply> http_get(const std::string& host, int port, const std::string& path,
                           Millis timeout);

}  // namespace vigil::native
