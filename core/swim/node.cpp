#include <vigil/swim/node.hpp>

#include <algorithm>
#include <cmath>

#include <vigil/wire/codec.hpp>

namespace vigil::swim {

namespace {

constexpr std::size_t kCompoundHeader = 2;  // type byte + part count
constexpr std::size_t kCompoundPart = 2;    // u16 length per part
constexpr std::size_t kMaxCompoundParts = 255;
// Packing news by its compressed size (Node::news_budget): the expected ratio is followed with
// this weight per datagram, kept within [1, kMaxPacking], and used with this margin, so that a
// datagram that compresses a little worse than the last ones still fits.
constexpr double kPackingWeight = 0.25;
constexpr double kMaxPacking = 3.0;
constexpr double kPackingMargin = 0.9;

wire::NodeState to_wire(MemberState s) {
  switch (s) {
    case MemberState::alive:
      return wire::NodeState::alive;
    case MemberState::suspect:
      return wire::NodeState::suspect;
    case MemberState::dead:
      return wire::NodeState::dead;
    case MemberState::left:
      return wire::NodeState::left;
  }
  return wire::NodeState::dead;
}

wire::Bytes ip_bytes(const Address& a) {
  const auto b = a.ip_bytes();
  return wire::Bytes(b.begin(), b.end());
}

// memberlist stretches the push-pull interval for clusters above 32 members.
Millis push_pull_scale(Millis interval, std::size_t n) {
  if (n <= 32) return interval;
  const double multiplier = std::ceil(std::log2(static_cast<double>(n)) - std::log2(32.0)) + 1.0;
  return Millis{static_cast<std::int64_t>(interval.count() * multiplier)};
}

}  // namespace

Result<Node> Node::create(Config config, std::string name, Address address, Rng rng,
                          Incarnation incarnation, wire::Bytes meta) {
  if (auto s = config.validate(); !s) return s.error();
  if (name.empty()) return Error{"a node needs a name"};
  if (address.port == 0) return Error{"a node needs a port"};
  return Node(std::move(config), std::move(name), address, rng, incarnation, std::move(meta));
}

Node::Node(Config config, std::string name, Address address, Rng rng, Incarnation incarnation,
           wire::Bytes meta)
    : config_(std::move(config)),
      self_name_(std::move(name)),
      self_address_(address),
      rng_(rng),
      awareness_(config_.awareness_max_multiplier) {
  auto self = std::make_unique<Member>();
  self->name = self_name_;
  self->address = self_address_;
  self->incarnation = incarnation;
  self->meta = std::move(meta);
  self->vsn = kVersions;
  insert(std::move(self));
}

Incarnation Node::incarnation() const {
  return index_.find(self_name_)->incarnation;
}

std::vector<Node::SuspicionTimer> Node::suspicion_timers() const {
  std::vector<SuspicionTimer> out;
  out.reserve(suspicions_.size());
  for (const auto& [name, pending] : suspicions_)
    out.push_back(
        {name, pending.timer.start(), pending.timer.deadline(), pending.timer.confirmations()});
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.member < b.member; });
  return out;
}

const Member* Node::member(const std::string& name) const {
  return index_.find(name);
}

Member* Node::find(const std::string& name) {
  return index_.find(name);
}

std::vector<const Member*> Node::members() const {
  std::vector<const Member*> out;
  out.reserve(nodes_.size());
  for (const auto& m : nodes_) out.push_back(m.get());
  return out;
}

Member& Node::insert(std::unique_ptr<Member> member) {
  // A random position keeps the expected time to the first probe of a newcomer low; appending
  // would make every member discover it last.
  Member* raw = member.get();
  index_.insert(raw);
  members_changed();
  nodes_.push_back(std::move(member));
  const std::size_t offset = rng_.below(static_cast<std::uint32_t>(nodes_.size()));
  std::swap(nodes_[offset], nodes_.back());
  return *raw;
}

wire::Alive Node::alive_message(const Member& m) const {
  return wire::Alive{m.incarnation, m.name, ip_bytes(m.address), m.address.port, m.meta, m.vsn};
}

int Node::transmit_limit() const {
  return retransmit_limit(config_.retransmit_mult, nodes_.size());
}

// ---------------------------------------------------------------------------------- lifecycle

Status Node::set_meta(wire::Bytes meta) {
  if (started_) return Error{"metadata can be set only before the node starts"};
  find(self_name_)->meta = std::move(meta);
  return ok_status();
}

void Node::start(Millis now) {
  if (started_) return;
  started_ = true;
  Member& self = *find(self_name_);
  self.state_change = now;
  broadcast(now, self_name_, alive_message(self));
  schedule(now + stagger(config_.probe_interval), Timer::probe, probe_tick_token_ = next_token_++);
  schedule(now + stagger(config_.gossip_interval), Timer::gossip, gossip_token_ = next_token_++);
  // As memberlist: the first exchange waits a random stagger plus a whole interval, scaled to the
  // cluster as it is known once the stagger is over (see Timer::push_pull). Scaled now, while a
  // joining node knows only itself, every member of a large cluster that starts at once would
  // make its first exchange several times sooner than memberlist does.
  if (config_.push_pull_interval > Millis{0})
    schedule(now + stagger(config_.push_pull_interval), Timer::push_pull,
             push_pull_token_ = next_token_++);
  if (config_.reconnect_interval > Millis{0})
    schedule(now + stagger(config_.reconnect_interval), Timer::reconnect,
             reconnect_token_ = next_token_++);
}

Millis Node::stagger(Millis period) {
  // Random phases keep nodes started together from probing in lockstep, unless the rounds are
  // meant to be synchronous.
  if (config_.round_based) return period;
  return Millis{rng_.below(static_cast<std::uint32_t>(period.count()))};
}

void Node::join(Millis now, const std::vector<Address>& seeds) {
  if (!join_result_) join_result_ = JoinResult{};
  // Only a node that knows no one yet may keep what the seeds tell it to itself: a running
  // member joining another cluster must still spread that cluster's names through its own.
  lone_join_ = nodes_.size() <= 1 && config_.join_follow_up > Millis{0};
  for (const auto& seed : seeds) {
    if (seed == self_address_) {
      join_result_->failures.push_back({seed, "this node's own address"});
      continue;
    }
    Member seed_member;
    seed_member.address = seed;
    join_streams_[exchange_with(seed_member, true)] = seed;
  }
  if (join_streams_.empty()) {
    join_result_->at = now;
    outbox_.join_results.push_back(std::move(*join_result_));
    join_result_.reset();
  }
}

void Node::join_exchange_ended(Millis now, std::uint64_t id, std::optional<std::string> failure) {
  auto it = join_streams_.find(id);
  if (it == join_streams_.end()) return;
  if (!join_result_) join_result_ = JoinResult{};
  if (failure)
    join_result_->failures.push_back({it->second, std::move(*failure)});
  else
    join_result_->contacted.push_back(it->second);
  join_streams_.erase(it);
  if (!join_streams_.empty()) return;
  join_result_->at = now;
  outbox_.join_results.push_back(std::move(*join_result_));
  join_result_.reset();
}

void Node::add_member(Millis now, const std::string& name, Address address,
                      Incarnation incarnation) {
  if (name == self_name_ || find(name) || !has_room_for(now, name)) return;
  auto m = std::make_unique<Member>();
  m->name = name;
  m->address = address;
  m->incarnation = incarnation;
  m->vsn = kVersions;
  m->state_change = now;
  insert(std::move(m));
}

void Node::reserve(std::size_t members) {
  nodes_.reserve(members);
  index_.reserve(members);
}

Status Node::reconfigure(const Config& config) {
  if (auto s = config.validate(); !s) return s;
  const int score = awareness_.score();
  const std::string label = config_.label;
  config_ = config;
  config_.label = label;
  awareness_ = Awareness(config_.awareness_max_multiplier);
  awareness_.apply(score);  // keep what we learnt about our own health, within the new range
  return ok_status();
}

void Node::leave(Millis now) {
  if (left_) return;
  left_ = true;
  const wire::Dead farewell{incarnation(), self_name_, self_name_};
  dead_node(now, farewell);
  // Beyond memberlist: besides gossiping the news, tell every live member once, directly. With
  // small retransmit limits the gossip alone can die out, and a member that misses it would
  // later record a failure instead of a departure.
  for (const auto& m : nodes_)
    if (m->name != self_name_ && !m->dead_or_left()) send(m->address, farewell, false);
}

// ------------------------------------------------------------------------------------- timers

void Node::schedule(Millis at, Timer kind, std::uint64_t token) {
  timers_.push(TimerEntry{at, timer_order_++, kind, token});
}

Millis Node::next_deadline() const {
  return timers_.empty() ? Millis::max() : timers_.top().at;
}

void Node::handle_tick(Millis now) {
  // Beyond Lifeguard: a host that runs our timers half a direct-ack wait late was starved of
  // CPU, and acks for its probes may have waited unread just as long, so the next probe's
  // outcome counts against its own health. On a machine where every process is starved, the
  // stretched probe interval is what lowers the load instead of a storm of false suspicions.
  if (!timers_.empty() && now - timers_.top().at >= config_.probe_timeout / 2) {
    woke_late_ = true;
    ++counters_.late_timers;
  }
  while (!timers_.empty() && timers_.top().at <= now) {
    const TimerEntry entry = timers_.top();
    timers_.pop();
    fire(entry, now);
  }
  drop_dead_timers();
}

bool Node::timer_is_dead(const TimerEntry& e) const {
  // True only for entries fire() would ignore now and forever: sequence numbers and tokens only
  // grow, and a probe never leaves its indirect phase.
  switch (e.kind) {
    case Timer::probe:
      return e.token != probe_tick_token_;
    case Timer::probe_timeout:
      return !probe_ || probe_->seq != e.token || probe_->indirect;
    case Timer::probe_deadline:
      return !probe_ || probe_->seq != e.token;
    case Timer::gossip:
      return e.token != gossip_token_;
    case Timer::push_pull:
      return e.token != push_pull_token_;
    case Timer::reconnect:
      return e.token != reconnect_token_;
    case Timer::join_follow_up:
      return e.token != join_follow_up_token_;
    case Timer::suspicion:
    case Timer::relay:
      return false;
  }
  return false;
}

void Node::drop_dead_timers() {
  // Every finished probe leaves its timeout and deadline behind; popping them whenever they
  // head the queue (after a probe ends, after timers fire) keeps next_deadline() from waking
  // the host for nothing.
  while (!timers_.empty() && timer_is_dead(timers_.top())) timers_.pop();
}

void Node::fire(const TimerEntry& e, Millis now) {
  switch (e.kind) {
    case Timer::probe:
      if (e.token != probe_tick_token_) return;
      schedule(e.at + config_.probe_interval, Timer::probe, probe_tick_token_ = next_token_++);
      // Like Go's ticker: a tick that lands during a running probe waits for it to finish.
      if (probe_)
        probe_tick_pending_ = true;
      else
        start_probe(now);
      return;
    case Timer::probe_timeout:
      if (probe_ && probe_->seq == e.token && !probe_->indirect) probe_timeout(now, probe_->seq);
      return;
    case Timer::probe_deadline:
      if (probe_ && probe_->seq == e.token) finish_probe(now, false);
      return;
    case Timer::gossip:
      if (e.token != gossip_token_) return;
      if (broadcasts_.empty()) {
        // Nothing to say: stop ticking (and waking the host) until there is; see broadcast().
        gossip_idle_ = true;
        gossip_next_at_ = e.at + config_.gossip_interval;
        gossip_token_ = next_token_++;
        return;
      }
      schedule(e.at + config_.gossip_interval, Timer::gossip, gossip_token_ = next_token_++);
      gossip(now);
      return;
    case Timer::push_pull:
      if (e.token != push_pull_token_) return;
      schedule(e.at + push_pull_scale(config_.push_pull_interval, nodes_.size()), Timer::push_pull,
               push_pull_token_ = next_token_++);
      if (!push_pull_staggered_) {
        push_pull_staggered_ = true;  // the stagger is over; the first interval starts now
        return;
      }
      push_pull(now);
      return;
    case Timer::reconnect:
      if (e.token != reconnect_token_) return;
      schedule(e.at + config_.reconnect_interval, Timer::reconnect,
               reconnect_token_ = next_token_++);
      reconnect(now);
      return;
    case Timer::join_follow_up:
      if (e.token == join_follow_up_token_) push_pull(now);
      return;
    case Timer::suspicion: {
      auto name_it = suspicion_tokens_.find(e.token);
      if (name_it == suspicion_tokens_.end()) return;
      auto it = suspicions_.find(name_it->second);
      if (it == suspicions_.end() || it->second.token != e.token) return;
      if (now < it->second.timer.deadline()) return;  // shortened or stale entry
      Member* m = find(it->first);
      const bool still =
          m && m->state == MemberState::suspect && m->state_change == it->second.state_change;
      if (still)
        dead_node(now, wire::Dead{m->incarnation, m->name, self_name_}, nullptr,
                  /*first_hand=*/true);
      else
        cancel_suspicion(it->first);
      return;
    }
    case Timer::relay: {
      auto it = relays_.find(static_cast<std::uint32_t>(e.token));
      if (it == relays_.end()) return;
      if (it->second.nack) send(it->second.requester, wire::Nack{it->second.requester_seq});
      relays_.erase(it);
      return;
    }
  }
}

// ------------------------------------------------------------------------------------ probing

void Node::reset_nodes(Millis now) {
  // Forget members dead or gone for longer than gossip-to-the-dead time, then reshuffle.
  for (std::size_t i = 0; i < nodes_.size();) {
    Member& m = *nodes_[i];
    if (m.dead_or_left() && m.name != self_name_ &&
        now - m.state_change > config_.gossip_to_the_dead_time) {
      emit(now, EventKind::removed, m);
      if (m.state == MemberState::dead) {
        // Bounded like the table: a stranger who invents members and declares them dead could
        // otherwise fill this with a table's worth of names every gossip-to-the-dead time.
        if (forgotten_.size() < config_.max_members)
          forgotten_[m.name] = Forgotten{m.address, m.state_change};
        --dead_count_;
      }
      index_.erase(m.name);
      nodes_[i] = std::move(nodes_.back());
      nodes_.pop_back();
      members_changed();
    } else {
      ++i;
    }
  }
  // The new order needs no members_changed(): exchanges send the table in name order.
  for (std::size_t i = nodes_.size(); i > 1; --i)
    std::swap(nodes_[i - 1], nodes_[rng_.below(static_cast<std::uint32_t>(i))]);
}

Member* Node::next_probe_target(Millis now) {
  if (config_.random_probing) {
    auto pick = random_members(
        1, [&](const Member& m) { return m.name == self_name_ || m.dead_or_left(); });
    return pick.empty() ? nullptr : pick.front();
  }
  // Round-robin over the shuffled list, reshuffling whenever it wraps (SWIM's improvement over
  // uniform random choice: every member is probed within 2N-1 periods).
  for (std::size_t checked = 0; checked <= nodes_.size(); ++checked) {
    if (probe_index_ >= nodes_.size()) {
      reset_nodes(now);
      probe_index_ = 0;
    }
    if (nodes_.empty()) return nullptr;
    Member* m = nodes_[probe_index_++].get();
    if (m->name != self_name_ && !m->dead_or_left()) {
      // The next target's record is needed a whole probe interval from now; fetching it now
      // takes that cache miss off the probe path (large clusters are memory-bound).
      if (probe_index_ < nodes_.size()) __builtin_prefetch(nodes_[probe_index_].get());
      return m;
    }
  }
  return nullptr;
}

void Node::start_probe(Millis now) {
  probe_tick_pending_ = false;
  if (left_) return;
  Member* target = next_probe_target(now);
  if (!target) return;
  ++counters_.probes;
  Probe p;
  p.target = target->name;
  p.seq = ++seq_no_;
  p.started = now;
  const auto src = ip_bytes(self_address_);
  const wire::Ping ping{p.seq, target->name, src, self_address_.port, self_name_};
  if (target->state == MemberState::alive || !config_.lifeguard.buddy_system) {
    send(target->address, ping);
  } else {
    // Lifeguard's buddy system: tell the suspect at once, so it can refute in its reply.
    wire::Bytes a, b;
    wire::encode(ping, a);
    wire::encode(wire::Suspect{target->incarnation, target->name, self_name_}, b);
    ++counters_.messages_sent[Counters::index(wire::MessageType::ping)];
    ++counters_.messages_sent[Counters::index(wire::MessageType::suspect)];
    if (auto compound = wire::make_compound({a, b})) send_raw(target->address, *compound);
  }
  probe_ = p;
  schedule(now + config_.probe_timeout, Timer::probe_timeout, p.seq);
  // The whole probe may take a (health-scaled) probe interval; the direct wait does not scale,
  // since waiting longer does not help a UDP packet arrive.
  const Millis interval = config_.lifeguard.lha_probe ? awareness_.scale(config_.probe_interval)
                                                      : config_.probe_interval;
  schedule(now + interval, Timer::probe_deadline, p.seq);
}

void Node::probe_timeout(Millis now, std::uint64_t seq) {
  (void)seq;
  Probe& p = *probe_;
  p.indirect = true;
  ++counters_.indirect_probes;
  const Member* target = find(p.target);
  if (!target) return;
  const std::string target_name = target->name;
  const Address target_address = target->address;
  auto helpers = random_members(config_.indirect_checks, [&](const Member& m) {
    return m.name == self_name_ || m.name == target_name || m.state != MemberState::alive;
  });
  const auto src = ip_bytes(self_address_);
  for (Member* helper : helpers) {
    // Only members speaking protocol 4 or later send nacks.
    const bool nack = helper->vsn.size() < 2 || helper->vsn[1] >= 4;
    if (nack) ++p.expected_nacks;
    send(helper->address,
         wire::IndirectPing{p.seq, ip_bytes(target_address), target_address.port, target_name, nack,
                            src, self_address_.port, self_name_});
  }
  // memberlist pings over TCP only members whose protocol range reaches version 3.
  if (config_.tcp_fallback_ping && target->vsn.size() >= 2 && target->vsn[1] >= 3) {
    const std::uint64_t id = next_stream_id_++;
    ping_streams_[id] = p.seq;
    ++counters_.stream_pings_sent;
    outbox_.streams.push_back(StreamRequest{
        id, target_address,
        wire::encode(wire::Ping{p.seq, target_name, src, self_address_.port, self_name_}), false});
  }
  (void)now;
}

void Node::finish_probe(Millis now, bool acked) {
  Probe p = *probe_;
  probe_.reset();
  int delta = -1;
  if (!acked) {
    ++counters_.probes_failed;
    // Missing nacks mean the helpers did not hear from us either: more likely our fault.
    delta = p.expected_nacks > 0 ? p.expected_nacks - p.nacks : 1;
  }
  if (woke_late_) delta = std::max(delta, 1);
  woke_late_ = false;
  if (config_.lifeguard.lha_probe) awareness_.apply(delta);
  outbox_.probe_results.push_back(ProbeResult{p.target, now, acked, now - p.started, !p.indirect});
  if (!acked) {
    if (const Member* m = find(p.target))
      suspect_node(now, wire::Suspect{m->incarnation, m->name, self_name_}, nullptr,
                   /*first_hand=*/true);
  }
  if (probe_tick_pending_) start_probe(now);
  drop_dead_timers();  // the probe's timeout and deadline may now head the queue
}

// ------------------------------------------------------------------------------ dissemination

void Node::count_sent(const wire::Bytes& encoded) {
  if (!encoded.empty() && encoded[0] < Counters::kTypes) ++counters_.messages_sent[encoded[0]];
}

std::span<const std::uint8_t> Node::label_bytes() const {
  return {reinterpret_cast<const std::uint8_t*>(config_.label.data()), config_.label.size()};
}

std::size_t Node::packet_overhead() const {
  return (config_.label.empty() ? 0 : 2 + config_.label.size()) +
         (cipher_ ? cipher_->overhead() : 0);
}

void Node::broadcast(Millis now, const std::string& member, const wire::Message& message) {
  wire::Bytes bytes;
  wire::encode(message, bytes);
  broadcasts_.queue(member, std::move(bytes));
  if (gossip_idle_) resume_gossip(now);
}

void Node::resume_gossip(Millis now) {
  // The ticks missed while idle would have found nothing to send; the next one is the first of
  // the same schedule after now, as if the clock had been ticking all along.
  gossip_idle_ = false;
  const Millis interval = config_.gossip_interval;
  Millis at = gossip_next_at_;
  if (at <= now) at += interval * ((now - at) / interval + 1);
  schedule(at, Timer::gossip, gossip_token_ = next_token_++);
}

void Node::send(const Address& to, const wire::Message& message, bool piggyback) {
  wire::Bytes msg;
  wire::encode(message, msg);
  ++counters_.messages_sent[Counters::index(wire::type_of(message))];
  if (piggyback && !broadcasts_.empty()) {
    const std::size_t used = msg.size() + kCompoundHeader + kCompoundPart;
    if (used < news_room()) {
      auto extra = broadcasts_.take(kCompoundPart, news_budget(news_room() - used),
                                    transmit_limit(), kMaxCompoundParts - 1);
      if (!extra.empty()) {
        for (const auto& part : extra) count_sent(part);
        extra.insert(extra.begin(), std::move(msg));
        send_parts(to, std::move(extra));
        return;
      }
    }
  }
  send_raw(to, std::move(msg));
}

std::size_t Node::news_room() const {
  return config_.udp_buffer_size - std::min(config_.udp_buffer_size, packet_overhead());
}

std::size_t Node::news_budget(std::size_t room) const {
  // memberlist packs news by its raw size and compresses afterwards, so a full datagram of news
  // leaves with about half its room unused. Packing by the size the news is expected to have once
  // compressed (the last datagrams' ratio, with a margin) fills it: fewer datagrams per piece of
  // news while a cluster is busy, which is what limits how many members one machine can hold.
  if (!config_.compression) return room;
  const double scaled = static_cast<double>(room) * packing_ * kPackingMargin;
  // Whatever the buffer size, a datagram never expands past what receivers accept of one (the
  // part of it already used, news_room() - room, included).
  static_assert(wire::max_datagram_expansion >= 65507, "a whole UDP datagram must fit");
  const std::size_t most = wire::max_datagram_expansion - (news_room() - room);
  return std::min(most, std::max(room, static_cast<std::size_t>(scaled)));
}

void Node::learn_packing(std::size_t plain, std::size_t packed) {
  const double ratio = static_cast<double>(plain) / static_cast<double>(packed);
  packing_ = std::clamp(packing_ + kPackingWeight * (ratio - packing_), 1.0, kMaxPacking);
}

void Node::send_parts(const Address& to, std::vector<wire::Bytes> parts, PackedNews* last) {
  wire::Bytes plain;
  if (parts.size() == 1) {
    plain = std::move(parts.front());
  } else if (auto compound = wire::make_compound(parts)) {
    plain = std::move(*compound);
  } else {
    return;
  }
  std::optional<wire::Bytes> packed;
  if (last && !last->plain.empty() && last->plain == plain) {
    packed = last->packed;
    ++counters_.news_compressions_reused;
  } else {
    packed = compressed(plain);
    if (packed) learn_packing(plain.size(), packed->size());
    if (last) *last = PackedNews{plain, packed};
  }
  if ((packed ? packed->size() : plain.size()) > news_room() && parts.size() > 1) {
    // The news compressed less well than the last datagrams did: send it as two.
    ++counters_.news_datagrams_split;
    const auto middle = parts.begin() + static_cast<std::ptrdiff_t>(parts.size() / 2);
    send_parts(to, std::vector<wire::Bytes>(std::make_move_iterator(parts.begin()),
                                            std::make_move_iterator(middle)));
    send_parts(to, std::vector<wire::Bytes>(std::make_move_iterator(middle),
                                            std::make_move_iterator(parts.end())));
    return;
  }
  if (packed) {
    count_compressed(plain.size(), packed->size());
    send_packet(to, std::move(*packed));
  } else {
    send_packet(to, std::move(plain));
  }
}

std::optional<wire::Bytes> Node::compressed(const wire::Bytes& message) const {
  // memberlist compresses every datagram and keeps the result only if it is shorter. Below
  // kMinCompressible bytes (pings, acks, single rumours) that almost never happens: in a
  // simulated 100-member cluster under 5 % loss, 77,000 such datagrams saved 0.2 % of their
  // bytes, while trying doubled the simulation's cost. A full datagram of news shrinks to about
  // half, and full states, names and addresses over and over, by about four fifths.
  if (!config_.compression || message.size() < kMinCompressible) return std::nullopt;
  wire::Bytes packed = wire::make_compressed(message);
  if (packed.size() >= message.size()) return std::nullopt;
  return packed;
}

void Node::count_compressed(std::size_t plain, std::size_t packed) {
  ++counters_.compressed_sent;
  counters_.compression_bytes_saved += plain - packed;
}

wire::Bytes Node::maybe_compress(wire::Bytes message) {
  auto packed = compressed(message);
  if (!packed) return message;
  count_compressed(message.size(), packed->size());
  return std::move(*packed);
}

void Node::send_raw(const Address& to, wire::Bytes packet) {
  send_packet(to, maybe_compress(std::move(packet)));
}

void Node::send_packet(const Address& to, wire::Bytes packet) {
  if (cipher_) {
    // memberlist's order: seal the packet (CRC and compound inside), label header outside.
    auto sealed = cipher_->seal(packet, label_bytes());
    if (!sealed) return;
    packet = std::move(sealed).value();
  }
  wire::Bytes out;
  if (!config_.label.empty()) {
    auto labelled = wire::add_label(config_.label, packet);
    if (!labelled) return;
    out = std::move(*labelled);
  } else {
    out = std::move(packet);
  }
  ++counters_.datagrams_sent;
  counters_.bytes_sent += out.size();
  outbox_.datagrams.push_back(Datagram{to, std::move(out)});
}

void Node::gossip(Millis now) {
  if (broadcasts_.empty()) return;  // nothing to say: skip choosing whom to say it to
  auto targets = random_members(config_.gossip_nodes, [&](const Member& m) {
    if (m.name == self_name_) return true;
    switch (m.state) {
      case MemberState::alive:
      case MemberState::suspect:
        return false;
      case MemberState::dead:
        return now - m.state_change > config_.gossip_to_the_dead_time;
      case MemberState::left:
        return true;
    }
    return true;
  });
  if (news_room() <= kCompoundHeader) return;
  PackedNews last;
  for (Member* target : targets) {
    const std::size_t budget = news_budget(news_room() - kCompoundHeader);
    auto parts = broadcasts_.take(kCompoundPart, budget, transmit_limit(), kMaxCompoundParts);
    if (parts.empty()) return;
    for (const auto& part : parts) count_sent(part);
    send_parts(target->address, std::move(parts), &last);
  }
}

const Node::EncodedState& Node::local_state(bool join) {
  // Anti-entropy sends the whole table every few minutes, and between two exchanges it rarely
  // changed: encoding it dominated large simulations, so the last encoding is kept until a
  // member changes (see members_changed).
  if (!state_cache_ || state_cache_->join != join) {
    wire::Bytes bytes = encode_state(join);
    wire::Bytes sent = maybe_compress(bytes);
    state_cache_ = EncodedState{join, std::move(bytes), std::move(sent)};
  }
  return *state_cache_;
}

wire::Bytes Node::encode_state(bool join) const {
  // Views into the member table: a thousand members cost no allocation each.
  std::vector<Address::Bytes> ips;
  std::vector<wire::PushNodeStateView> views;
  ips.reserve(nodes_.size());
  views.reserve(nodes_.size());
  // In name order, not probe order: two members that see the cluster alike then send the same
  // bytes, which lets the receiver recognise its own view without decoding it (is_own_view).
  std::vector<const Member*> sorted;
  sorted.reserve(nodes_.size());
  for (const auto& m : nodes_) sorted.push_back(m.get());
  std::sort(sorted.begin(), sorted.end(),
            [](const Member* a, const Member* b) { return a->name < b->name; });
  for (const Member* m : sorted) {
    ips.push_back(m->address.ip_bytes());
    wire::PushNodeStateView v;
    v.name = m->name;
    v.addr = std::span<const std::uint8_t>(ips.back().begin(), ips.back().end());
    v.port = m->address.port;
    v.meta = m->meta;
    v.incarnation = m->incarnation;
    v.state = to_wire(m->state);
    v.set_vsn(m->vsn);
    views.push_back(v);
  }
  wire::Bytes out;
  out.reserve(64 + nodes_.size() * 96);
  wire::encode_push_pull(join, views, {}, out);
  return out;
}

std::uint64_t Node::exchange_with(const Member& peer, bool join) {
  const std::uint64_t id = next_stream_id_++;
  streams_[id] = PendingExchange{join, peer.address};
  StreamRequest req{id, peer.address, local_state(join).sent, join};
  ++counters_.streams_sent;
  counters_.stream_bytes_sent += req.bytes.size();
  outbox_.streams.push_back(std::move(req));
  return id;
}

void Node::push_pull(Millis now) {
  (void)now;
  if (left_) return;
  auto peers = random_members(
      1, [&](const Member& m) { return m.name == self_name_ || m.state != MemberState::alive; });
  if (!peers.empty()) exchange_with(*peers.front(), false);
}

void Node::set_state(Member& m, MemberState s) {
  if (m.state == MemberState::dead) --dead_count_;
  if (s == MemberState::dead) ++dead_count_;
  m.state = s;
  members_changed();
}

void Node::reconnect(Millis now) {
  if (left_) return;
  // Candidates: members we hold dead, and failed members already forgotten but not for long.
  std::vector<Address> candidates;
  if (dead_count_ > 0)
    for (const auto& m : nodes_)
      if (m->state == MemberState::dead) candidates.push_back(m->address);
  for (auto it = forgotten_.begin(); it != forgotten_.end();) {
    if (now - it->second.since > config_.reconnect_timeout || index_.find(it->first)) {
      it = forgotten_.erase(it);
    } else {
      candidates.push_back(it->second.address);
      ++it;
    }
  }
  if (candidates.empty()) return;
  Member peer;
  peer.address = candidates[rng_.below(static_cast<std::uint32_t>(candidates.size()))];
  exchange_with(peer, false);
}

namespace {

// memberlist compresses first and adds the CRC around that: [12][crc, 4 bytes][9]...
bool is_compressed_packet(std::span<const std::uint8_t> packet) {
  constexpr auto kCrc = static_cast<std::uint8_t>(wire::MessageType::has_crc);
  if (!packet.empty() && packet[0] == kCrc)
    packet = packet.subspan(std::min<std::size_t>(5, packet.size()));
  return wire::is_compressed(packet);
}

}  // namespace

Result<wire::Bytes> Node::handle_stream(Millis now, const Address& from,
                                        std::span<const std::uint8_t> received) {
  (void)from;
  // The reply is our table either way; encoding it first (as a periodic exchange, the common
  // kind) lets even a first exchange be recognised as our own view, and a compressed one before
  // it is expanded: the encoder is deterministic, so the same table compresses to the same bytes.
  if (!state_cache_) local_state(false);
  if (is_own_view(received)) {
    ++counters_.exchanges_unchanged;
    return state_cache_->sent;
  }
  // A host hands over a stream message as it arrived: the agent's framing has already expanded a
  // compressed one, the simulator passes it on as it was sent.
  wire::Bytes storage;
  wire::ExpansionBudget budget{wire::max_stream_expansion};
  auto plain = wire::expand_compressed(received, storage, budget);
  if (!plain) {
    if (budget.exceeded) ++counters_.streams_expansion_refused;
    return plain.error();
  }
  const std::span<const std::uint8_t> bytes = *plain;
  if (!bytes.empty() && bytes[0] == static_cast<std::uint8_t>(wire::MessageType::ping)) {
    auto message = wire::decode_message(bytes);
    if (!message) return message.error();
    const auto& ping = std::get<wire::Ping>(*message);
    if (!ping.node.empty() && ping.node != self_name_)
      return Error{"stream ping for " + ping.node + ", not " + self_name_};
    ++counters_.stream_pings_answered;
    return maybe_compress(wire::encode(wire::Ack{ping.seq_no, {}}));
  }
  if (bytes.data() != received.data() && is_own_view(bytes)) {  // compressed by other rules
    ++counters_.exchanges_unchanged;
    return state_cache_->sent;
  }
  auto remote = wire::decode_push_pull_view(bytes);
  if (!remote) return remote.error();
  wire::Bytes reply = local_state(remote->join).sent;  // a copy: the merge may change the table
  merge_remote_state(now, *remote);
  return reply;
}

bool Node::stream_message_complete(std::span<const std::uint8_t> bytes) {
  if (!bytes.empty() && (bytes[0] == static_cast<std::uint8_t>(wire::MessageType::ping) ||
                         bytes[0] == static_cast<std::uint8_t>(wire::MessageType::ack)))
    return wire::decode_message(bytes).ok();
  return wire::decode_push_pull_view(bytes).ok();
}

void Node::handle_stream_reply(Millis now, std::uint64_t id,
                               std::span<const std::uint8_t> received) {
  const bool own_view = is_own_view(received);  // before expanding it, as in handle_stream
  wire::Bytes storage;
  wire::ExpansionBudget budget{wire::max_stream_expansion};
  auto plain = own_view ? Result<std::span<const std::uint8_t>>(received)
                        : wire::expand_compressed(received, storage, budget);
  if (!plain) {
    ++counters_.datagrams_rejected;
    if (budget.exceeded) ++counters_.streams_expansion_refused;
    ping_streams_.erase(id);
    if (streams_.erase(id) > 0)
      join_exchange_ended(now, id, "its reply did not expand: " + plain.error().message);
    return;
  }
  const std::span<const std::uint8_t> bytes = *plain;
  if (auto ping = ping_streams_.find(id); ping != ping_streams_.end()) {
    const std::uint32_t seq = ping->second;
    ping_streams_.erase(ping);
    auto reply = wire::decode_message(bytes);
    const auto* ack = reply ? std::get_if<wire::Ack>(&*reply) : nullptr;
    if (!ack || ack->seq_no != seq) {
      ++counters_.datagrams_rejected;
      return;
    }
    ++counters_.stream_pings_acked;
    // Contact over TCP counts for the probe, as in memberlist: the target is alive even if the
    // UDP path to it is broken.
    if (probe_ && probe_->seq == seq) finish_probe(now, true);
    return;
  }
  auto it = streams_.find(id);
  if (it == streams_.end()) return;
  const bool join = it->second.join;
  const Address peer = it->second.to;
  streams_.erase(it);
  if (own_view || is_own_view(bytes)) {
    ++counters_.exchanges_unchanged;
  } else {
    auto remote = wire::decode_push_pull_view(bytes);
    if (!remote) {
      ++counters_.datagrams_rejected;
      join_exchange_ended(now, id, "its reply did not decode: " + remote.error().message);
      return;
    }
    merge_remote_state(now, *remote, join && lone_join_, &peer);
  }
  join_exchange_ended(now, id, std::nullopt);
  if (join && lone_join_ && !left_) {
    schedule(now + config_.join_follow_up, Timer::join_follow_up,
             join_follow_up_token_ = next_token_++);
    quiet_news_until_ = now + config_.join_follow_up;
  }
  // Beyond memberlist: announce ourselves afresh now that we know whom to tell. Our start-up
  // announcement may have been spent while we knew only the seed.
  if (join && !left_) broadcast(now, self_name_, alive_message(*find(self_name_)));
}

void Node::handle_stream_failure(Millis now, std::uint64_t id, std::string_view reason) {
  streams_.erase(id);
  ping_streams_.erase(id);
  join_exchange_ended(
      now, id, reason.empty() ? "no reply (refused, closed or timed out)" : std::string(reason));
}

Result<wire::Bytes> Node::frame_stream(std::span<const std::uint8_t> message,
                                       wire::StreamPart part) const {
  return wire::frame_stream(message, config_.label, cipher_.get(), part);
}

wire::StreamRead Node::read_stream(
    std::span<const std::uint8_t> received, wire::StreamPart part,
    const std::function<bool(std::span<const std::uint8_t>)>& complete) {
  auto read = wire::read_stream(received, config_.label, cipher_.get(), complete, part);
  if (read.status == wire::StreamRead::Status::refused) ++counters_.streams_rejected;
  if (read.refusal == wire::StreamRead::Refusal::too_large) ++counters_.streams_expansion_refused;
  if (read.status == wire::StreamRead::Status::ready && read.compressed)
    ++counters_.compressed_streams_received;
  return read;
}

bool Node::is_own_view(std::span<const std::uint8_t> bytes) const {
  // Byte for byte our last encoding: every entry names a member we hold with exactly that
  // address, incarnation, state, meta and versions, so is_news() would reject each one. The
  // exception is a pending suspicion, which a remote suspect or dead entry confirms; with one
  // pending, take the long way.
  if (!state_cache_ || !suspicions_.empty()) return false;
  const wire::Bytes& mine = wire::is_compressed(bytes) ? state_cache_->sent : state_cache_->bytes;
  return std::equal(bytes.begin(), bytes.end(), mine.begin(), mine.end());
}

bool Node::is_news(const wire::PushNodeStateView& r, const Address* from) const {
  // The rules below would ignore these entries anyway; deciding it here avoids building an
  // owned message for every one of them (most of an anti-entropy exchange is old news).
  const Member* known = index_.find(r.name);
  if (!known) return r.state == wire::NodeState::alive;
  const Member& m = *known;
  // Alive entries are judged below: a claim from another address matters at any incarnation.
  if (r.incarnation < m.incarnation && r.state != wire::NodeState::alive) return false;
  const bool is_self = m.name == self_name_;
  switch (r.state) {
    case wire::NodeState::alive: {
      const auto ip = m.address.ip_bytes();
      const bool same_address = r.port == m.address.port &&
                                std::equal(r.addr.begin(), r.addr.end(), ip.begin(), ip.end());
      // Another address is news even about ourselves, whatever the incarnation: alive_node()
      // reports the conflict. Only a member that left moves, and not for older news.
      if (!same_address) return m.state != MemberState::left || r.incarnation >= m.incarnation;
      if (r.incarnation < m.incarnation) return false;
      if (!is_self)
        return r.incarnation > m.incarnation ||
               settles_top_tie(m, r.incarnation, r.meta, r.vsn(), from);
      const auto vsn = r.vsn();
      return r.incarnation > m.incarnation ||
             !std::equal(r.meta.begin(), r.meta.end(), m.meta.begin(), m.meta.end()) ||
             !std::equal(vsn.begin(), vsn.end(), m.vsn.begin(), m.vsn.end());
    }
    case wire::NodeState::left:
      return !m.dead_or_left() || suspicions_.count(m.name) > 0;
    case wire::NodeState::dead:
    case wire::NodeState::suspect:
      return m.state == MemberState::alive || suspicions_.count(m.name) > 0;
  }
  return true;
}

void Node::merge_remote_state(Millis now, const wire::PushPullView& remote, bool quiet,
                              const Address* from) {
  // Looking up a thousand names in a large simulation waits on memory for each one; staging
  // the loads (slots 16 names ahead, members 8 ahead) overlaps those waits.
  constexpr std::size_t kSlotsAhead = 16, kMembersAhead = 8;
  const auto& nodes = remote.nodes;
  for (std::size_t i = 0; i < nodes.size() && i < kSlotsAhead; ++i)
    index_.prefetch_slot(nodes[i].name);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i + kSlotsAhead < nodes.size()) index_.prefetch_slot(nodes[i + kSlotsAhead].name);
    if (i + kMembersAhead < nodes.size()) index_.prefetch_member(nodes[i + kMembersAhead].name);
    const auto& r = nodes[i];
    if (!is_news(r, from)) continue;
    const std::string name(r.name);
    // The peer speaks of us: a refutation at the top is answered straight to it. Below the top
    // an exchange's verdicts are handled as memberlist does, with no one to answer.
    const Address* about_us = name == self_name_ ? from : nullptr;
    if (name == self_name_ &&
        (r.state == wire::NodeState::suspect || r.state == wire::NodeState::dead)) {
      // A verdict on our name held at another address is about another node that claims it:
      // refuting would only outbid that node's record with ours. Report it instead.
      if (auto at = Address::from_bytes(r.addr, r.port); at && *at != address()) {
        conflict(now, *find(self_name_), *at,
                 r.state == wire::NodeState::suspect ? MemberState::suspect : MemberState::dead);
        continue;
      }
    }
    switch (r.state) {
      case wire::NodeState::alive: {
        const auto vsn = r.vsn();
        alive_node(now,
                   wire::Alive{r.incarnation, name, wire::Bytes(r.addr.begin(), r.addr.end()),
                               r.port, wire::Bytes(r.meta.begin(), r.meta.end()),
                               wire::Bytes(vsn.begin(), vsn.end())},
                   false, quiet, from);
        break;
      }
      case wire::NodeState::left:
        dead_node(now, wire::Dead{r.incarnation, name, name}, about_us);
        break;
      case wire::NodeState::dead:
        // A remote verdict of death is only grounds for suspicion here (memberlist does the
        // same): the member may refute before our own timer runs out.
      case wire::NodeState::suspect:
        suspect_node(now, wire::Suspect{r.incarnation, name, self_name_}, about_us);
        break;
    }
  }
}

// ---------------------------------------------------------------------------------- receiving

void Node::handle_datagram(Millis now, const Address& from, std::span<const std::uint8_t> bytes) {
  ++counters_.datagrams_received;
  counters_.bytes_received += bytes.size();
  auto labelled = wire::strip_label(bytes);
  if (!labelled) {
    ++counters_.datagrams_rejected;
    return;
  }
  if (labelled->label != config_.label) {
    ++counters_.datagrams_rejected;
    ++counters_.datagrams_label_mismatch;
    return;
  }
  std::span<const std::uint8_t> packet = labelled->rest;
  wire::Bytes opened;
  if (cipher_) {
    auto plain = cipher_->open(packet, label_bytes());
    if (!plain) {
      ++counters_.datagrams_rejected;
      ++counters_.datagrams_decrypt_failed;
      return;
    }
    opened = std::move(plain).value();
    packet = opened;
  }
  // All compressed messages of one datagram together expand to at most this; a datagram past it
  // is refused whole (see wire::max_datagram_expansion).
  wire::ExpansionBudget budget{wire::max_datagram_expansion};
  auto messages = wire::decode_packet(packet, budget);
  if (!messages) {
    ++counters_.datagrams_rejected;
    if (budget.exceeded) ++counters_.datagrams_expansion_refused;
    return;
  }
  if (is_compressed_packet(packet)) ++counters_.compressed_datagrams_received;
  for (const auto& m : *messages) {
    ++counters_.messages_received[Counters::index(wire::type_of(m))];
    dispatch(now, from, m);
  }
}

void Node::dispatch(Millis now, const Address& from, const wire::Message& message) {
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, wire::Ping>)
          on_ping(now, from, m);
        else if constexpr (std::is_same_v<T, wire::IndirectPing>)
          on_indirect_ping(now, from, m);
        else if constexpr (std::is_same_v<T, wire::Ack>)
          on_ack(now, m);
        else if constexpr (std::is_same_v<T, wire::Nack>)
          on_nack(m);
        else if constexpr (std::is_same_v<T, wire::Suspect>)
          suspect_node(now, m, &from);
        else if constexpr (std::is_same_v<T, wire::Alive>)
          alive_node(now, m, false, false, &from);
        else if constexpr (std::is_same_v<T, wire::Dead>)
          dead_node(now, m, &from);
        else if constexpr (std::is_same_v<T, wire::User>)
          on_user(now, from, m);
        // Error responses carry nothing for membership.
      },
      message);
}

void Node::on_user(Millis now, const Address& from, const wire::User& user) {
  ++counters_.user_messages;
  // A host that emptied the vector itself rather than with clear() has handed them all on.
  if (outbox_.user_messages.empty()) outbox_.user_message_bytes = 0;
  if (outbox_.user_messages.size() >= Outbox::kMaxUserMessages ||
      user.payload.size() > Outbox::kMaxUserMessageBytes - outbox_.user_message_bytes) {
    ++counters_.user_messages_dropped;
    return;
  }
  outbox_.user_message_bytes += user.payload.size();
  outbox_.user_messages.push_back(UserMessage{now, from, user.payload});
}

void Node::on_ping(Millis now, const Address& from, const wire::Ping& ping) {
  // A ping for another name reached a restarted agent at a reused address: ignore it.
  if (!ping.node.empty() && ping.node != self_name_) return;
  Address reply_to = from;
  if (!ping.source_addr.empty() && ping.source_port != 0)
    if (auto a = Address::from_bytes(ping.source_addr, ping.source_port)) reply_to = *a;
  send(reply_to, wire::Ack{ping.seq_no, {}});
  // Beyond memberlist: a prober we have never heard of knows a membership we lack (its join
  // news died out before reaching us): exchange state with it rather than wait for anti-entropy.
  // Every ping asks this, so it reads only the index: see MemberIndex::probably_contains.
  if (!ping.source_node.empty() && !left_ && !index_.probably_contains(ping.source_node)) {
    const Millis again = config_.probe_interval * 2;
    auto last = introductions_.find(reply_to);
    // Pings can claim any return address: what is remembered of them is bounded like the table,
    // the entries that no longer hold anything back going first.
    if (last == introductions_.end() && introductions_.size() >= config_.max_members)
      std::erase_if(introductions_, [&](const auto& entry) { return now - entry.second >= again; });
    if (last == introductions_.end() && introductions_.size() >= config_.max_members) return;
    if (last == introductions_.end() || now - last->second >= again) {
      introductions_[reply_to] = now;
      Member stranger;
      stranger.address = reply_to;
      exchange_with(stranger, false);
    }
  }
}

void Node::on_indirect_ping(Millis now, const Address& from, const wire::IndirectPing& req) {
  auto target = Address::from_bytes(req.target, req.port);
  if (!target) return;
  Address requester = from;
  if (!req.source_addr.empty() && req.source_port != 0)
    if (auto a = Address::from_bytes(req.source_addr, req.source_port)) requester = *a;
  const std::uint32_t local = ++seq_no_;
  relays_[local] = Relay{requester, req.seq_no, req.nack};
  const auto src = ip_bytes(self_address_);
  send(*target, wire::Ping{local, req.node, src, self_address_.port, self_name_});
  schedule(now + config_.probe_timeout, Timer::relay, local);
}

void Node::on_ack(Millis now, const wire::Ack& ack) {
  if (auto it = relays_.find(ack.seq_no); it != relays_.end()) {
    send(it->second.requester, wire::Ack{it->second.requester_seq, {}});
    relays_.erase(it);
    return;
  }
  if (probe_ && probe_->seq == ack.seq_no) finish_probe(now, true);
}

void Node::on_nack(const wire::Nack& nack) {
  if (probe_ && probe_->seq == nack.seq_no) ++probe_->nacks;
}

// --------------------------------------------------------------------------- membership rules

void Node::emit(Millis now, EventKind kind, const Member& m, const std::string& by) {
  outbox_.events.push_back(Event{now, kind, m.name, m.incarnation, by});
}

void Node::conflict(Millis now, const Member& held, const Address& claimed,
                    MemberState claimed_state) {
  ++counters_.name_conflicts;
  Event e{now, EventKind::conflict, held.name, held.incarnation, {}};
  e.address = held.address;
  e.claimed = claimed;
  e.claimed_state = claimed_state;
  outbox_.events.push_back(std::move(e));
}

void Node::cancel_suspicion(const std::string& member) {
  auto it = suspicions_.find(member);
  if (it == suspicions_.end()) return;
  suspicion_tokens_.erase(it->second.token);
  suspicions_.erase(it);
}

bool Node::has_room_for(Millis now, const std::string& name) {
  if (nodes_.size() < config_.max_members) return true;
  // memberlist-compatible at the cap: the table stops growing, and everything about members
  // already known goes on as before. The host hears of it once; the counter says the rest.
  ++counters_.members_refused;
  if (!member_table_full_reported_) {
    member_table_full_reported_ = true;
    outbox_.notices.push_back(
        Notice{now, Notice::Kind::member_table_full, name, config_.max_members});
  }
  return false;
}

bool Node::settles_top_tie(const Member& m, Incarnation incarnation,
                           std::span<const std::uint8_t> meta, std::span<const std::uint8_t> vsn,
                           const Address* from) const {
  // See refute_at_top: at the top incarnation nobody can outbid anybody, so a tie goes to the
  // member itself, heard from its own address (a datagram from it, or the reply of an exchange
  // this node opened to it). Relayed copies stay ignored, as memberlist ignores every alive that
  // does not raise the incarnation.
  if (incarnation != kMaxIncarnation || m.incarnation != kMaxIncarnation) return false;
  if (!from || *from != m.address || m.name == self_name_) return false;
  return m.state != MemberState::alive ||
         !std::equal(meta.begin(), meta.end(), m.meta.begin(), m.meta.end()) ||
         !std::equal(vsn.begin(), vsn.end(), m.vsn.begin(), m.vsn.end());
}

bool Node::answered_at_top(const Member& m, Incarnation accused, Millis now) const {
  // At the top a tie goes to the accusation, as memberlist has it, so copies of a forgery still
  // on their way when the member's own answer arrived would undo that answer, and every member
  // they undo gossips the forgery afresh. The member spoke for itself here a moment ago: no
  // honest accusation follows that within a probe interval (a death verdict takes a whole
  // suspicion timeout), so second-hand ones that soon are such copies. This node's own probes
  // still count, and later accusations count as ever.
  return accused == kMaxIncarnation && m.incarnation == kMaxIncarnation && m.name != self_name_ &&
         m.spoke_at_top != Millis::min() && now - m.spoke_at_top < config_.probe_interval;
}

void Node::alive_node(Millis now, const wire::Alive& a, bool bootstrap, bool quiet,
                      const Address* from) {
  if (left_ && a.node == self_name_) return;
  auto address = Address::from_bytes(a.addr, a.port);
  if (!address || a.node.empty()) return;
  Member* m = find(a.node);
  bool updates_address = false;
  bool is_new = false;
  if (!m) {
    if (!has_room_for(now, a.node)) return;
    auto fresh = std::make_unique<Member>();
    fresh->name = a.node;
    fresh->address = *address;
    fresh->state = MemberState::left;  // a placeholder the checks below bring to life
    fresh->incarnation = 0;
    m = &insert(std::move(fresh));
    is_new = true;
  } else if (m->address != *address) {
    // Only a member that left may come back at another address (memberlist also lets a dead
    // one after DeadNodeReclaimTime, which is off by default). Anything else is a second node
    // claiming the name: the member stays as it is, and both sides hear of it (the holder
    // from the claim, the claimant from the holder's alive or full state).
    if (m->state != MemberState::left) {
      conflict(now, *m, *address, MemberState::alive);
      return;
    }
    updates_address = true;
  }
  const bool is_self = a.node == self_name_;
  if (!is_self && a.incarnation == kMaxIncarnation && from && *from == m->address)
    m->spoke_at_top = now;
  // Alive #x overrides alive or suspect #y only when x > y (a member at x == y is no news), but
  // for the member's own word at the top incarnation.
  if (a.incarnation <= m->incarnation && !is_self && !updates_address && !is_new &&
      !settles_top_tie(*m, a.incarnation, a.meta, a.vsn, from)) {
    if (a.incarnation == m->incarnation) pass_on_quiet_news(now, *m);
    return;
  }
  if (a.incarnation < m->incarnation && is_self) return;
  cancel_suspicion(a.node);
  const MemberState old_state = m->state;
  const wire::Bytes old_meta = m->meta;
  if (!bootstrap && is_self) {
    if (a.incarnation == m->incarnation && a.meta == m->meta && a.vsn == m->vsn) return;
    // Someone speaks for us with our own incarnation or a newer one: only we may, so outbid it.
    refute(now, *m, a.incarnation, from);
    return;
  }
  if (!quiet) broadcast(now, a.node, a);
  m->learned_quietly = quiet;
  m->incarnation = a.incarnation;
  m->meta = a.meta;
  m->address = *address;
  m->vsn = a.vsn;
  members_changed();
  if (m->state != MemberState::alive) {
    set_state(*m, MemberState::alive);
    m->state_change = now;
  }
  if (is_new || old_state == MemberState::dead || old_state == MemberState::left)
    emit(now, EventKind::join, *m);
  else if (old_state == MemberState::suspect)
    emit(now, EventKind::alive, *m);
  else if (old_meta != m->meta)
    emit(now, EventKind::updated, *m);
}

void Node::pass_on_quiet_news(Millis now, Member& m) {
  // A member learned quietly from a seed's table whose alive message still goes round joined
  // the cluster about when we did: the members that hold that news are the only ones spreading
  // it, and those that missed it would wait for a full-state exchange. Spread it as if we had
  // just heard it. The members that joined long before are not news anywhere, and we hear no
  // gossip about them, so a lone join still costs the cluster nothing for them.
  if (!m.learned_quietly) return;
  m.learned_quietly = false;
  if (now > quiet_news_until_ || m.state != MemberState::alive) return;
  broadcast(now, m.name, alive_message(m));
}

void Node::suspect_node(Millis now, const wire::Suspect& s, const Address* sender,
                        bool first_hand) {
  Member* m = find(s.node);
  if (!m) return;
  if (s.incarnation < m->incarnation) {
    if (m->name == self_name_)
      reassert_self(now, *m, s.from);
    else if (sender)
      answer_stale_accusation(now, *m, *sender);
    return;
  }
  if (!first_hand && answered_at_top(*m, s.incarnation, now)) return;
  // Already suspected: an independent accuser counts as a confirmation (Lifeguard), and news
  // of it is passed on so further confirmations can flow.
  if (auto it = suspicions_.find(s.node); it != suspicions_.end()) {
    if (config_.lifeguard.lha_suspicion && it->second.timer.confirm(s.from)) {
      broadcast(now, s.node, s);
      schedule(it->second.timer.deadline(), Timer::suspicion, it->second.token);
    }
    return;
  }
  if (m->state != MemberState::alive) return;
  if (m->name == self_name_) {
    refute(now, *m, s.incarnation, sender);
    return;
  }
  broadcast(now, s.node, s);
  // Suspect #x overrides alive #y when x >= y: at equal incarnations bad news wins.
  m->incarnation = s.incarnation;
  set_state(*m, MemberState::suspect);
  m->state_change = now;
  if (s.from == self_name_) ++counters_.suspicions;
  emit(now, EventKind::suspect, *m, s.from);

  // Expect SuspicionMult - 2 confirmations: the nominal timeout lands two probe periods short
  // of what the multiplier alone would give. Too small a cluster cannot supply them.
  const std::size_t n = nodes_.size();
  int k = config_.suspicion_mult - 2;
  if (static_cast<int>(n) - 2 < k) k = 0;
  const Millis min = suspicion_min_timeout(config_.suspicion_mult, n, config_.probe_interval);
  Millis max = min * config_.suspicion_max_timeout_mult;
  if (!config_.lifeguard.lha_suspicion) {
    k = 0;
    max = min;
  }
  const std::uint64_t token = next_token_++;
  auto [it, inserted] = suspicions_.emplace(
      s.node, PendingSuspicion{Suspicion(s.from, k, min, max, now), token, now});
  suspicion_tokens_[token] = s.node;
  schedule(it->second.timer.deadline(), Timer::suspicion, token);
}

void Node::dead_node(Millis now, const wire::Dead& d, const Address* sender, bool first_hand) {
  Member* m = find(d.node);
  if (!m) return;
  // A verdict about an older incarnation is stale: the member has since spoken for itself.
  if (d.incarnation < m->incarnation) {
    if (m->name == self_name_) {
      if (!left_) reassert_self(now, *m, d.from);
    } else if (sender) {
      answer_stale_accusation(now, *m, *sender);
    }
    return;
  }
  // Our own suspicion running out, or the member announcing its departure itself, still count
  // (the From field proves nothing: a forger writes any name there).
  if (!first_hand && !(sender && *sender == m->address) && answered_at_top(*m, d.incarnation, now))
    return;
  cancel_suspicion(d.node);
  if (m->dead_or_left()) return;
  if (m->name == self_name_ && !left_) {
    refute(now, *m, d.incarnation, sender);
    return;
  }
  broadcast(now, d.node, d);
  m->incarnation = d.incarnation;
  set_state(*m, d.node == d.from ? MemberState::left : MemberState::dead);
  m->state_change = now;
  emit(now, m->state == MemberState::left ? EventKind::left : EventKind::dead, *m, d.from);
}

void Node::reassert_self(Millis now, const Member& self, const std::string& accuser) {
  // Beyond memberlist: an accusation against our older self means the accuser missed our
  // refutation (small retransmit limits let news die out). Say it again, unchanged, to everyone
  // and straight to the accuser: a prober staples the suspicion after its ping, so our ack has
  // already left by the time we read it and cannot carry the answer.
  broadcast(now, self_name_, alive_message(self));
  if (accuser == self_name_) return;
  if (const Member* a = find(accuser); a && !a->dead_or_left())
    send(a->address, alive_message(self), /*piggyback=*/false);
}

void Node::answer_stale_accusation(Millis now, Member& m, const Address& sender) {
  // Beyond memberlist: a member passes on only news it believes, so the sender still holds an
  // accusation that m has since refuted. Gossip misses each member with a chance of about
  // e^-(retransmit limit) per piece of news (e^-12, some 6 in a million, below 1,000 members),
  // so of a thousand members that heard a false suspicion, one in a couple of hundred
  // refutations leaves one of them suspecting until its timer declares a live member dead.
  // One alive, straight back, ends that while the sender is still spreading the accusation.
  // At most once a probe interval per member: a stream of stale or forged accusations costs
  // this node one reply per member and probe interval, to wherever they claim to come from.
  if (m.state != MemberState::alive) return;
  if (m.stale_accusation_answered != Millis::min() &&
      now - m.stale_accusation_answered < config_.probe_interval)
    return;
  m.stale_accusation_answered = now;
  ++counters_.stale_accusations_answered;
  send(sender, alive_message(m), /*piggyback=*/false);
}

void Node::refute(Millis now, Member& self, Incarnation accused, const Address* sender) {
  // Only the member itself raises its incarnation, past both its own and the accusation's, but
  // never past the top: wrapped to 0, the refutation would outbid nothing ever again.
  self.incarnation = std::max(next_incarnation(self.incarnation), next_incarnation(accused));
  members_changed();
  if (config_.lifeguard.lha_probe) awareness_.apply(1);
  ++counters_.refutations;
  broadcast(now, self_name_, alive_message(self));
  emit(now, EventKind::refuted, self);
  if (self.incarnation == accused) refute_at_top(now, self, sender);
}

void Node::refute_at_top(Millis now, const Member& self, const Address* sender) {
  // Beyond memberlist. Without encryption anyone who can send UDP to a cluster can forge any
  // message: a dead at 2^32-1 repeated every few seconds kept a healthy member not alive in 64 of
  // 80 samples, since its refutation (the accusation + 1) wrapped to 0 and lost, and a forged
  // alive at 2^32-1 rewrote a member's metadata everywhere for good. At the top nobody can
  // outbid anybody, so there ties go to the member itself: members take an alive at the top
  // that differs from what they hold only from the member's own address (settles_top_tie), and
  // the member says it straight to them: to whoever passed the accusation on, and to every
  // member it knows, at most once a probe interval (one datagram each: never in normal
  // operation, where reaching the top takes 2^32 refutations). Gossip carries it too, but relayed
  // copies settle nothing; members that miss both hear it in their next exchange with the
  // member (push-pull, or Serf's reconnect if they hold it dead). A forged accusation still wins
  // at a tie, as memberlist's rule has it, until the member's answer arrives (copies of it still
  // on their way are then ignored for a while: answered_at_top): a forger without the member's
  // source address can make it look dead until its forgery reaches the member and the answer
  // comes back, not for good, and cannot keep other metadata in its name. One who can send from
  // the member's address can do anything, which only encryption prevents.
  ++counters_.incarnation_top_refutations;
  const wire::Alive alive = alive_message(self);
  if (sender && *sender != self_address_) send(*sender, alive, /*piggyback=*/false);
  if (top_refutation_sent_ != Millis::min() && now - top_refutation_sent_ < config_.probe_interval)
    return;
  top_refutation_sent_ = now;
  for (const auto& m : nodes_)
    if (m->name != self_name_ && m->state != MemberState::left &&
        (!sender || m->address != *sender))
      send(m->address, alive, /*piggyback=*/false);
}

}  // namespace vigil::swim
