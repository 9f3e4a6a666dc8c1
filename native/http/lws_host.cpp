#include "http/lws_host.hpp"

#include <libwebsockets.h>

#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include "http/connection_table.hpp"
#include "http/listen_socket.hpp"
#include "http/query_string.hpp"
#include "http/refusal_log.hpp"
#include "http/static_files.hpp"
#include "http/tls_files.hpp"
#include "http/token_bucket.hpp"
#include "http/wake_timer.hpp"

namespace vigil::native {

namespace {

constexpr const char* kHttpProtocol = "vigil-http";
constexpr const char* kFilesProtocol = "vigil-files";
constexpr const char* kRawProtocol = "vigil-raw";
// Freeing this much at once (a stuck viewer's queue) is worth handing back to the system:
// glibc keeps freed small blocks in its heap otherwise, and the agent's RSS would stay high.
constexpr std::size_t kTrimAfterFreeing = 256 * 1024;
constexpr std::size_t kMaxAnswerWrite = 1024 * 1024;
// Below this many connections the server would be of no use; a descriptor limit that leaves
// fewer is a misconfiguration, not something to enforce.
constexpr std::size_t kMinConnections = 16;
// Descriptors are handed out lowest first, so a new one numbered this close to the limit means
// hardly any are left. HTTP connections are refused within kAcceptReserve of it, and adopted
// descriptors (the agent's own streams) within kAdoptReserve, so that an accept() always finds
// one: lws retries a failed accept at once, for ever.
constexpr int kAcceptReserve = 8;
constexpr int kAdoptReserve = 16;
// Connections taken per wake-up of a listener, so that a flood of them cannot keep the service
// loop from everything else; the rest wait in the kernel's backlog for the next turn.
constexpr int kAcceptBatch = 64;
// A request header longer than this counts as absent. Large enough for what lws itself accepts
// in one request's headers (4 KiB in all), such as a long If-None-Match list.
constexpr int kMaxHeaderBytes = 4096;

// What a queued message costs: its payload, the headroom lws needs and the bookkeeping of one
// heap string, so that a flood of tiny messages is budgeted as what it really holds.
std::size_t queued_cost(std::size_t payload) {
  return payload + LWS_PRE + sizeof(std::string) + 16;
}
// A client over its message rate hears about it at most this often, so that a flood of
// commands is not answered with a flood of errors.
constexpr Millis kRateNoticeEvery{1000};
// Files go out this much per writable callback: a connection holds at most one such piece in
// libwebsockets' send buffer, however large the file.
constexpr std::size_t kFileChunk = 16 * 1024;

Millis steady_now() {
  return std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now().time_since_epoch());
}

// A request header in full ("" when absent); nothing when it is too long to be plausible.
std::optional<std::string> header(::lws* wsi, lws_token_indexes token) {
  const int n = lws_hdr_total_length(wsi, token);
  if (n <= 0) return std::string();
  if (n > kMaxHeaderBytes) return std::nullopt;
  std::string value(static_cast<std::size_t>(n) + 1, '\0');
  if (lws_hdr_copy(wsi, value.data(), n + 1, token) < 0) return std::nullopt;
  value.resize(static_cast<std::size_t>(n));
  return value;
}

bool origin_allowed(::lws* wsi, const OriginPolicy& policy) {
  const auto origin = header(wsi, WSI_TOKEN_ORIGIN);
  return origin && policy.allows(*origin);
}

LwsHost* host_of(::lws* wsi) {
  return static_cast<LwsHost*>(lws_context_user(lws_get_context(wsi)));
}

// lws_write needs LWS_PRE bytes of headroom before the payload.
std::string with_headroom(std::string_view payload) {
  std::string framed(LWS_PRE, '\0');
  framed.append(payload);
  return framed;
}

// A static file being sent. lws zeroes a session when it binds the protocol: not streaming.
struct FileSession {
  bool streaming;
  int fd;
  std::uint64_t remaining;
};

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void log_line(const std::string& line) {
  std::fprintf(stderr, "vigil: %s\n", line.c_str());
  std::fflush(stderr);
}

// libwebsockets' own error lines, at most one per 10 s: some repeat for every event of a flood.
void emit_lws_log(int, const char* line) {
  static RefusalLog log(Millis{10000}, [](const std::string& l) { log_line(l); });
  std::string text = line ? line : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  // lws prefixes a timestamp; the rest names the kind.
  const auto bracket = text.find("] ");
  log.note("libwebsockets: " + (bracket == std::string::npos ? text : text.substr(bracket + 2)),
           steady_now());
}

// The descriptor limit (RLIMIT_NOFILE), or INT_MAX when there is none.
int descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur > INT_MAX)
    return INT_MAX;
  return static_cast<int>(limit.rlim_cur);
}

// Connections the descriptor limit leaves room for, after `reserved` for everything else.
std::size_t descriptors_for_connections(std::size_t reserved) {
  const int limit = descriptor_limit();
  if (limit == INT_MAX) return SIZE_MAX;
  const auto available = static_cast<std::size_t>(limit);
  return available > reserved ? available - reserved : 0;
}

// Whether a comma-separated header list (Sec-WebSocket-Protocol) names `wanted`.
bool lists_token(std::string_view list, std::string_view wanted) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view token = list.substr(0, comma);
    while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
    while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
    if (token == wanted) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

StaticRequest::Method method_of(::lws* wsi) {
  if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0) return StaticRequest::Method::get;
  if (lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0) return StaticRequest::Method::head;
  return StaticRequest::Method::other;
}

}  // namespace

struct LwsHost::Client {
  Client(ClientId id_, ::lws* wsi_, const Options& o)
      : id(id_), wsi(wsi_), bucket(o.message_rate, o.message_burst) {}
  ClientId id;
  ::lws* wsi;
  std::deque<std::string> outgoing;  // framed with headroom
  std::size_t queued_bytes = 0;      // their cost (queued_cost)
  bool closing = false;              // over its budget: nothing more is queued
  std::string incoming;
  bool too_large = false;
  TokenBucket bucket;
  std::uint64_t dropped = 0;
  std::optional<Millis> last_notice;  // of a rate_limited message
};

struct LwsCallbacks {
  // Ends a file transfer (done, failed or cut), releasing its descriptor and its place.
  static void stop_streaming(LwsHost* host, FileSession* session);
  static int http(::lws* wsi, lws_callback_reasons reason, void* user, void* in, std::size_t len);
  static int files(::lws* wsi, lws_callback_reasons reason, void* user, void* in, std::size_t len);
  static int ws(::lws* wsi, lws_callback_reasons reason, void* user, void* in, std::size_t len);
  static int raw(::lws* wsi, lws_callback_reasons reason, void* user, void* in, std::size_t len);
  // Writes due refusal lines and resumes paused listeners, then re-arms itself if need be.
  static void housekeeping(lws_sorted_usec_list_t* sul);
  // Answers a request for a dynamic path (GET or HEAD) in full, at once, so that requests
  // pipelined on the connection are answered one after the other, in order.
  static int answer(LwsHost* host, ::lws* wsi);
  static void schedule_housekeeping(LwsHost* host);
};

struct LwsHost::Impl {
  std::optional<StaticFiles> files;  // the web app, when there is one
  // One read buffer for every file being sent (lws_write copies what the socket cannot take).
  std::vector<unsigned char> file_chunk = std::vector<unsigned char>(LWS_PRE + kFileChunk);
  std::vector<lws_http_mount> mounts;
  std::vector<std::string> mountpoints;
  lws_protocols protocols[5]{};
  lws_context* context = nullptr;
  lws_vhost* vhost = nullptr;
  struct Wake {
    lws_sorted_usec_list_t sul;
    LwsHost* host;
  } chores{};  // LwsCallbacks::housekeeping
  // wake_at(): a timerfd among the polled descriptors (see WakeTimer for why not an lws timer).
  struct WakeHandler : RawHandler {
    std::optional<WakeTimer> timer;
    LwsHost* host = nullptr;
    void on_readable() override {
      if (timer && timer->take() && host->handlers_.on_timer) host->handlers_.on_timer();
    }
  } wake;
  // Every accepted HTTP connection (upgraded ones too) until lws destroys it.
  ConnectionTable connections;
  std::string accepting_from;  // the address of the connection being adopted now
  bool accepting_loopback = false;
  // The listening sockets: accepted here rather than by lws (see open_listen_sockets).
  struct Listener : RawHandler {
    LwsHost* host = nullptr;
    int fd = -1;
    ::lws* wsi = nullptr;
    std::string address;
    void on_readable() override { host->accept_connections(fd, wsi); }
  };
  std::vector<std::unique_ptr<Listener>> listeners;
  std::map<::lws*, Millis> paused;  // listeners not read until then
  std::optional<RefusalLog> refusal_log;
  bool closing_down = false;  // lws is closing every connection: schedule nothing more
  int descriptor_limit = INT_MAX;
};

Result<std::unique_ptr<LwsHost>> LwsHost::create(const Options& options, Handlers handlers) {
  namespace fs = std::filesystem;
  if (options.port < 1 || options.port > 65535)
    return Error{"port must be in 1..65535, got " + std::to_string(options.port)};
  const bool tls = !options.tls_cert.empty() || !options.tls_key.empty();
  if (tls && (options.tls_cert.empty() || options.tls_key.empty()))
    return Error{"TLS needs both a certificate and its key"};
  if (tls)
    if (auto problem = check_tls_files(options.tls_cert, options.tls_key))
      return Error{problem->message};
  std::unique_ptr<LwsHost> host(new LwsHost(options, std::move(handlers)));
  Impl& impl = *host->impl_;

  if (!options.web_dir.empty()) {
    std::error_code ec;
    const fs::path dir = fs::absolute(options.web_dir, ec);
    const std::string missing = "no web app at '" + options.web_dir +
                                "' (index.html missing): build it first with scripts/build.sh";
    if (ec || !fs::is_regular_file(dir / "index.html", ec)) return Error{missing};
    auto files = StaticFiles::open(dir.string());
    if (!files) return Error{missing};
    impl.files.emplace(std::move(files).value());
  }

  impl.mountpoints = options.dynamic_paths;
  impl.mounts.reserve(impl.mountpoints.size() + 1);
  if (impl.files) {
    // Our own callback rather than lws's file mount (LWSMPRO_FILE): that one has no
    // Last-Modified, If-Modified-Since, Vary or brotli, and its ETag ignores the encoding.
    // First in the list: lws gives a request to the last callback mount that matches it,
    // whatever the length of the match, so the dynamic prefixes must come after "/".
    lws_http_mount& files = impl.mounts.emplace_back();
    files.mountpoint = "/";
    files.mountpoint_len = 1;
    files.origin = kFilesProtocol;
    files.origin_protocol = LWSMPRO_CALLBACK;
  }
  for (const std::string& prefix : impl.mountpoints) {
    lws_http_mount& mount = impl.mounts.emplace_back();
    mount.mountpoint = prefix.c_str();
    mount.mountpoint_len = static_cast<unsigned char>(prefix.size());
    mount.origin = kHttpProtocol;
    mount.origin_protocol = LWSMPRO_CALLBACK;
  }
  for (std::size_t i = 0; i + 1 < impl.mounts.size(); ++i)
    impl.mounts[i].mount_next = &impl.mounts[i + 1];

  // tx_packet_size: an answer goes to the socket in one write, so that lws keeps back only what
  // the socket refuses (and the connection only counts as choked when the client is not reading).
  impl.protocols[0] = {kHttpProtocol, &LwsCallbacks::http, 0, 0, 0, nullptr, kMaxAnswerWrite};
  impl.protocols[1] = {kFilesProtocol, &LwsCallbacks::files, sizeof(FileSession), 0, 0, nullptr, 0};
  std::size_t next = 2;
  if (!options.ws_protocol.empty())
    impl.protocols[next++] = {host->options_.ws_protocol.c_str(), &LwsCallbacks::ws,
                              // Each WebSocket's session data is a pointer to its Client.
                              sizeof(Client*),  // NOLINT(bugprone-sizeof-expression)
                              16 * 1024, 0, nullptr, 0};
  impl.protocols[next++] = {kRawProtocol, &LwsCallbacks::raw, 0, 0, 0, nullptr, 0};

  lws_set_log_level(LLL_ERR, &emit_lws_log);
  impl.refusal_log.emplace(Millis{std::int64_t{options.refusal_log_seconds} * 1000}, &log_line);
  const std::size_t file_descriptors = impl.files ? options.max_file_streams : 0;
  impl.descriptor_limit = descriptor_limit();
  host->connection_cap_ = std::min(
      options.max_connections,
      std::max(kMinConnections,
               descriptors_for_connections(options.descriptor_reserve + file_descriptors)));
  // The listening sockets first: an address that cannot be bound stops everything before lws
  // starts. lws gets a vhost without a listener of its own and is handed each connection.
  auto sockets = open_listen_sockets(options.host, options.port);
  if (!sockets) return sockets.error();
  for (const ListenSocket& s : *sockets) {
    auto& listener = impl.listeners.emplace_back(std::make_unique<Impl::Listener>());
    listener->host = host.get();
    listener->fd = s.fd;
    listener->address = s.address;
  }
  lws_context_creation_info info;
  std::memset(&info, 0, sizeof info);
  info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
  info.protocols = impl.protocols;
  info.mounts = impl.mounts.empty() ? nullptr : impl.mounts.data();
  info.user = host.get();
  // Headers must be complete this long after a connection opens (lws's default is 10 s for an
  // idle header table); keep-alive connections idle as long between requests.
  info.timeout_secs = static_cast<unsigned>(std::max(1, options.header_deadline_seconds));
  info.timeout_secs_ah_idle = info.timeout_secs;
  info.keepalive_timeout = std::max(1, options.header_deadline_seconds);
  // Deliberately not LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE: its
  // x-frame-options and CSP headers forbid the iframes and wasm the explainer needs.
  info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
  if (tls) {
    info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
    info.ssl_cert_filepath = host->options_.tls_cert.c_str();
    info.ssl_private_key_filepath = host->options_.tls_key.c_str();
    // HTTP/1.1 only: over HTTP/2 a browser's WebSocket would need RFC 8441's extended CONNECT
    // and the answers here are written as HTTP/1.1 transactions.
    info.alpn = "http/1.1";
  }
  auto close_listeners = [&impl] {
    for (auto& l : impl.listeners)
      if (!l->wsi && l->fd >= 0) ::close(l->fd);
  };
  impl.context = lws_create_context(&info);
  if (!impl.context) {
    close_listeners();
    return Error{"cannot start libwebsockets"};
  }
  impl.vhost = lws_create_vhost(impl.context, &info);
  if (!impl.vhost) {
    close_listeners();
    return Error{"cannot start the HTTP server on " + options.host + ":" +
                 std::to_string(options.port)};
  }
  for (auto& l : impl.listeners) {
    l->wsi = host->adopt(l->fd, l.get());
    if (!l->wsi) {
      l->fd = -1;  // adopt() has closed it, or lws holds it
      close_listeners();
      return Error{"cannot watch the listening socket " + l->address};
    }
  }
  impl.chores.host = host.get();
  auto timer = WakeTimer::open();
  if (!timer) return timer.error();
  impl.wake.host = host.get();
  impl.wake.timer = *timer;
  if (!host->adopt(impl.wake.timer->fd(), &impl.wake))
    return Error{"cannot watch the wake-up timer"};
  return host;
}

LwsHost::LwsHost(Options options, Handlers handlers)
    : options_(std::move(options)),
      handlers_(std::move(handlers)),
      impl_(std::make_unique<Impl>()) {}

LwsHost::~LwsHost() {
  if (impl_->context) {
    impl_->closing_down = true;
    lws_sul_cancel(&impl_->chores.sul);
    lws_context_destroy(impl_->context);
  }
  for (auto& [id, client] : clients_) delete client;
}

void LwsHost::run(const volatile std::sig_atomic_t& stop) {
  while (!stop && service_once()) {
  }
}

bool LwsHost::service_once() {
  return lws_service(impl_->context, 0) >= 0;
}

void LwsHost::wake_after(Millis delay) {
  wake_at(std::chrono::steady_clock::now() + std::max(Millis{0}, delay));
}

void LwsHost::wake_at(std::chrono::steady_clock::time_point at) {
  impl_->wake.timer->arm_at(at);
}

std::string LwsHost::url() const {
  // An IPv6 literal is bracketed, as URLs write it.
  const bool v6 = options_.host.find(':') != std::string::npos;
  const std::string host = v6 ? "[" + options_.host + "]" : options_.host;
  return std::string(secure() ? "https://" : "http://") + host + ":" +
         std::to_string(options_.port) + "/";
}

LwsHost::Load LwsHost::load() const {
  return {impl_->connections.size(), answer_bytes_};
}

std::vector<std::string> LwsHost::listening() const {
  std::vector<std::string> out;
  for (const auto& l : impl_->listeners) out.push_back(l->address);
  return out;
}

// ------------------------------------------------------------------------------ accepting

void LwsHost::accept_connections(int listen_fd, ::lws* listener) {
  Impl& impl = *impl_;
  for (int taken = 0; taken < kAcceptBatch; ++taken) {
    sockaddr_storage from{};
    socklen_t from_len = sizeof from;
    const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&from), &from_len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      // Out of descriptors the listener stays readable: wait instead of spinning.
      if (errno == EMFILE || errno == ENFILE) pause_accepting(listener, Millis{1000});
      return;
    }
    // Descriptors are handed out lowest first: this close to the limit, hardly any are left.
    const bool descriptors_low = fd >= impl.descriptor_limit - kAcceptReserve;
    if (descriptors_low || impl.connections.size() >= connection_cap_) {
      const auto victim = impl.connections.eviction_candidate();
      if (!victim) {
        ::close(fd);
        refuse(refusals_.connections, descriptors_low
                                          ? "HTTP connections with descriptors running out"
                                          : "HTTP connections over the connection limit");
        continue;
      }
      impl.connections.find(*victim)->evicted = true;
      refuse(refusals_.evicted, "idle HTTP connections closed to make room for new ones");
      // At once, so that its descriptor is free for the next accept of this batch.
      lws_set_timeout(static_cast<::lws*>(const_cast<void*>(*victim)), PENDING_TIMEOUT_USER_OK,
                      LWS_TO_KILL_SYNC);
    }
    const int buffer = options_.socket_send_buffer;
    if (buffer > 0) ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    impl.accepting_from = address_text(reinterpret_cast<const sockaddr*>(&from));
    impl.accepting_loopback = is_loopback(reinterpret_cast<const sockaddr*>(&from));
    lws_sock_file_fd_type desc;
    desc.sockfd = fd;
    const int type = LWS_ADOPT_SOCKET | LWS_ADOPT_HTTP | (secure() ? LWS_ADOPT_ALLOW_SSL : 0);
    // lws closes the descriptor itself if it cannot take it.
    (void)lws_adopt_descriptor_vhost(impl.vhost, static_cast<lws_adoption_type>(type), desc,
                                     nullptr, nullptr);
    impl.accepting_from.clear();
  }
}

// ------------------------------------------------------------------------------------- HTTP

void LwsHost::refuse(std::uint64_t& counter, const char* what) {
  ++counter;
  if (impl_->closing_down) return;
  impl_->refusal_log->note(what, steady_now());
  LwsCallbacks::schedule_housekeeping(this);
}

void LwsCallbacks::schedule_housekeeping(LwsHost* host) {
  LwsHost::Impl& impl = *host->impl_;
  std::optional<Millis> next = impl.refusal_log->flush(steady_now());
  for (const auto& [raw, until] : impl.paused)
    if (!next || until < *next) next = until;
  if (!next) return;
  const Millis delay = std::max(Millis{0}, *next - steady_now());
  lws_sul_schedule(impl.context, 0, &impl.chores.sul, &LwsCallbacks::housekeeping,
                   static_cast<lws_usec_t>(delay.count()) * 1000 + 1000);
}

void LwsCallbacks::housekeeping(lws_sorted_usec_list_t* sul) {
  auto* chores = reinterpret_cast<LwsHost::Impl::Wake*>(sul);
  LwsHost* host = chores->host;
  const Millis now = steady_now();
  auto& paused = host->impl_->paused;
  for (auto it = paused.begin(); it != paused.end();) {
    if (it->second > now) {
      ++it;
      continue;
    }
    lws_rx_flow_control(it->first, 1);
    it = paused.erase(it);
  }
  schedule_housekeeping(host);
}

int LwsCallbacks::answer(LwsHost* host, ::lws* wsi) {
  ConnectionTable::Entry* connection = host->impl_->connections.find(wsi);
  const std::size_t requests = connection ? ++connection->requests : 1;
  const StaticRequest::Method method = method_of(wsi);
  if (method == StaticRequest::Method::other || !host->handlers_.on_http) {
    host->refuse(host->refusals_.methods, "HTTP requests neither GET nor HEAD (405)");
    lws_return_http_status(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED, nullptr);
    return -1;  // no reading a body we refused
  }
  const bool head = method == StaticRequest::Method::head;
  char uri[1024] = {0};
  if (lws_hdr_copy(wsi, uri, sizeof uri, head ? WSI_TOKEN_HEAD_URI : WSI_TOKEN_GET_URI) < 0) {
    lws_return_http_status(wsi, HTTP_STATUS_REQ_URI_TOO_LONG, nullptr);
    return -1;
  }
  std::string target = uri;
  if (host->options_.pass_query) {
    // lws splits the query at '&' and decodes each argument: encoded again, a value holding
    // '&' or '=' reaches the handler unambiguous.
    char arg[1024];
    for (int i = 0;
         i < 64 && lws_hdr_copy_fragment(wsi, arg, sizeof arg, WSI_TOKEN_HTTP_URI_ARGS, i) >= 0;
         ++i) {
      const std::string_view text(arg);
      const auto eq = text.find('=');
      target += i == 0 ? '?' : '&';
      target += percent_encode(text.substr(0, eq));
      if (eq != std::string_view::npos) target += "=" + percent_encode(text.substr(eq + 1));
    }
  }
  HttpRequest request;
  request.target = std::move(target);
  request.peer = connection ? connection->peer : std::string();
  request.peer_loopback = connection && connection->loopback;
  request.host = header(wsi, WSI_TOKEN_HOST).value_or("");
  const auto& local_only = host->options_.loopback_only_paths;
  const std::string path(target_path(request.target));
  HttpResponse r;
  if (std::find(local_only.begin(), local_only.end(), path) != local_only.end() &&
      !(request.peer_loopback && is_loopback_host_header(request.host))) {
    host->refuse(host->refusals_.local_only, "requests for a loopback-only path from elsewhere");
    r = {
        403, "application/json",
        R"({"error":"this path answers only on this machine: open the page as http://127.0.0.1 or http://localhost"})"};
  } else {
    r = host->handlers_.on_http(request);
  }
  const bool last = requests >= host->options_.max_requests_per_connection;
  // What lws may be left holding of this answer, for a client that does not take it: counted
  // in full (lws does not say how much the socket took) until the connection is gone.
  if (!head && host->answer_bytes_ > 0 &&
      host->answer_bytes_ + r.body.size() > host->options_.max_answer_bytes) {
    host->refuse(host->refusals_.answers_busy,
                 "answers refused: too many bytes waiting for clients that do not read");
    r = {503, "application/json", R"({"error":"busy: too many answers waiting to be read"})"};
  }

  unsigned char headers[LWS_PRE + 1024];
  unsigned char* start = headers + LWS_PRE;
  unsigned char* p = start;
  unsigned char* end = headers + sizeof headers - 1;
  // HEAD: the headers GET would have, Content-Length included, and no body.
  if (lws_add_http_common_headers(wsi, static_cast<unsigned>(r.status), r.content_type.c_str(),
                                  r.body.size(), &p, end))
    return -1;
  static const char kNoStore[] = "no-store";
  if (lws_add_http_header_by_name(wsi, reinterpret_cast<const unsigned char*>("cache-control:"),
                                  reinterpret_cast<const unsigned char*>(kNoStore),
                                  sizeof kNoStore - 1, &p, end))
    return -1;
  for (const auto& [name, value] : r.headers)
    if (lws_add_http_header_by_name(wsi, reinterpret_cast<const unsigned char*>(name.c_str()),
                                    reinterpret_cast<const unsigned char*>(value.data()),
                                    static_cast<int>(value.size()), &p, end))
      return -1;
  static const char kClose[] = "close";
  if (last && lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION,
                                           reinterpret_cast<const unsigned char*>(kClose),
                                           sizeof kClose - 1, &p, end))
    return -1;
  if (lws_finalize_write_http_header(wsi, start, &p, end)) return -1;
  if (!head && !r.body.empty()) {
    // lws keeps what the socket cannot take now and sends it before anything else.
    std::string framed = with_headroom(r.body);
    if (lws_write(wsi, reinterpret_cast<unsigned char*>(framed.data()) + LWS_PRE, r.body.size(),
                  LWS_WRITE_HTTP_FINAL) != static_cast<int>(r.body.size()))
      return -1;
    if (lws_partial_buffered(wsi) && connection) {
      // Held until the connection is gone: the connection ends after this answer (below), once
      // lws has flushed it or given up on a client that does not read.
      connection->answer_bytes = r.body.size();
      connection->busy = true;
      host->answer_bytes_ += r.body.size();
    }
  }
  if (last) {
    host->refuse(host->refusals_.request_limit,
                 "HTTP connections closed after their request limit");
    return -1;  // closed once the answer is out
  }
  // The client has not taken this answer yet: reading its next requests would pile answers up
  // here. It gets this one in full, then the connection ends.
  if (lws_send_pipe_choked(wsi)) {
    host->refuse(host->refusals_.slow_readers,
                 "HTTP connections closed after an answer the client did not read");
    return -1;
  }
  if (connection) connection->idle_since = steady_now();
  return lws_http_transaction_completed(wsi) ? -1 : 0;
}

int LwsCallbacks::http(::lws* wsi, lws_callback_reasons reason, void* user, void* in,
                       std::size_t len) {
  switch (reason) {
    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED: {
      LwsHost* host = host_of(wsi);
      host->impl_->connections.add(wsi, host->impl_->accepting_from, steady_now());
      host->impl_->connections.find(wsi)->loopback = host->impl_->accepting_loopback;
      break;
    }
    case LWS_CALLBACK_WSI_DESTROY: {
      LwsHost* host = host_of(wsi);
      ConnectionTable::Entry* c = host->impl_->connections.find(wsi);
      if (!c) break;
      if (c->requests == 0 && !c->upgraded && !c->evicted)
        host->refuse(host->refusals_.incomplete,
                     "HTTP connections closed before a complete request");
      host->answer_bytes_ -= c->answer_bytes;
      host->impl_->connections.remove(wsi);
      break;
    }
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: {
      // Refused with an answer here, before lws switches protocols: an upgrade it accepted for
      // another protocol than ours would be a connection nobody counts or closes.
      LwsHost* host = host_of(wsi);
      ConnectionTable::Entry* connection = host->impl_->connections.find(wsi);
      if (connection) ++connection->requests;  // a request, not an incomplete connection
      auto refuse = [&](std::uint64_t& counter, const char* what, int status, const char* message) {
        host->refuse(counter, what);
        lws_return_http_status(wsi, static_cast<unsigned>(status), message);
        return -1;  // and close: an upgrade is a connection's last request
      };
      // Browsers send the page's Origin on every WebSocket upgrade: refuse pages we do not know.
      if (!origin_allowed(wsi, host->options_.origins)) {
        ++host->refusals_.origins;
        lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN, "Origin not allowed");
        return 1;
      }
      const std::string upgrade = in ? static_cast<const char*>(in) : "";
      const auto path = header(wsi, WSI_TOKEN_GET_URI);
      if (host->options_.ws_protocol.empty() || strcasecmp(upgrade.c_str(), "websocket") != 0 ||
          !path || *path != host->options_.ws_path)
        return refuse(host->refusals_.upgrades, "upgrades to another path or protocol",
                      HTTP_STATUS_NOT_FOUND, "No such WebSocket endpoint");
      const auto protocols = header(wsi, WSI_TOKEN_PROTOCOL);
      const std::string required =
          "Sec-WebSocket-Protocol must offer " + host->options_.ws_protocol;
      if (!protocols || !lists_token(*protocols, host->options_.ws_protocol))
        return refuse(host->refusals_.upgrades, "upgrades without the WebSocket subprotocol",
                      HTTP_STATUS_BAD_REQUEST, required.c_str());
      if (host->clients_.size() >= host->options_.max_clients) {
        const auto victim =
            connection ? host->impl_->connections.viewer_to_evict(connection->peer) : std::nullopt;
        if (!victim)
          return refuse(host->refusals_.viewers_busy, "upgrades over the viewer limit",
                        HTTP_STATUS_SERVICE_UNAVAILABLE, "Too many viewers");
        host->refuse(host->refusals_.viewers_evicted,
                     "viewers closed to let in one from an address holding fewer");
        // At once, so that its place is free when this upgrade completes.
        lws_set_timeout(static_cast<::lws*>(const_cast<void*>(*victim)), PENDING_TIMEOUT_USER_OK,
                        LWS_TO_KILL_SYNC);
      }
      return 0;
    }
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
      // A client that named this protocol in its upgrade: WebSockets are ours only.
      return 1;
    case LWS_CALLBACK_HTTP:
      return answer(host_of(wsi), wsi);
    default:
      break;
  }
  return lws_callback_http_dummy(wsi, reason, user, in, len);
}

// ----------------------------------------------------------------------------- static files

namespace {

// Writes a StaticReply's status and headers; false if they do not fit or cannot be sent.
bool write_reply_head(::lws* wsi, const StaticReply& reply, bool with_length) {
  unsigned char buffer[LWS_PRE + 2048];
  unsigned char* start = buffer + LWS_PRE;
  unsigned char* p = start;
  unsigned char* end = buffer + sizeof buffer - 1;
  const std::uint64_t length = reply.status == 200 ? reply.length : reply.body.size();
  if (lws_add_http_header_status(wsi, static_cast<unsigned>(reply.status), &p, end)) return false;
  if (!reply.content_type.empty() &&
      lws_add_http_header_by_token(
          wsi, WSI_TOKEN_HTTP_CONTENT_TYPE,
          reinterpret_cast<const unsigned char*>(reply.content_type.data()),
          static_cast<int>(reply.content_type.size()), &p, end))
    return false;
  // A 304 has no content; its length would describe the 200 and is best left out.
  if (with_length && lws_add_http_header_content_length(wsi, length, &p, end)) return false;
  for (const auto& [name, value] : reply.headers) {
    const std::string field = name + ":";
    if (lws_add_http_header_by_name(wsi, reinterpret_cast<const unsigned char*>(field.c_str()),
                                    reinterpret_cast<const unsigned char*>(value.data()),
                                    static_cast<int>(value.size()), &p, end))
      return false;
  }
  return lws_finalize_write_http_header(wsi, start, &p, end) == 0;
}

}  // namespace

void LwsCallbacks::stop_streaming(LwsHost* host, FileSession* session) {
  if (!session || !session->streaming) return;
  ::close(session->fd);
  session->streaming = false;
  --host->file_streams_;
}

int LwsCallbacks::files(::lws* wsi, lws_callback_reasons reason, void* user, void* in,
                        std::size_t len) {
  auto* session = static_cast<FileSession*>(user);
  switch (reason) {
    case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
      // A request pipelined behind a file still being sent (lws parses it at once, and would
      // drop the file for it): it cannot be answered in order without holding it, so the
      // connection ends, the file cut short as its Content-Length shows.
      if (session && session->streaming) {
        LwsHost* host = host_of(wsi);
        host->refuse(host->refusals_.slow_readers,
                     "HTTP connections closed after an answer the client did not read");
        return 1;
      }
      break;
    case LWS_CALLBACK_HTTP: {
      LwsHost* host = host_of(wsi);
      ConnectionTable::Entry* connection = host->impl_->connections.find(wsi);
      if (connection) ++connection->requests;
      StaticRequest request;
      request.method = method_of(wsi);
      const lws_token_indexes uri_token =
          request.method == StaticRequest::Method::head ? WSI_TOKEN_HEAD_URI : WSI_TOKEN_GET_URI;
      // Headers too long to be plausible count as absent; a path too long is refused.
      const std::string uri =
          request.method == StaticRequest::Method::other ? "" : header(wsi, uri_token).value_or("");
      const std::string accept_encoding = header(wsi, WSI_TOKEN_HTTP_ACCEPT_ENCODING).value_or("");
      const std::string if_none_match = header(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH).value_or("");
      const std::string if_modified_since =
          header(wsi, WSI_TOKEN_HTTP_IF_MODIFIED_SINCE).value_or("");
      request.uri = uri;
      request.accept_encoding = accept_encoding;
      request.if_none_match = if_none_match;
      request.if_modified_since = if_modified_since;

      StaticReply reply = host->impl_->files->answer(request, unix_now());
      if (reply.refused) ++host->refusals_.static_files;
      if (reply.file && reply.length > 0 &&
          host->file_streams_ >= host->options_.max_file_streams) {
        reply = busy_reply(unix_now());
        ++host->refusals_.file_streams_busy;
      }
      if (!write_reply_head(wsi, reply, reply.status != 304)) return -1;
      if (!reply.body.empty() && request.method != StaticRequest::Method::head) {
        std::string framed = with_headroom(reply.body);
        if (lws_write(wsi, reinterpret_cast<unsigned char*>(framed.data()) + LWS_PRE,
                      reply.body.size(),
                      LWS_WRITE_HTTP_FINAL) != static_cast<int>(reply.body.size()))
          return -1;
      }
      if (request.method == StaticRequest::Method::other)
        return -1;  // no reading a body we refused
      if (reply.file && reply.length > 0) {
        session->fd = reply.file.release();
        session->remaining = reply.length;
        session->streaming = true;
        ++host->file_streams_;
        if (connection) connection->busy = true;
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, host->options_.file_stall_seconds);
        lws_callback_on_writable(wsi);
        return 0;
      }
      if (connection) connection->idle_since = steady_now();
      return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    case LWS_CALLBACK_HTTP_WRITEABLE: {
      if (!session || !session->streaming) break;
      LwsHost* host = host_of(wsi);
      std::vector<unsigned char>& chunk = host->impl_->file_chunk;
      const std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(kFileChunk, session->remaining));
      const ssize_t got = ::read(session->fd, chunk.data() + LWS_PRE, want);
      if (got <= 0) {
        // The file shrank while being sent: the promised length cannot be kept, so the client
        // must see the connection end early rather than a short body taken for whole.
        stop_streaming(host, session);
        return -1;
      }
      session->remaining -= static_cast<std::uint64_t>(got);
      const bool last = session->remaining == 0;
      if (lws_write(wsi, chunk.data() + LWS_PRE, static_cast<std::size_t>(got),
                    last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != got) {
        stop_streaming(host, session);
        return -1;
      }
      if (!last) {
        // Progress: the stall clock starts again.
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, host->options_.file_stall_seconds);
        lws_callback_on_writable(wsi);
        return 0;
      }
      stop_streaming(host, session);
      lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
      if (ConnectionTable::Entry* c = host->impl_->connections.find(wsi)) {
        c->busy = false;
        c->idle_since = steady_now();
      }
      return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
      return 1;  // not a WebSocket protocol
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
    case LWS_CALLBACK_CLOSED_HTTP:
      if (session && session->streaming) {
        LwsHost* host = host_of(wsi);
        ++host->refusals_.file_streams_cut;  // closed mid-file: stalled past its timeout, or gone
        stop_streaming(host, session);
      }
      break;
    default:
      break;
  }
  return lws_callback_http_dummy(wsi, reason, user, in, len);
}

// -------------------------------------------------------------------------------- WebSocket

int LwsCallbacks::ws(::lws* wsi, lws_callback_reasons reason, void* user, void* in,
                     std::size_t len) {
  LwsHost* host = host_of(wsi);
  auto** slot = static_cast<LwsHost::Client**>(user);
  switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
      char uri[256] = {0};
      if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) < 0 ||
          host->options_.ws_path != uri)
        return 1;
      if (host->clients_.size() >= host->options_.max_clients)
        return 1;  // refused: too many viewers
      // Checked (and answered with 403) on the upgrade already; a second line of defence.
      if (!origin_allowed(wsi, host->options_.origins)) return 1;
      return 0;
    }
    case LWS_CALLBACK_ESTABLISHED: {
      if (ConnectionTable::Entry* c = host->impl_->connections.find(wsi)) {
        c->upgraded = true;
        c->upgraded_at = steady_now();
      }
      auto* client = new LwsHost::Client(host->next_client_++, wsi, host->options_);
      *slot = client;
      host->clients_[client->id] = client;
      char origin[256] = {0};
      if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) < 0) origin[0] = 0;
      if (host->handlers_.on_open) host->handlers_.on_open(client->id, origin);
      return 0;
    }
    case LWS_CALLBACK_RECEIVE: {
      LwsHost::Client* client = *slot;
      if (!client) return -1;
      if (!client->too_large) {
        client->incoming.append(static_cast<const char*>(in), len);
        if (client->incoming.size() > host->options_.max_message) {
          client->too_large = true;
          client->incoming.clear();
          client->incoming.shrink_to_fit();
        }
      }
      if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0) {
        const std::string message = std::move(client->incoming);
        const bool too_large = client->too_large;
        client->incoming.clear();
        client->too_large = false;
        const Millis now = steady_now();
        if (!client->bucket.take(now)) {
          ++client->dropped;
          ++host->refusals_.rate_limited;
          if (client->last_notice && now - *client->last_notice < kRateNoticeEvery) return 0;
          client->last_notice = now;
          if (host->handlers_.on_message)
            host->handlers_.on_message(client->id, {}, LwsHost::Inbound::rate_limited);
          return 0;
        }
        if (too_large) ++host->refusals_.too_large;
        if (host->handlers_.on_message)
          host->handlers_.on_message(
              client->id, message, too_large ? LwsHost::Inbound::too_large : LwsHost::Inbound::ok);
      }
      return 0;
    }
    case LWS_CALLBACK_SERVER_WRITEABLE: {
      LwsHost::Client* client = *slot;
      if (!client || client->outgoing.empty()) return 0;
      std::string message = std::move(client->outgoing.front());
      client->outgoing.pop_front();
      const std::size_t n = message.size() - LWS_PRE;
      client->queued_bytes -= queued_cost(n);
      host->queued_bytes_ -= queued_cost(n);
      if (lws_write(wsi, reinterpret_cast<unsigned char*>(message.data()) + LWS_PRE, n,
                    LWS_WRITE_TEXT) < static_cast<int>(n))
        return -1;
      if (!client->outgoing.empty()) lws_callback_on_writable(wsi);
      return 0;
    }
    case LWS_CALLBACK_CLOSED: {
      LwsHost::Client* client = *slot;
      if (!client) return 0;
      *slot = nullptr;
      host->queued_bytes_ -= client->queued_bytes;
      host->clients_.erase(client->id);
      if (host->handlers_.on_close) host->handlers_.on_close(client->id);
      delete client;
      return 0;
    }
    default:
      return 0;
  }
}

void LwsHost::send(ClientId id, const std::string& message) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  Client* client = it->second;
  if (client->closing) return;
  const std::size_t cost = queued_cost(message.size());
  if (client->queued_bytes > 0 && client->queued_bytes + cost > options_.max_queue_bytes)
    return overflow(client);
  // Over the total: the viewers furthest behind go first, this one included.
  while (queued_bytes_ + cost > options_.max_total_queue_bytes) {
    Client* furthest = nullptr;
    for (const auto& [other_id, other] : clients_)
      if (!other->closing && other->queued_bytes > 0 &&
          (!furthest || other->queued_bytes > furthest->queued_bytes))
        furthest = other;
    if (!furthest) break;
    overflow(furthest);
    if (furthest == client) return;
  }
  client->outgoing.push_back(with_headroom(message));
  client->queued_bytes += cost;
  queued_bytes_ += cost;
  lws_callback_on_writable(client->wsi);
}

void LwsHost::overflow(Client* client) {
  refuse(refusals_.queue_overflows, "viewers closed over their send queue budget");
  const std::size_t freed = client->queued_bytes;
  queued_bytes_ -= freed;
  client->queued_bytes = 0;
  std::deque<std::string>().swap(client->outgoing);
  client->closing = true;
  lws_set_timeout(client->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
  if (freed >= kTrimAfterFreeing) ::malloc_trim(0);
}

std::uint64_t LwsHost::dropped(ClientId id) const {
  auto it = clients_.find(id);
  return it == clients_.end() ? 0 : it->second->dropped;
}

std::size_t LwsHost::queued_bytes(ClientId id) const {
  auto it = clients_.find(id);
  return it == clients_.end() ? 0 : it->second->queued_bytes;
}

std::string LwsHost::remote_address(ClientId id) const {
  auto it = clients_.find(id);
  if (it == clients_.end()) return {};
  char name[64] = {0};
  if (!lws_get_peer_simple(it->second->wsi, name, sizeof name)) return {};
  std::string address = name;
  // An IPv4 peer on a dual-stack socket: one address, one spelling.
  if (address.rfind("::ffff:", 0) == 0 && address.find('.') != std::string::npos)
    address.erase(0, 7);
  return address;
}

void LwsHost::broadcast(const std::string& message) {
  std::vector<ClientId> ids;
  for (const auto& [id, client] : clients_) ids.push_back(id);
  for (ClientId id : ids) send(id, message);
}

void LwsHost::close_client(ClientId id) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  lws_set_timeout(it->second->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

// --------------------------------------------------------------------- raw descriptors

int LwsCallbacks::raw(::lws* wsi, lws_callback_reasons reason, void*, void*, std::size_t) {
  auto* handler = static_cast<RawHandler*>(lws_get_opaque_user_data(wsi));
  switch (reason) {
    case LWS_CALLBACK_RAW_RX_FILE:
      if (handler) handler->on_readable();
      return 0;
    case LWS_CALLBACK_RAW_WRITEABLE_FILE:
      if (handler) handler->on_writable();
      return 0;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
      return 1;  // not a WebSocket protocol
    case LWS_CALLBACK_RAW_CLOSE_FILE:
      host_of(wsi)->impl_->paused.erase(wsi);
      lws_set_opaque_user_data(wsi, nullptr);
      if (handler) handler->on_closed();
      return 0;
    default:
      return 0;
  }
}

::lws* LwsHost::adopt(int fd, RawHandler* handler) {
  if (fd >= impl_->descriptor_limit - kAdoptReserve) {
    ::close(fd);
    refuse(refusals_.connections, "streams with descriptors running out");
    return nullptr;
  }
  lws_sock_file_fd_type desc;
  desc.filefd = fd;
  ::lws* wsi = lws_adopt_descriptor_vhost(impl_->vhost, LWS_ADOPT_RAW_FILE_DESC, desc, kRawProtocol,
                                          nullptr);
  if (wsi) lws_set_opaque_user_data(wsi, handler);
  return wsi;
}

void LwsHost::want_write(::lws* raw) {
  if (raw) lws_callback_on_writable(raw);
}

void LwsHost::close_raw(::lws* raw) {
  if (raw) lws_set_timeout(raw, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

void LwsHost::pause_accepting(::lws* raw, Millis delay) {
  if (!raw) return;
  lws_rx_flow_control(raw, 0);
  impl_->paused[raw] = steady_now() + delay;
  refuse(refusals_.accept_paused, "accepts paused: no descriptor left (EMFILE/ENFILE)");
}

}  // namespace vigil::native
