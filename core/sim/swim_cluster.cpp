#include <vigil/sim/swim_cluster.hpp>

#include <algorithm>
#include <cmath>

namespace vigil::sim {

namespace {
constexpr std::uint16_t kPort = 7946;
// A push-pull to an unreachable peer fails after this long (a TCP connect timeout).
constexpr Millis kStreamTimeout{2000};
}  // namespace

Status ClusterOptions::validate() const {
  if (nodes < 1 || nodes > 100000) return Error{"cluster size must be between 1 and 100000 nodes"};
  if (started > nodes) return Error{"more hosts started than the cluster holds"};
  if (join_seeds < 1 || join_seeds > nodes)
    return Error{"join seeds must be between 1 and the cluster size"};
  if (auto s = config.validate(); !s) return s;
  return link.validate();
}

swim::Address SwimCluster::address_of(std::size_t i) {
  return swim::Address::from_v4(0x0A000000u | static_cast<std::uint32_t>(i), kPort);
}

std::optional<std::size_t> SwimCluster::host_of(const std::string& name) const {
  // Names are "node-<i>".
  if (name.rfind("node-", 0) != 0) return std::nullopt;
  std::size_t i = 0;
  for (std::size_t p = 5; p < name.size(); ++p) {
    if (name[p] < '0' || name[p] > '9') return std::nullopt;
    i = i * 10 + static_cast<std::size_t>(name[p] - '0');
    if (i >= hosts_.size()) return std::nullopt;
  }
  return i;
}

Result<SwimCluster> SwimCluster::create(const ClusterOptions& options) {
  if (auto s = options.validate(); !s) return s.error();
  return SwimCluster(options);
}

SwimCluster::SwimCluster(const ClusterOptions& options)
    : options_(options),
      network_(options.nodes, options.link),
      rng_(Rng(options.seed).fork(0xC1u)) {
  hosts_.resize(options.nodes);
  for (std::size_t i = 0; i < hosts_.size(); ++i) hosts_[i].name = "node-" + std::to_string(i);
  const std::size_t started = options.started == 0 ? hosts_.size() : options.started;
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    if (i < started) {
      boot(i, 1);
    } else {
      hosts_[i].node.emplace(make_node(i, 1));  // counted and viewed as a node that knows no one
      hosts_[i].up = false;
    }
  }
}

void SwimCluster::start(std::size_t i) {
  if (hosts_[i].booted) return;
  boot(i, 1);
}

swim::Node SwimCluster::make_node(std::size_t i, swim::Incarnation incarnation) {
  const Rng node_rng =
      Rng(options_.seed).fork(static_cast<std::uint32_t>(i) * 2654435761u + incarnation);
  return swim::Node::create(options_.config, hosts_[i].name, address_of(i), node_rng, incarnation)
      .value();
}

void SwimCluster::boot(std::size_t i, swim::Incarnation incarnation) {
  Host& h = hosts_[i];
  h.node.emplace(make_node(i, incarnation));
  h.up = true;
  h.booted = true;
  h.backlog.clear();
  h.scheduled_wake = Millis::max();
  if (options_.static_membership) {
    h.node->reserve(hosts_.size());
    for (std::size_t j = 0; j < hosts_.size(); ++j)
      if (j != i) h.node->add_member(now_, hosts_[j].name, address_of(j));
  }
  h.node->start(now_);
  if (!options_.static_membership && i != 0) {
    std::vector<swim::Address> seeds;
    for (std::size_t s = 0; s < options_.join_seeds && s < hosts_.size(); ++s)
      if (s != i) seeds.push_back(address_of(s));
    h.node->join(now_, seeds);
  }
  drain(i);
  arm(i);
}

void SwimCluster::run_until(Millis t) {
  while (!queue_.empty() && queue_.next_time() <= t) {
    auto entry = queue_.pop();
    now_ = entry.at;
    process(entry.event);
  }
  if (t > now_) now_ = t;
}

bool SwimCluster::step() {
  if (queue_.empty()) return false;
  auto entry = queue_.pop();
  now_ = entry.at;
  process(entry.event);
  return true;
}

void SwimCluster::trace(std::size_t from, std::size_t to, Millis delay, PacketTrace::Fate fate,
                        bool stream, std::span<const std::uint8_t> bytes) {
  if (!packet_tap_) return;
  const bool arrives = fate == PacketTrace::Fate::delivered;
  packet_tap_(PacketTrace{from, to, now_, arrives ? now_ + delay : now_, fate, stream, bytes});
}

void SwimCluster::process(Item& item) {
  std::visit(
      [&](auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, Deliver>) {
          Host& h = hosts_[e.to];
          if (!h.up) return;
          if (h.slow > Millis{0} && !e.delayed) {
            // A starved process reads its socket late.
            e.delayed = true;
            queue_.push(now_ + h.slow, std::move(e));
            return;
          }
          if (h.paused_until > now_) {
            h.backlog.emplace_back(e.from, std::move(e.bytes));
            return;
          }
          deliver(e.to, e.from, e.bytes);
        } else if constexpr (std::is_same_v<T, Wake>) {
          Host& h = hosts_[e.host];
          if (!running(e.host) || h.scheduled_wake != now_) return;
          h.scheduled_wake = Millis::max();
          h.node->handle_tick(now_);
          drain(e.host);
          arm(e.host);
        } else if constexpr (std::is_same_v<T, Resume>) {
          Host& h = hosts_[e.host];
          if (!h.up || e.generation != h.pause_generation) return;
          auto backlog = std::move(h.backlog);
          h.backlog.clear();
          // Timers that expired while stopped fire first, as in a process that wakes up.
          h.node->handle_tick(now_);
          drain(e.host);
          for (auto& [from, bytes] : backlog) {
            h.node->handle_datagram(now_, address_of(from), bytes);
            drain(e.host);
          }
          h.scheduled_wake = Millis::max();
          arm(e.host);
        } else if constexpr (std::is_same_v<T, StreamArrive>) {
          Host& h = hosts_[e.to];
          if (!running(e.to) || !network_.connected(e.to, e.from)) {
            queue_.push(now_ + kStreamTimeout, StreamFail{e.from, e.id});
            return;
          }
          auto reply = h.node->handle_stream(now_, address_of(e.from), e.bytes);
          drain(e.to);
          arm(e.to);
          if (!reply) {
            queue_.push(now_, StreamFail{e.from, e.id});
            return;
          }
          const Millis back = Millis{std::llround(network_.default_link().delay.mean_ms)};
          trace(e.to, e.from, back, PacketTrace::Fate::delivered, true, *reply);
          queue_.push(now_ + back, StreamReply{e.from, e.id, std::move(*reply)});
        } else if constexpr (std::is_same_v<T, StreamReply>) {
          if (!running(e.to)) return;
          hosts_[e.to].node->handle_stream_reply(now_, e.id, e.bytes);
          drain(e.to);
          arm(e.to);
        } else if constexpr (std::is_same_v<T, StreamFail>) {
          if (!running(e.to)) return;
          hosts_[e.to].node->handle_stream_failure(now_, e.id);
          drain(e.to);
          arm(e.to);
        }
      },
      item);
}

void SwimCluster::deliver(std::size_t to, std::size_t from, const wire::Bytes& bytes) {
  hosts_[to].node->handle_datagram(now_, address_of(from), bytes);
  drain(to);
  arm(to);
}

void SwimCluster::drain(std::size_t i) {
  swim::Outbox& box = hosts_[i].node->outbox();
  for (auto& d : box.datagrams) {
    const std::uint32_t host = d.to.v4() & 0x00FFFFFFu;
    if (!d.to.is_v4() || (d.to.v4() >> 24) != 10 || d.to.port != kPort || host >= hosts_.size()) {
      ++dropped_;
      trace(i, host, Millis{0}, PacketTrace::Fate::unroutable, false, d.bytes);
      continue;
    }
    auto delay = network_.transmit(i, host, rng_);
    if (!delay) {
      ++dropped_;
      const bool cut = !network_.connected(i, host);
      trace(i, host, Millis{0}, cut ? PacketTrace::Fate::blocked : PacketTrace::Fate::lost, false,
            d.bytes);
      continue;
    }
    trace(i, host, *delay, PacketTrace::Fate::delivered, false, d.bytes);
    queue_.push(now_ + *delay, Deliver{host, i, std::move(d.bytes)});
  }
  for (auto& s : box.streams) {
    const std::uint32_t host = s.to.v4() & 0x00FFFFFFu;
    if (!s.to.is_v4() || (s.to.v4() >> 24) != 10 || host >= hosts_.size() ||
        !network_.connected(i, host)) {
      const bool routable = s.to.is_v4() && (s.to.v4() >> 24) == 10 && host < hosts_.size();
      trace(i, host, Millis{0},
            routable ? PacketTrace::Fate::blocked : PacketTrace::Fate::unroutable, true, s.bytes);
      queue_.push(now_ + kStreamTimeout, StreamFail{i, s.id});
      continue;
    }
    // A stream is reliable: loss costs retransmissions, not the message; model just the delay.
    const Millis delay = Millis{std::llround(network_.default_link().delay.mean_ms)};
    trace(i, host, delay, PacketTrace::Fate::delivered, true, s.bytes);
    queue_.push(now_ + delay, StreamArrive{host, i, s.id, std::move(s.bytes)});
  }
  for (auto& e : box.events) {
    ClusterEvent ce{i, std::move(e)};
    if (sink_) sink_(ce);
    if (options_.event_log_capacity > 0) {
      if (log_.size() >= options_.event_log_capacity) log_.pop_front();
      log_.push_back(std::move(ce));
    }
  }
  box.clear();
}

void SwimCluster::arm(std::size_t i) {
  Host& h = hosts_[i];
  if (!running(i)) return;
  const Millis next = h.node->next_deadline();
  if (next == Millis::max() || next >= h.scheduled_wake) return;
  h.scheduled_wake = std::max(next, now_);
  queue_.push(h.scheduled_wake, Wake{i});
}

void SwimCluster::kill(std::size_t i) {
  Host& h = hosts_[i];
  if (!h.up) return;
  h.up = false;
  h.backlog.clear();
  h.scheduled_wake = Millis::max();
}

void SwimCluster::revive(std::size_t i) {
  Host& h = hosts_[i];
  if (h.up || !h.booted) return;
  // A restarted process speaks with a higher incarnation than it last had, so its alive
  // message beats the death others recorded.
  const swim::Incarnation next = swim::next_incarnation(h.node->incarnation());
  swim::add(h.retired, h.node->counters());
  h.paused_until = Millis{0};
  h.slow = Millis{0};
  boot(i, next);
}

void SwimCluster::pause(std::size_t i, Millis duration) {
  Host& h = hosts_[i];
  if (!h.up || duration <= Millis{0}) return;
  h.paused_until = std::max(h.paused_until, now_ + duration);
  h.scheduled_wake = Millis::max();
  queue_.push(h.paused_until, Resume{i, ++h.pause_generation});
}

void SwimCluster::set_slow(std::size_t i, Millis processing_delay) {
  hosts_[i].slow = std::max(Millis{0}, processing_delay);
}

void SwimCluster::inject(std::size_t to, const swim::Address& from,
                         std::span<const std::uint8_t> bytes) {
  if (to >= hosts_.size() || !running(to)) return;
  hosts_[to].node->handle_datagram(now_, from, bytes);
  drain(to);
  arm(to);
}

void SwimCluster::leave(std::size_t i) {
  if (!running(i)) return;
  hosts_[i].node->leave(now_);
  drain(i);
  arm(i);
}

Status SwimCluster::reconfigure(const swim::Config& config) {
  if (auto s = config.validate(); !s) return s;
  options_.config = config;
  for (auto& h : hosts_) h.node->reconfigure(config);
  return ok_status();
}

const swim::Member* SwimCluster::view(std::size_t observer, std::size_t observed) const {
  return hosts_[observer].node->member(hosts_[observed].name);
}

swim::Counters SwimCluster::totals() const {
  swim::Counters sum;
  for (const auto& h : hosts_) {
    swim::add(sum, h.retired);
    swim::add(sum, h.node->counters());
  }
  return sum;
}

}  // namespace vigil::sim
