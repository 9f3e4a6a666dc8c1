#include "agent/agent.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <libwebsockets.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>

#include "agent/agent_view.hpp"
#include "agent/commands.hpp"
#include "agent/serf_tags.hpp"
#include "agent/socket_address.hpp"
#include "agent/stream_link.hpp"
#include "agent/trace_endpoint.hpp"
#include "cli/printable.hpp"
#include "crypto/keyring.hpp"
#include "http/query_string.hpp"

namespace vigil::native {

namespace {

constexpr Millis kStatsPeriod{100};      // at most 10 stats messages a second to viewers
constexpr Millis kStreamTimeout{10000};  // memberlist's TCPTimeout
constexpr Millis kGoodbye{1000};         // gossip the leave for this long before exiting
constexpr Millis kRefusalLogPeriod{
    10000};  // streams turned away: one summary line at most this often
constexpr Millis kConflictLogPeriod{10000};  // name conflicts: one line per name at most this often

bool set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

std::string clock_text(Millis t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%8.3fs", static_cast<double>(t.count()) / 1000.0);
  return buf;
}

// Accepts push-pull connections on the agent's TCP port.
class StreamListener : public RawHandler {
 public:
  explicit StreamListener(std::function<void()> on_ready) : on_ready_(std::move(on_ready)) {}
  void on_readable() override { on_ready_(); }

 private:
  std::function<void()> on_ready_;
};

// The agent's monotonic clock in ms, fractions kept: the engine's whole milliseconds are too
// coarse for a trace. Results are drained as soon as the engine makes them, so this is when the
// ack was read, to within the handling of one batch of datagrams.
double precise_now_ms(std::int64_t started_ns) {
  const auto ns = std::chrono::steady_clock::now().time_since_epoch().count() - started_ns;
  return static_cast<double>(ns) / 1e6;
}

// Unix time (ms) at the agent's monotonic time 0; the agent starts its clock right after this.
double unix_ms_at_steady_start() {
  const auto wall = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(wall).count()) /
         1e3;
}

detect::PhiAccrualConfig ack_detector_config(const swim::Config& c) {
  detect::PhiAccrualConfig d;
  d.window = 100;
  d.first_heartbeat_estimate_ms = static_cast<double>(c.probe_interval.count());
  d.min_stddev_ms = static_cast<double>(c.probe_interval.count()) / 4.0;
  return d;
}

}  // namespace

// A profile as a real network node runs it: with memberlist's TCP fallback ping, which the
// simulations leave off.
Result<swim::Config> agent_config(const std::string& profile, const AgentOptions& options) {
  auto config = swim::Config::profile(profile);
  if (!config) return config.error();
  config->tcp_fallback_ping = true;
  if (options.probe_interval) config->probe_interval = *options.probe_interval;
  if (options.probe_timeout) config->probe_timeout = *options.probe_timeout;
  config->compression = options.compression;
  if (auto s = config->validate(); !s) return s.error();
  return config;
}

Result<std::unique_ptr<Agent>> Agent::start(const AgentOptions& options) {
  auto config = agent_config(options.profile, options);
  if (!config) return config.error();
  config->label = options.label;
  std::random_device entropy;
  const Rng rng(entropy());
  auto node = swim::Node::create(*config, options.name, options.bind, rng.fork(1));
  if (!node) return node.error();
  std::unique_ptr<Agent> agent(new Agent(options, std::move(node).value(), rng.fork(2)));
  agent->joined_ = options.joins.empty();
  if (!options.keys.empty()) {
    auto keyring = Keyring::create(options.keys);
    if (!keyring) return keyring.error();
    agent->node_.set_cipher(std::make_shared<Keyring>(std::move(keyring).value()));
  }
  if (auto s = agent->open_sockets(); !s) return s.error();

  LwsHost::Options http;
  http.host = options.http_host;
  http.port = options.http_port;
  http.web_dir = options.web_dir;
  http.dynamic_paths = {"/v1", "/metrics"};
  http.pass_query = true;  // /v1/trace?peer=NAME
  http.max_clients = options.max_clients;
  http.tls_cert = options.tls_cert;
  http.tls_key = options.tls_key;
  // Browsers may open /ws from this agent's own pages and from the origins given; requests
  // without an Origin (programs, not pages) are always allowed.
  http.origins = OriginPolicy();
  for (const auto& o :
       OriginPolicy::own_origins(options.http_host, options.http_port, !options.tls_cert.empty()))
    (void)http.origins.allow(o);
  for (const auto& o : options.allow_origins)
    if (auto s = http.origins.allow(o); !s) return s.error();
  Agent* self = agent.get();
  LwsHost::Handlers handlers;
  handlers.on_http = [self](const HttpRequest& request) { return self->http(request.target); };
  handlers.on_open = [self](LwsHost::ClientId c, const std::string&) { self->on_ws_open(c); };
  handlers.on_message = [self](LwsHost::ClientId c, std::string_view m, LwsHost::Inbound status) {
    self->on_ws_message(c, m, status);
  };
  handlers.on_close = [self](LwsHost::ClientId c) { self->packets_.forget(c); };
  handlers.on_timer = [self] { self->on_timer(); };
  auto host = LwsHost::create(http, handlers);
  if (!host) return host.error();
  agent->http_ = std::move(host).value();

  // The live view's URL (its port, its scheme) is known only now: the node, not started yet,
  // takes it into its metadata, as a Serf tag.
  const std::string view = options.advertise_http.empty()
                               ? advertised_view_url(agent->http_->url(), options.bind)
                               : options.advertise_http;
  auto meta = view_meta(view);
  if (!meta) return meta.error();
  if (auto s = agent->node_.set_meta(std::move(meta).value()); !s) return s.error();

  agent->udp_wsi_ = agent->http_->adopt(agent->udp_fd_, agent.get());
  agent->listener_ = std::make_unique<StreamListener>([self] { self->accept_streams(); });
  agent->tcp_wsi_ = agent->http_->adopt(agent->tcp_fd_, agent->listener_.get());
  if (!agent->udp_wsi_ || !agent->tcp_wsi_) return Error{"cannot watch the agent's sockets"};

  const Millis now = agent->now();
  agent->node_.start(now);
  // The first join attempt is due at once: the first timer tick makes it, once run() serves.
  if (!options.joins.empty()) agent->join_retry_.emplace(options.retry_interval, options.retry_max);
  agent->settle();
  return agent;
}

Agent::Agent(const AgentOptions& options, swim::Node node, Rng rng)
    : options_(options),
      node_(std::move(node)),
      output_(STDOUT_FILENO, cli::printable(node_.name())),
      faults_(rng),
      detectors_(ack_detector_config(node_.config())),
      ack_trace_(unix_ms_at_steady_start()),
      started_ns_(std::chrono::steady_clock::now().time_since_epoch().count()) {}

Agent::~Agent() {
  // lws closes every adopted descriptor as it goes; their handlers must still be alive then.
  http_.reset();
}

Millis Agent::now() const {
  const auto ns = std::chrono::steady_clock::now().time_since_epoch().count() - started_ns_;
  return Millis{ns / 1'000'000};
}

Status Agent::open_sockets() {
  socket_family_ = family_of(options_.bind);
  const SocketAddress sa = to_sockaddr(options_.bind);
  const std::string where = options_.bind.to_string();
  udp_fd_ = ::socket(socket_family_, SOCK_DGRAM, 0);
  tcp_fd_ = ::socket(socket_family_, SOCK_STREAM, 0);
  if (udp_fd_ < 0 || tcp_fd_ < 0)
    return Error{std::string("cannot create sockets: ") + std::strerror(errno)};
  const int one = 1;
  ::setsockopt(tcp_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // A bigger receive buffer rides out bursts (and a paused agent) without dropping.
  const int rcvbuf = 2 * 1024 * 1024;
  ::setsockopt(udp_fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  if (::bind(udp_fd_, sa.get(), sa.length) != 0)
    return Error{"cannot bind UDP " + where + ": " + std::strerror(errno)};
  if (::bind(tcp_fd_, sa.get(), sa.length) != 0 || ::listen(tcp_fd_, 64) != 0)
    return Error{"cannot listen on TCP " + where + ": " + std::strerror(errno)};
  if (!set_nonblocking(udp_fd_) || !set_nonblocking(tcp_fd_))
    return Error{"cannot make sockets non-blocking"};
  return ok_status();
}

int Agent::run(const volatile std::sig_atomic_t& stop, const volatile std::sig_atomic_t& stop_now) {
  while (!stop && !gave_up_ && fatal_.empty() && http_->service_once()) {
  }
  if (!fatal_.empty()) {
    // No goodbye: a leave in our name would speak for the member that holds it.
    for (auto& [link, owned] : streams_) link->abort();
    std::fprintf(stderr, "vigil agent: %s\n", fatal_.c_str());
    return 1;
  }
  if (gave_up_) {
    // Never a member, so there is no one to say goodbye to (Serf exits 1 the same way).
    const int attempts = join_retry_->attempts();
    std::fprintf(stderr, "vigil agent: could not join the cluster in %d attempt%s\n", attempts,
                 attempts == 1 ? "" : "s");
    for (auto& [link, owned] : streams_) link->abort();
    return 1;
  }
  if (!node_.has_left()) {
    leaving_ = true;
    node_.leave(now());
    settle();
    const Millis until = now() + kGoodbye;
    http_->wake_after(kGoodbye);
    while (!stop_now && now() < until && http_->service_once()) {
    }
  }
  for (auto& [link, owned] : streams_) link->abort();
  return 0;
}

// ------------------------------------------------------------------------------------ UDP

void Agent::on_readable() {
  read_datagrams();
  settle();
}

void Agent::read_datagrams() {
  // Bounded per call so a flood cannot starve timers and viewers.
  for (int i = 0; i < 512; ++i) {
    std::uint8_t buf[65536];
    sockaddr_storage from{};
    socklen_t len = sizeof from;
    const ssize_t n =
        ::recvfrom(udp_fd_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len);
    if (n < 0) break;
    auto sender = from_sockaddr(reinterpret_cast<const sockaddr*>(&from), len);
    if (!sender) continue;
    receive_datagram(*sender, wire::Bytes(buf, buf + n));
  }
}

void Agent::receive_datagram(const swim::Address& from, wire::Bytes bytes) {
  const auto fate = faults_.incoming();
  if (packets_.active()) log_datagram(false, from, bytes, !fate, fate.value_or(Millis{0}));
  if (!fate) return;
  if (*fate > Millis{0}) {
    delayed_.push(now() + *fate, Delayed{false, from, std::move(bytes)});
    return;
  }
  node_.handle_datagram(now(), from, bytes);
}

void Agent::send_datagram(const swim::Address& to, const wire::Bytes& bytes) {
  const SocketAddress sa = to_sockaddr(to, socket_family_);
  // UDP may drop; a full socket buffer is just one more loss the protocol tolerates.
  ::sendto(udp_fd_, bytes.data(), bytes.size(), 0, sa.get(), sa.length);
}

// --------------------------------------------------------------------------- the engine

void Agent::drain() {
  swim::Outbox& box = node_.outbox();
  // Conflicts first: one that ends the agent must stop anything else from going out.
  for (const auto& e : box.events)
    if (e.kind == swim::EventKind::conflict) on_conflict(e);
  if (!fatal_.empty()) {
    box.clear();
    return;
  }
  for (auto& d : box.datagrams) {
    const auto fate = faults_.outgoing(d.to);
    if (packets_.active()) log_datagram(true, d.to, d.bytes, !fate, fate.value_or(Millis{0}));
    if (!fate) continue;
    if (*fate > Millis{0})
      delayed_.push(now() + *fate, Delayed{true, d.to, std::move(d.bytes)});
    else
      send_datagram(d.to, d.bytes);
  }
  for (const auto& s : box.streams) start_stream(s);
  // After the streams: a connection refused at once reports its join's end right away.
  for (const auto& r : box.join_results) on_join_result(r);
  // Sent once by the engine: later refusals are only counted, in vigil_members_refused_total.
  for (const auto& n : box.notices)
    if (n.kind == swim::Notice::Kind::member_table_full)
      std::fprintf(stderr,
                   "[%s] %s member table full: %zu members (max_members); new names are refused "
                   "from now on and counted in vigil_members_refused_total (the first: %s)\n",
                   cli::printable(node_.name()).c_str(), clock_text(n.at).c_str(), n.limit,
                   cli::printable(n.member).c_str());
  for (const auto& r : box.probe_results) {
    probe_outcomes_.add(r);
    if (r.acked) detectors_.ack(r.member, r.at, [this] { return expected_ack_gap(); });
    if (r.acked) ack_trace_.record(r.member, precise_now_ms(started_ns_));
  }
  for (const auto& e : box.events) {
    if (!options_.quiet && e.kind != swim::EventKind::conflict) {
      // Names are the peers' bytes: escaped, or a name could hold a whole forged line.
      const std::string by = e.by.empty() ? "" : " (by " + cli::printable(e.by) + ")";
      say_at(e.at, std::string(swim::to_string(e.kind)) + " " + cli::printable(e.member) + " #" +
                       std::to_string(e.incarnation) + by);
    }
    if (e.kind == swim::EventKind::removed) {
      detectors_.forget(e.member);
      probe_outcomes_.forget(e.member);
      conflict_log_.erase(e.member);
    }
    if (http_) http_->broadcast(cli::json_text(event_json(e)));
  }
  if (http_)
    for (const auto& u : box.user_messages) http_->broadcast(cli::json_text(user_message_json(u)));
  box.clear();
}

Millis Agent::expected_ack_gap() const {
  std::size_t peers = 0;
  for (const swim::Member* m : node_.members())
    if (m->name != node_.name() && m->state != swim::MemberState::dead &&
        m->state != swim::MemberState::left)
      ++peers;
  return node_.config().probe_interval * static_cast<long long>(std::max<std::size_t>(1, peers));
}

void Agent::settle() {
  drain();
  if (!http_) return;
  const Millis t = now();
  Millis next = t + Millis{1000};
  if (!paused_)
    next = std::min(next, node_.next_deadline());
  else
    next = std::min(next, faults_.paused_until());
  if (!delayed_.empty()) next = std::min(next, delayed_.next_time());
  if (http_->clients() > 0) next = std::min(next, next_stats_);
  for (const auto& [link, owned] : streams_) next = std::min(next, link->deadline());
  if (join_retry_)
    if (auto at = join_retry_->next_at()) next = std::min(next, *at);
  // An absolute time on the agent's own clock: unchanged deadlines re-arm nothing.
  http_->wake_at(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(started_ns_)) +
                 next);
}

void Agent::set_paused(bool paused) {
  if (paused == paused_) return;
  paused_ = paused;
  // Like a stopped process: nothing is read; the kernel keeps what arrives until we resume.
  lws_rx_flow_control(udp_wsi_, paused ? 0 : 1);
  lws_rx_flow_control(tcp_wsi_, paused ? 0 : 1);
  for (const auto& [link, owned] : streams_)
    if (link->wsi()) lws_rx_flow_control(link->wsi(), paused ? 0 : 1);
}

void Agent::on_timer() {
  Millis t = now();
  const bool resuming = paused_;
  set_paused(faults_.paused(t));
  if (!paused_) {
    // A process the scheduler kept waiting can find an ack in its socket next to the probe
    // deadline that passed meanwhile. Reading the socket before the timers keeps its own
    // slowness from counting as the silence of others (on a loaded machine this was how
    // suspicion storms started). The injected pause keeps the simulator's model of a process
    // stopped outright: its expired timers fire before it reads what queued up.
    if (!resuming) read_datagrams();
    while (!delayed_.empty() && delayed_.next_time() <= t) {
      auto d = delayed_.pop().event;
      if (d.outgoing)
        send_datagram(d.peer, d.bytes);
      else
        node_.handle_datagram(t, d.peer, d.bytes);
    }
    node_.handle_tick(t);
    if (join_retry_ && join_retry_->due(t)) attempt_join(t);
  }
  reap_streams();
  log_stream_refusals(t);
  log_auth_reports(t);
  if (http_->clients() > 0 && t >= next_stats_) {
    flush_packets(t);
    broadcast_stats();
    next_stats_ = t + kStatsPeriod;
  }
  settle();
}

// `text` holds peers' words escaped already (cli::printable), so it is not escaped again here.
void Agent::say_at(Millis t, const std::string& text) {
  output_.write("[" + cli::printable(node_.name()) + "] " + clock_text(t) + " " + text + "\n");
}

// ---------------------------------------------------------------------------- joining

void Agent::attempt_join(Millis now) {
  // Someone may have found us first (a seed that knew our address): then we are a member already.
  std::size_t peers = 0;
  for (const swim::Member* m : node_.members())
    if (m->name != node_.name() && m->state == swim::MemberState::alive) ++peers;
  if (peers > 0) {
    say_at(now, "join: already a member (" + std::to_string(peers) +
                    " other member(s) known), no more attempts");
    join_retry_.reset();
    return;
  }
  join_retry_->start();
  join_in_flight_ = true;
  unresolved_.clear();
  // Resolved again on every attempt: a seed's name may not resolve yet, or may move. The
  // resolver blocks this loop meanwhile (getaddrinfo has no deadline of ours); it runs only while
  // the agent knows no other live member.
  std::vector<std::vector<swim::Address>> by_seed;
  for (const auto& seed : options_.joins) {
    auto found = resolve(seed.host, static_cast<std::uint16_t>(seed.port), socket_family_);
    if (!found) unresolved_.push_back({seed.to_string(), found.error().message});
    by_seed.push_back(found ? std::move(found).value() : std::vector<swim::Address>{});
  }
  const JoinPlanner::Pick pick = join_planner_.pick(by_seed);
  join_not_asked_ = pick.deferred();
  // With nothing to ask, the engine reports the failed join at once.
  node_.join(now, pick.ask);
}

void Agent::on_join_result(const swim::JoinResult& result) {
  if (!join_retry_ || !join_in_flight_) return;
  join_in_flight_ = false;
  const JoinRetry::Next next = join_retry_->finish(result.at, result.ok());
  say_at(result.at, join_log_line(join_retry_->attempts(), *join_retry_, result, unresolved_, next,
                                  join_not_asked_));
  if (next == JoinRetry::Next::joined) join_retry_.reset();
  if (next == JoinRetry::Next::give_up) gave_up_ = true;
}

// ---------------------------------------------------------------------------- streams

void Agent::accept_streams() {
  for (;;) {
    sockaddr_storage from{};
    socklen_t from_len = sizeof from;
    const int fd = ::accept(tcp_fd_, reinterpret_cast<sockaddr*>(&from), &from_len);
    if (fd < 0) {
      // Out of descriptors the listener stays readable: retry in a second instead of spinning.
      if (errno == EMFILE || errno == ENFILE) http_->pause_accepting(tcp_wsi_, Millis{1000});
      return;
    }
    if (incoming_streams() >= StreamLimits::kMaxIncoming) {
      ::close(fd);
      ++stream_stats_.refused;
      continue;
    }
    if (!set_nonblocking(fd)) {
      ::close(fd);
      continue;
    }
    auto link = std::make_unique<StreamLink>(*this, StreamLink::Role::responder, fd, 0,
                                             wire::Bytes{}, now() + kStreamTimeout);
    StreamLink* raw = link.get();
    if (auto peer = from_sockaddr(reinterpret_cast<const sockaddr*>(&from), from_len))
      raw->set_peer(*peer);
    raw->attach(http_->adopt(fd, raw));
    if (raw->wsi()) streams_[raw] = std::move(link);
  }
}

void Agent::start_stream(const swim::StreamRequest& request) {
  const SocketAddress sa = to_sockaddr(request.to);
  const int fd = ::socket(sa.family(), SOCK_STREAM, 0);
  const bool ok = fd >= 0 && set_nonblocking(fd) &&
                  (::connect(fd, sa.get(), sa.length) == 0 || errno == EINPROGRESS);
  if (!ok) {
    const std::string reason = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    node_.handle_stream_failure(now(), request.id, reason);
    return;
  }
  auto framed = node_.frame_stream(request.bytes, wire::StreamPart::request);
  if (!framed) {
    ::close(fd);
    node_.handle_stream_failure(now(), request.id);
    return;
  }
  wire::Bytes bytes = std::move(framed).value();
  const std::size_t raw_size = bytes.size();
  auto link = std::make_unique<StreamLink>(*this, StreamLink::Role::initiator, fd, request.id,
                                           std::move(bytes), now() + kStreamTimeout);
  StreamLink* raw = link.get();
  raw->set_peer(request.to);
  log_stream(true, request.to, request.bytes, raw_size);
  if (request.join) raw->mark_join();
  raw->attach(http_->adopt(fd, raw));
  if (!raw->wsi()) {
    node_.handle_stream_failure(now(), request.id);
    return;
  }
  streams_[raw] = std::move(link);
  http_->want_write(raw->wsi());
}

void Agent::reap_streams() {
  const Millis t = now();
  for (auto it = streams_.begin(); it != streams_.end();) {
    StreamLink* link = it->first;
    if (link->closed()) {
      it = streams_.erase(it);
      continue;
    }
    if (t >= link->deadline()) link->time_out();
    ++it;
  }
}

std::size_t Agent::incoming_streams() const {
  std::size_t n = 0;
  for (const auto& [link, owned] : streams_)
    if (link->role() == StreamLink::Role::responder && !link->closed()) ++n;
  return n;
}

void Agent::log_stream_refusals(Millis t) {
  if (t < next_stream_log_ || stream_stats_ == stream_logged_) return;
  const StreamStats& s = stream_stats_;
  const StreamStats& was = stream_logged_;
  std::fprintf(
      stderr,
      "[%s] %s streams turned away since the last such line: %llu refused at the cap of %zu open, "
      "%llu over %zu MiB, %llu over the %zu MiB total, %llu timed out, %llu junk\n",
      cli::printable(node_.name()).c_str(), clock_text(t).c_str(),
      static_cast<unsigned long long>(s.refused - was.refused), StreamLimits::kMaxIncoming,
      static_cast<unsigned long long>(s.too_large - was.too_large),
      StreamLimits::kMaxBytesPerStream >> 20,
      static_cast<unsigned long long>(s.over_budget - was.over_budget),
      StreamLimits::kMaxBytesBuffered >> 20,
      static_cast<unsigned long long>(s.timed_out - was.timed_out),
      static_cast<unsigned long long>(s.junk - was.junk));
  stream_logged_ = stream_stats_;
  next_stream_log_ = t + kRefusalLogPeriod;
}

void Agent::on_conflict(const swim::Event& e) {
  const Millis t = now();
  const bool live =
      e.claimed_state == swim::MemberState::alive || e.claimed_state == swim::MemberState::suspect;
  if (e.member == node_.name() && !joined_ && live && fatal_.empty())
    fatal_ = "the name '" + cli::printable(e.member) + "' is already used by a live member at " +
             e.claimed.to_string() + "; choose another --name";
  ConflictLog& log = conflict_log_[e.member];
  if (t < log.quiet_until) {
    ++log.unlogged;
    return;
  }
  log.quiet_until = t + kConflictLogPeriod;
  const std::uint64_t unlogged = std::exchange(log.unlogged, 0);
  const swim::Member* held = node_.member(e.member);
  const std::string more =
      unlogged ? " (" + std::to_string(unlogged) + " more since the last line)" : "";
  std::fprintf(
      stderr, "[%s] %s conflicting address for %s: held at %s (%s), claimed from %s (%s)%s\n",
      cli::printable(node_.name()).c_str(), clock_text(t).c_str(), cli::printable(e.member).c_str(),
      e.address.to_string().c_str(), held ? std::string(swim::to_string(held->state)).c_str() : "?",
      e.claimed.to_string().c_str(), std::string(swim::to_string(e.claimed_state)).c_str(),
      more.c_str());
}

// --------------------------------------------------------------------------- live view

std::optional<swim::Address> Agent::address_of(const std::string& member) const {
  const swim::Member* m = node_.member(member);
  if (!m) return std::nullopt;
  return m->address;
}

AgentViewContext Agent::view_at(Millis at) const {
  AgentViewContext view{node_,
                        detectors_,
                        faults_,
                        options_.profile,
                        at,
                        paused_,
                        http_ ? http_->refusals() : LwsHost::Refusals{},
                        http_ ? http_->file_streams() : 0};
  if (http_) view.http_load = http_->load();
  view.streams = stream_stats_;
  view.streams.open_incoming = incoming_streams();
  view.streams.buffered = stream_buffered_;
  view.auth = auth_.counters();
  view.auth_addresses = auth_.addresses();
  view.probe_outcomes = &probe_outcomes_;
  view.packet_log = packets_.counters();
  view.packet_log_viewers = packets_.viewers();
  view.ack_trace = ack_trace_.counters();
  view.output = output_.counters();
  view.join = join_planner_.counters();
  return view;
}

HttpResponse Agent::http(const std::string& target) {
  const std::string uri(target_path(target));
  if (uri == "/v1/trace") return trace_response(ack_trace_, target, node_);
  const AgentViewContext view = view_at(now());
  if (uri == "/v1/members")
    return {200, "application/json", cli::json_text(members_json(view, false, true))};
  if (uri == "/v1/self") return {200, "application/json", cli::json_text(self_json(view))};
  if (uri == "/metrics") return {200, "text/plain; version=0.0.4", metrics_text(view)};
  // A page served by this agent connects back to it: an empty address means the page's origin.
  if (uri == "/v1/demo")
    return {200, "application/json",
            cli::json_text(nlohmann::json{{"agents", {{{"name", node_.name()}, {"http", ""}}}}})};
  return {404, "application/json",
          cli::json_text(nlohmann::json{{"error", "not found"}, {"path", uri}})};
}

std::string Agent::peer_name(const swim::Address& address) const {
  for (const swim::Member* m : node_.members())
    if (m->address == address) return m->name;
  return address.to_string();
}

void Agent::log_datagram(bool outgoing, const swim::Address& peer,
                         std::span<const std::uint8_t> bytes, bool dropped, Millis delay) {
  const PacketSighting s{now(), outgoing, false, dropped, delay, bytes.size(), peer};
  packets_.record(
      s.at, [&] { return packet_json(s, summarize_wire_datagram(node_, bytes), peer_name(peer)); });
}

void Agent::log_stream(bool outgoing, const swim::Address& peer,
                       std::span<const std::uint8_t> plaintext, std::size_t wire_size) {
  if (!packets_.active()) return;
  const PacketSighting s{now(), outgoing, true, false, Millis{0}, wire_size, peer};
  packets_.record(
      s.at, [&] { return packet_json(s, summarize_stream_message(plaintext), peer_name(peer)); });
}

void Agent::flush_packets(Millis at) {
  if (!packets_.active()) return;
  for (auto& [client, batch] :
       packets_.flush(at, [this](LwsHost::ClientId c) { return http_->queued_bytes(c); }))
    http_->send(client, batch);
}

void Agent::log_auth_reports(Millis at) {
  for (const std::string& line : auth_.reports(at))
    std::fprintf(stderr, "vigil agent: %s\n", cli::printable(line).c_str());
}

void Agent::on_ws_open(LwsHost::ClientId client) {
  const AgentViewContext view = view_at(now());
  http_->send(client, cli::json_text(snapshot_json(view)));
  settle();  // viewers want stats: make sure the timer runs
}

void Agent::broadcast_stats() {
  const AgentViewContext view = view_at(now());
  http_->broadcast(cli::json_text(stats_json(view)));
}

void Agent::on_ws_message(LwsHost::ClientId client, std::string_view text,
                          LwsHost::Inbound status) {
  auto reply_error = [&](const std::string& type, const std::string& code,
                         const std::string& message) {
    nlohmann::json j = {{"type", "error"}, {"code", code}, {"message", message}};
    if (!type.empty()) j["command"] = type;
    http_->send(client, cli::json_text(j));
  };
  if (status == LwsHost::Inbound::too_large)
    return reply_error("", "too-large", "messages are limited to 64 KiB");
  if (status == LwsHost::Inbound::rate_limited) {
    const auto& o = http_->options();
    nlohmann::json j = {
        {"type", "error"},
        {"code", "rate-limited"},
        {"message", "more than " + std::to_string(static_cast<int>(o.message_rate)) +
                        " messages a second (bursts of " +
                        std::to_string(static_cast<int>(o.message_burst)) +
                        "): dropped; this notice comes at most once a second"},
        {"dropped", http_->dropped(client)}};
    return http_->send(client, j.dump());
  }
  // Wrong tokens are limited per address, not per connection: reconnecting must not buy guesses.
  const Millis t = now();
  const std::string peer = http_->remote_address(client);
  ParsedCommand parsed = parse_command(text, options_.token, auth_.admits(peer, t));
  if (auto* e = std::get_if<CommandError>(&parsed.result)) {
    if (e->code == "unauthorized") auth_.failed(peer, t);
    if (e->code == "auth-rate-limited") auth_.refused(peer, t);
    log_auth_reports(t);
    return reply_error(parsed.type, e->code, e->message);
  }
  const Command& command = std::get<Command>(parsed.result);
  std::string failure;
  std::visit(
      [&](const auto& c) {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, command::Snapshot>) {
          const AgentViewContext view = view_at(t);
          http_->send(client, cli::json_text(snapshot_json(view)));
        } else if constexpr (std::is_same_v<T, command::Packets>) {
          packets_.subscribe(client, c.on);
        } else if constexpr (std::is_same_v<T, command::Inject>) {
          if (auto s = faults_.configure(c.faults); !s) failure = s.error().message;
        } else if constexpr (std::is_same_v<T, command::Pause>) {
          faults_.pause_until(t + c.duration);
          set_paused(true);
        } else if constexpr (std::is_same_v<T, command::Block>) {
          auto address = address_of(c.peer);
          if (!address) {
            failure = "no member named '" + c.peer + "'";
          } else {
            faults_.block(*address);
            blocked_names_[c.peer] = *address;
          }
        } else if constexpr (std::is_same_v<T, command::Unblock>) {
          // By the address it was blocked at: a peer blocked long enough to be declared dead
          // and forgotten must still be unblockable by name.
          auto address = address_of(c.peer);
          auto remembered = blocked_names_.find(c.peer);
          if (!address && remembered == blocked_names_.end())
            failure = "no member named '" + c.peer + "'";
          if (address) faults_.unblock(*address);
          if (remembered != blocked_names_.end()) {
            faults_.unblock(remembered->second);
            blocked_names_.erase(remembered);
          }
        } else if constexpr (std::is_same_v<T, command::Leave>) {
          node_.leave(t);
        } else if constexpr (std::is_same_v<T, command::SetProfile>) {
          auto config = agent_config(c.profile, options_);
          if (!config)
            failure = config.error().message;
          else if (auto s = node_.reconfigure(*config); !s)
            failure = s.error().message;
          else
            options_.profile = c.profile;
        }
      },
      command);
  if (!failure.empty()) return reply_error(parsed.type, "invalid", failure);
  if (parsed.type == "packets") {
    const auto* on = std::get_if<command::Packets>(&command);
    http_->send(client, nlohmann::json{{"type", "ok"},
                                       {"command", parsed.type},
                                       {"on", on && on->on},
                                       {"max_per_s", PacketLogLimits::kPacketsPerSecond}}
                            .dump());
  } else if (parsed.type != "snapshot") {
    http_->send(client, nlohmann::json{{"type", "ok"}, {"command", parsed.type}}.dump());
  }
  settle();
}

}  // namespace vigil::native
