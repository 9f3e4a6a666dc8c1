#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <vigil/base/result.hpp>

namespace vigil::native {

// Which web pages may open a WebSocket to us. Browsers send the page's origin in the `Origin`
// header of every WebSocket upgrade (WebSockets are not subject to CORS, so this is the only
// thing that keeps an arbitrary page in the user's browser from talking to a loopback agent).
// The header is compared with an allow-list of origins: scheme and host case-insensitive, the
// default port implied (http://a and http://a:80 are the same origin), a port of `*` matching
// any port, `null` (sandboxed frames, file: pages) only if listed, `*` allowing every origin.
// A request without an Origin header is not from a browser page and is always allowed: the
// check keeps out other people's pages, not other programs (those need the token to mutate).
class OriginPolicy {
 public:
  // Allows only requests without an Origin header until origins are added.
  OriginPolicy() = default;
  static OriginPolicy allow_all();

  // Adds "scheme://host[:port|:*]" (a trailing "/" is tolerated), "null" or "*".
  Status allow(std::string_view origin);
  bool allows(std::string_view origin_header) const;
  bool allows_all() const { return all_; }
  // The normalised entries, for messages and logs.
  const std::vector<std::string>& entries() const { return entries_; }

  // The canonical form of an origin ("http://127.0.0.1:8081"), or why it is not one. A port
  // of "*" is accepted when `wildcard_port`.
  static Result<std::string> normalize(std::string_view origin, bool wildcard_port = false);

  // The origins of pages served by an HTTP server on host:port: its own address, and the
  // loopback names of the same port (127.0.0.1 and localhost) through which a browser on the
  // same machine reaches it; https:// ones when the server speaks TLS.
  static std::vector<std::string> own_origins(const std::string& host, int port, bool tls = false);

 private:
  bool all_ = false;
  std::vector<std::string> entries_;  // normalised; "scheme://host:*" for any port
};

}  // namespace vigil::native
