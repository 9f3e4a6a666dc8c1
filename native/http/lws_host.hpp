#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "base/time.hpp"
#include "http/origin_policy.hpp"

struct lws;
struct lws_context;

namespace vigil::native {

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

// A readable/writable descriptor (UDP or TCP socket) the host watches in its service loop.
// The host owns the descriptor once adopted and closes it when the wsi goes away.
class RawHandler {
 public:
  virtual ~RawHandler() = default;
  virtual void on_readable() = 0;
  virtual void on_writable() {}
  virtual void on_closed() {}  // the descriptor is gone; do not use it
};

// One libwebsockets context on one port: the web app's static files at "/" (StaticFiles:
// revalidated, precompressed variants), dynamic HTTP answers under given prefixes (never
// cached), a WebSocket endpoint, adopted raw descriptors and a wake-up timer, all served by a
// single-threaded lws_service() loop.
class LwsHost {
 public:
  using ClientId = std::uint64_t;

  struct Options {
    std::string host = "127.0.0.1";
    int port = 8080;
    std::string web_dir;                     // served at "/"; empty: no static files
    std::vector<std::string> dynamic_paths;  // mountpoints answered by on_http, e.g. "/v1"
    std::string ws_path = "/ws";             // WebSocket upgrades accepted only here
    std::string ws_protocol = "vigil.v1";    // the subprotocol clients must request
    std::size_t max_clients = 32;
    std::size_t max_message = 64 * 1024;     // larger WebSocket messages are refused
    // Incoming WebSocket messages per connection: a token bucket of `message_burst` refilled at
    // `message_rate` a second (<= 0: unlimited). Messages over it are dropped.
    double message_rate = 20;
    double message_burst = 40;
    // Static files being sent at once, each holding an open descriptor: more get 503. A file
    // transfer that makes no progress for `file_stall_seconds` (a client that stopped reading)
    // is cut.
    std::size_t max_file_streams = 64;
    int file_stall_seconds = 10;
    // Pages allowed to open the WebSocket (checked on the upgrade; others get 403).
    OriginPolicy origins = OriginPolicy::allow_all();
    // HTTPS and wss on the same port: PEM files of the certificate (chain) and its private key.
    // Both empty: plain HTTP. Checked by create(), which names the file at fault.
    std::string tls_cert;
    std::string tls_key;
  };

  // What became of a complete incoming WebSocket message.
  enum class Inbound {
    ok,
    too_large,     // over max_message: its text is dropped
    rate_limited,  // over the connection's message rate: dropped. Reported at most once a
                   // second per connection (no text); dropped(client) counts every one.
  };

  struct Handlers {
    std::function<HttpResponse(const std::string& uri)> on_http;
    std::function<void(ClientId, const std::string& origin)> on_open;
    // A complete text message, or news of one that was dropped (see Inbound).
    std::function<void(ClientId, std::string_view message, Inbound status)> on_message;
    std::function<void(ClientId)> on_close;
    std::function<void()> on_timer;  // see wake_after()
  };

  static Result<std::unique_ptr<LwsHost>> create(const Options& options, Handlers handlers);
  ~LwsHost();
  LwsHost(const LwsHost&) = delete;
  LwsHost& operator=(const LwsHost&) = delete;

  // Runs the service loop until `stop` becomes non-zero (set from a signal handler).
  void run(const volatile std::sig_atomic_t& stop);
  // One service iteration; false once lws cannot go on.
  bool service_once();

  // Calls on_timer after `delay` (replacing any earlier request).
  void wake_after(Millis delay);

  void send(ClientId client, std::string message);
  void broadcast(const std::string& message);
  void close_client(ClientId client);
  std::size_t clients() const { return clients_.size(); }
  // Messages from `client` dropped by the rate limit so far.
  std::uint64_t dropped(ClientId client) const;
  // What the server turned away since start, over all connections.
  struct Refusals {
    std::uint64_t origins = 0;       // WebSocket upgrades refused because of their Origin (403)
    std::uint64_t rate_limited = 0;  // WebSocket messages dropped by a connection's rate limit
    std::uint64_t too_large = 0;     // WebSocket messages over max_message
    std::uint64_t static_files = 0;  // requests for static files refused: a path outside the web
                                     // directory or hidden (403), a method not GET or HEAD (405)
    std::uint64_t file_streams_busy = 0;  // files refused with 503: max_file_streams being sent
    std::uint64_t file_streams_cut = 0;   // file transfers closed before their end (stalled, gone)
  };
  const Refusals& refusals() const { return refusals_; }
  std::size_t file_streams() const { return file_streams_; }  // files being sent now

  // Watches `fd` for reads (and writes on request) on behalf of `handler`, which must outlive
  // the adoption or be told by on_closed(). Returns the connection, or nothing if lws refused
  // (it then closed the descriptor).
  ::lws* adopt(int fd, RawHandler* handler);
  void want_write(::lws* raw);
  void close_raw(::lws* raw);  // asynchronously; on_closed follows

  std::string url() const;  // https:// when serving TLS
  bool secure() const { return !options_.tls_cert.empty(); }
  const Options& options() const { return options_; }
  // The address `client` connects from ("127.0.0.1", "::1"), "" if unknown or gone.
  std::string remote_address(ClientId client) const;

 private:
  struct Client;
  struct Impl;
  LwsHost(Options options, Handlers handlers);

  friend struct LwsCallbacks;  // the lws protocol callbacks, defined with lws's own types

  Options options_;
  Handlers handlers_;
  std::unique_ptr<Impl> impl_;
  std::map<ClientId, Client*> clients_;
  ClientId next_client_ = 1;
  Refusals refusals_;
  std::size_t file_streams_ = 0;
};

}  // namespace vigil::native
