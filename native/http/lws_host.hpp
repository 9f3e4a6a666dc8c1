#pragma once

#include <chrono>
#include <csignal>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/time.hpp>
#include "http/origin_policy.hpp"

struct lws;
struct lws_context;

namespace vigil::native {

// One request to a dynamic path, with what a handler needs to decide who may have the answer.
struct HttpRequest {
  std::string target;  // the path, and the query when Options::pass_query is set
  std::string peer;    // the client's address without the port ("127.0.0.1", "::1")
  bool peer_loopback = false;
  std::string host;  // the Host header as sent, "" when absent
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // More header fields, each name with its colon and in lower case ("content-disposition:").
  std::vector<std::pair<std::string, std::string>> headers = {};
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
    // Listens on exactly this address (see open_listen_sockets): an IPv4 or IPv6 literal, or a
    // name, every address of which is bound. Nothing else listens, whatever the address.
    std::string host = "127.0.0.1";
    int port = 8080;
    std::string web_dir;                     // served at "/"; empty: no static files
    std::vector<std::string> dynamic_paths;  // mountpoints answered by on_http, e.g. "/v1"
    // on_http is given the query too ("/v1/trace?peer=a%20b"), each argument percent-encoded
    // again as lws decoded it; otherwise the path alone.
    bool pass_query = false;
    // Dynamic paths answered only to a client on this machine that also names it in its Host
    // header (403 otherwise), whatever address the server listens on: answers that carry a
    // secret, such as the token `vigil demo` hands its own page. The Host check keeps a page of
    // another site that re-points its name to 127.0.0.1 (DNS rebinding) from reading them.
    std::vector<std::string> loopback_only_paths;
    std::string ws_path = "/ws";           // WebSocket upgrades accepted only here
    std::string ws_protocol = "vigil.v1";  // the subprotocol clients must request
    // Viewers at once. At the limit, a viewer from an address holding fewer viewers than
    // another closes that other address's oldest viewer (see ConnectionTable::viewer_to_evict),
    // so that one client that connects and reads cannot hold every place.
    std::size_t max_clients = 32;
    std::size_t max_message = 64 * 1024;  // larger WebSocket messages are refused
    // Incoming WebSocket messages per connection: a token bucket of `message_burst` refilled at
    // `message_rate` a second (<= 0: unlimited). Messages over it are dropped.
    double message_rate = 20;
    double message_burst = 40;
    // Static files being sent at once, each holding an open descriptor: more get 503. A file
    // transfer that makes no progress for `file_stall_seconds` (a client that stopped reading)
    // is cut.
    std::size_t max_file_streams = 64;
    int file_stall_seconds = 10;
    // Pages allowed to open the WebSocket (checked on the upgrade; others get 403). None until
    // the host names them: programs (no Origin header) only.
    OriginPolicy origins;
    // HTTPS and wss on the same port: PEM files of the certificate (chain) and its private key.
    // Both empty: plain HTTP. Checked by create(), which names the file at fault.
    std::string tls_cert;
    std::string tls_key;

    // Connections open at once, HTTP and WebSocket together. Also held below the descriptor
    // limit (RLIMIT_NOFILE) less `descriptor_reserve` and max_file_streams (but never below 16),
    // so that accepting never runs out of descriptors, whoever holds the connections. A new
    // connection past it closes the connection idle the longest (no request under way, no
    // answer being sent, not a viewer: see ConnectionTable); with none, the new one is closed.
    std::size_t max_connections = 256;
    std::size_t descriptor_reserve = 64;  // left for everything else: UDP, push-pull streams, logs
    // Requests answered on one keep-alive connection, pipelined or not: the last one is answered
    // with "Connection: close" and the connection closed after it.
    std::size_t max_requests_per_connection = 100;
    // A request (a WebSocket upgrade included) whose headers are not complete this long after
    // the connection opened, or after the previous answer, is closed.
    int header_deadline_seconds = 5;
    // Bytes of messages waiting for one viewer, and for all viewers together (each message
    // counted with its bookkeeping, some 64 bytes): a viewer whose
    // queue would pass either (it is not reading) is closed and its queue freed. A message is
    // always accepted into an empty queue, so one large snapshot never closes a viewer.
    std::size_t max_queue_bytes = 1024 * 1024;
    std::size_t max_total_queue_bytes = 8 * 1024 * 1024;
    // The kernel's send buffer of every connection, fixed (not grown by the kernel up to 4 MiB):
    // a client that stops reading then holds this much kernel memory at most, and a viewer
    // that stops reading shows in its queue, and meets its budget, within seconds.
    int socket_send_buffer = 128 * 1024;
    // Bytes of dynamic answers the socket could not take at once, all connections together:
    // lws holds them until the client reads them, and the connection ends after such an answer
    // (see slow_readers), so each counts until its connection is gone. An answer that would
    // pass it is refused with 503, unless none is held (one large answer always goes out).
    std::size_t max_answer_bytes = 16 * 1024 * 1024;
    // Each kind of refusal is logged (on stderr) at most once per this many seconds, with the
    // count since its previous line; 0: not logged.
    int refusal_log_seconds = 10;
  };

  // What became of a complete incoming WebSocket message.
  enum class Inbound {
    ok,
    too_large,     // over max_message: its text is dropped
    rate_limited,  // over the connection's message rate: dropped. Reported at most once a
                   // second per connection (no text); dropped(client) counts every one.
  };

  struct Handlers {
    std::function<HttpResponse(const HttpRequest&)> on_http;
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

  // Calls on_timer after `delay`, or at `at` (replacing any earlier request). A host that
  // re-arms after every event should give the same `at` while its next deadline holds: that
  // costs nothing.
  void wake_after(Millis delay);
  void wake_at(std::chrono::steady_clock::time_point at);

  void send(ClientId client, const std::string& message);
  void broadcast(const std::string& message);
  void close_client(ClientId client);
  std::size_t clients() const { return clients_.size(); }
  // Messages from `client` dropped by the rate limit so far.
  std::uint64_t dropped(ClientId client) const;
  // Bytes waiting in `client`'s send queue (as max_queue_bytes counts them), 0 if gone.
  std::size_t queued_bytes(ClientId client) const;
  // What the server turned away since start, over all connections.
  struct Refusals {
    std::uint64_t origins = 0;       // WebSocket upgrades refused because of their Origin (403)
    std::uint64_t rate_limited = 0;  // WebSocket messages dropped by a connection's rate limit
    std::uint64_t too_large = 0;     // WebSocket messages over max_message
    std::uint64_t static_files = 0;  // requests for static files refused: a path outside the web
                                     // directory or hidden (403), a method not GET or HEAD (405)
    std::uint64_t file_streams_busy = 0;  // files refused with 503: max_file_streams being sent
    std::uint64_t file_streams_cut = 0;   // file transfers closed before their end (stalled, gone)
    std::uint64_t connections = 0;        // connections closed on accept: max_connections open,
                                          // or descriptors running out (streams included), and
                                          // none idle to make room
    std::uint64_t evicted = 0;            // idle connections closed to make room for new ones
    std::uint64_t request_limit = 0;      // connections closed after max_requests_per_connection
    std::uint64_t slow_readers = 0;       // keep-alive connections closed after an answer the
                                          // client had not taken yet (pipelining, not reading)
    std::uint64_t incomplete = 0;         // connections that ended before a complete request:
                                          // past header_deadline_seconds, or the client left
    std::uint64_t methods = 0;            // dynamic requests neither GET nor HEAD (405)
    std::uint64_t upgrades = 0;           // WebSocket upgrades refused: another path (404), or
                                          // without the subprotocol ws_protocol (400)
    std::uint64_t viewers_busy = 0;       // upgrades refused with 503: max_clients viewers open,
                                          // none of them from an address holding more
    std::uint64_t viewers_evicted = 0;    // viewers closed to let one from another address in
    std::uint64_t answers_busy = 0;       // dynamic answers refused with 503: max_answer_bytes
                                          // waiting for their clients
    std::uint64_t local_only = 0;         // requests for a loopback-only path refused (403)
    std::uint64_t queue_overflows = 0;    // viewers closed: their queue over its byte budget
    std::uint64_t accept_paused = 0;      // times a listener stopped accepting for a while, out
                                          // of descriptors (EMFILE, ENFILE)
  };
  const Refusals& refusals() const { return refusals_; }
  std::size_t file_streams() const { return file_streams_; }  // files being sent now
  // What the server holds now, for /metrics.
  struct Load {
    std::size_t connections = 0;   // HTTP and WebSocket
    std::size_t answer_bytes = 0;  // of dynamic answers the sockets could not take at once
  };
  Load load() const;
  // Where the server listens, as bound ("127.0.0.1:8080", "[::1]:8080").
  std::vector<std::string> listening() const;

  // Watches `fd` for reads (and writes on request) on behalf of `handler`, which must outlive
  // the adoption or be told by on_closed(). Returns the connection, or nothing if lws refused
  // or descriptors are running out (the descriptor is then closed).
  ::lws* adopt(int fd, RawHandler* handler);
  void want_write(::lws* raw);
  void close_raw(::lws* raw);  // asynchronously; on_closed follows
  // Stops reading `raw` for `delay`: a listener whose accept() found no descriptor left, which
  // would otherwise stay readable and spin. The kernel keeps the backlog meanwhile.
  void pause_accepting(::lws* raw, Millis delay);

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

  // A viewer whose queue went over its budget: freed now, closed soon.
  void overflow(Client* client);
  // Counts and logs (once per interval) one refusal.
  void refuse(std::uint64_t& counter, const char* what);
  // Takes the connections waiting on `listen_fd`, within the limits (see max_connections).
  void accept_connections(int listen_fd, ::lws* listener);

  Options options_;
  Handlers handlers_;
  std::unique_ptr<Impl> impl_;
  std::map<ClientId, Client*> clients_;
  ClientId next_client_ = 1;
  Refusals refusals_;
  std::size_t file_streams_ = 0;
  std::size_t queued_bytes_ = 0;    // waiting for viewers, all queues together
  std::size_t answer_bytes_ = 0;    // of dynamic answers lws may still hold (Load)
  std::size_t connection_cap_ = 0;  // max_connections, held below the descriptor limit
};

}  // namespace vigil::native
