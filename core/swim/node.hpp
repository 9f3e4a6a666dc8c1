// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/rng.hpp>
#include <vigil/base/time.hpp>
#include <vigil/swim/address.hpp>
#include <vigil/swim/awareness.hpp>
#include <vigil/swim/broadcast_queue.hpp>
#include <vigil/swim/config.hpp>
#include <vigil/swim/counters.hpp>
#include <vigil/swim/member.hpp>
#include <vigil/swim/member_index.hpp>
#include <vigil/swim/outbox.hpp>
#include <vigil/swim/suspicion.hpp>
#include <vigil/wire/cipher.hpp>
#include <vigil/wire/codec.hpp>
#include <vigil/wire/messages.hpp>
#include <vigil/wire/stream_frame.hpp>

namespace vigil::swim {

// The protocol versions this node advertises (pmin, pmax, pcur, dmin, dmax, dcur): memberlist's
// range 1..5 speaking 2, and delegate versions Serf accepts.
inline const wire::Bytes kVersions = {1, 5, 2, 2, 5, 5};

// One SWIM member with Lifeguard, as a state machine in the style of memberlist. The host gives
// it the time and what arrived, and takes from its outbox the datagrams to send, the full-state
// exchanges to carry and the membership events; it asks next_deadline() when to call
// handle_tick() again. No clock, socket, thread or global state inside: randomness comes from
// the Rng it is given, so a simulation replays exactly from its seed.
class Node {
 public:
  static Result<Node> create(Config config, std::string name, Address address, Rng rng,
                             Incarnation incarnation = 1, wire::Bytes meta = {});
  Node(Node&&) = default;
  Node& operator=(Node&&) = default;

  // Starts probing, gossiping and anti-entropy, and announces this node.
  void start(Millis now);
  // This node's metadata (memberlist's NodeMeta, e.g. Serf's tags), for hosts that learn it only
  // after creating the node. Before start() only: afterwards it would need a new incarnation.
  Status set_meta(wire::Bytes meta);
  // Asks each seed for a full-state exchange (memberlist's join). Once every seed has answered
  // or failed, the outbox holds a JoinResult saying which did; a join started while another is
  // still under way joins it (one result for both).
  void join(Millis now, const std::vector<Address>& seeds);
  // Knows `name` as alive without any exchange: for static bootstraps in simulations. A
  // bootstrap is not news, so no event is emitted.
  void add_member(Millis now, const std::string& name, Address address,
                  Incarnation incarnation = 1);
  // Room for `members` members (this node included) without regrowing the table.
  void reserve(std::size_t members);
  // Announces a graceful departure; the node stops probing and keeps gossiping the news.
  void leave(Millis now);
  // New timing and Lifeguard parameters (a profile change); timers already armed run out first.
  // The cluster label stays what it was: it is the cluster's identity, not a tuning.
  Status reconfigure(const Config& config);
  // memberlist's gossip encryption: with a cipher every datagram this node sends is sealed (the
  // label, if any, as associated data), and every datagram that does not open is dropped and
  // counted (GossipVerifyIncoming and GossipVerifyOutgoing, both on). Null turns it off.
  void set_cipher(std::shared_ptr<const wire::Cipher> cipher) { cipher_ = std::move(cipher); }
  const wire::Cipher* cipher() const { return cipher_.get(); }

  // `from` is the datagram's source address. A datagram whose compressed messages expand past
  // wire::max_datagram_expansion together is refused whole and counted.
  void handle_datagram(Millis now, const Address& from, std::span<const std::uint8_t> bytes);
  void handle_tick(Millis now);
  // A message arrived on a stream. A full-state exchange is merged and answered with our own
  // state; a ping (memberlist's TCP fallback when UDP probes fail, which the protocol version
  // we advertise promises to answer) is answered with an ack.
  Result<wire::Bytes> handle_stream(Millis now, const Address& from,
                                    std::span<const std::uint8_t> received);
  // Whether `bytes` hold one whole stream message: a ping or a full-state exchange (requests), an
  // ack or a full-state exchange (replies). Plaintext streams are only self-delimiting to a
  // decoder.
  static bool stream_message_complete(std::span<const std::uint8_t> bytes);
  void handle_stream_reply(Millis now, std::uint64_t id, std::span<const std::uint8_t> received);
  // `reason` says why, when the host knows (connection refused, timed out...).
  void handle_stream_failure(Millis now, std::uint64_t id, std::string_view reason = {});
  // For hosts that carry exchanges over TCP: frames a message with this node's label and cipher,
  // and reads one framed message from what a stream has delivered so far (see wire::read_stream),
  // counting refused streams. `part`: a request opens a connection, a reply answers on it.
  Result<wire::Bytes> frame_stream(std::span<const std::uint8_t> message,
                                   wire::StreamPart part) const;
  wire::StreamRead read_stream(std::span<const std::uint8_t> received, wire::StreamPart part,
                               const std::function<bool(std::span<const std::uint8_t>)>& complete);

  // The earliest time handle_tick() has work (Millis::max() when none).
  Millis next_deadline() const;
  Outbox& outbox() { return outbox_; }

  const std::string& name() const { return self_name_; }
  Address address() const { return self_address_; }
  Incarnation incarnation() const;
  bool has_left() const { return left_; }
  const Config& config() const { return config_; }
  const Counters& counters() const { return counters_; }
  int health_score() const { return awareness_.score(); }
  std::size_t pending_broadcasts() const { return broadcasts_.size(); }

  const Member* member(const std::string& name) const;
  // The suspicions this node is timing, in member-name order: for viewers that show when each
  // began, when it will declare the member dead and how many confirmations shortened it.
  struct SuspicionTimer {
    std::string member;
    Millis started{0};
    Millis deadline{0};
    int confirmations = 0;
  };
  std::vector<SuspicionTimer> suspicion_timers() const;
  // Every known member, this node included, in probe order.
  std::vector<const Member*> members() const;
  std::size_t member_count() const { return nodes_.size(); }

 private:
  enum class Timer : std::uint8_t {
    probe,
    probe_timeout,
    probe_deadline,
    gossip,
    push_pull,
    reconnect,
    join_follow_up,
    suspicion,
    relay
  };
  struct TimerEntry {
    Millis at;
    std::uint64_t order;
    Timer kind;
    std::uint64_t token;
    bool operator>(const TimerEntry& o) const { return at != o.at ? at > o.at : order > o.order; }
  };
  struct Probe {
    std::string target;
    std::uint32_t seq = 0;
    Millis started{0};
    bool indirect = false;
    int expected_nacks = 0;
    int nacks = 0;
  };
  struct Relay {  // an indirect ping we forward for someone else
    Address requester;
    std::uint32_t requester_seq = 0;
    bool nack = false;
  };
  struct PendingSuspicion {
    Suspicion timer;
    std::uint64_t token;
    Millis state_change;
  };

  Node(Config config, std::string name, Address address, Rng rng, Incarnation incarnation,
       wire::Bytes meta);

  // Timers.
  void schedule(Millis at, Timer kind, std::uint64_t token = 0);
  void fire(const TimerEntry& entry, Millis now);
  bool timer_is_dead(const TimerEntry& entry) const;
  void drop_dead_timers();

  // Probing.
  void start_probe(Millis now);
  Member* next_probe_target(Millis now);
  void reset_nodes(Millis now);
  void probe_timeout(Millis now, std::uint64_t seq);
  void finish_probe(Millis now, bool acked);

  // Dissemination.
  void gossip(Millis now);
  void push_pull(Millis now);
  void reconnect(Millis now);
  // Returns the stream's id.
  std::uint64_t exchange_with(const Member& peer, bool join);
  // A join exchange ended; the last one of a join reports the JoinResult.
  void join_exchange_ended(Millis now, std::uint64_t id, std::optional<std::string> failure);
  Millis stagger(Millis period);
  void broadcast(Millis now, const std::string& member, const wire::Message& message);
  void resume_gossip(Millis now);
  void send(const Address& to, const wire::Message& message, bool piggyback = true);
  // A message or compound as it is, or compressed (maybe_compress), then sealed and labelled.
  void send_raw(const Address& to, wire::Bytes packet);
  // The last news datagram a gossip tick compressed: the next target usually gets the very same
  // news (the queue holds less than a datagram's worth), and compressing it again for each of
  // the gossip_nodes targets was the largest cost of a member on a machine running hundreds.
  struct PackedNews {
    wire::Bytes plain;
    std::optional<wire::Bytes> packed;
  };
  // Parts of news (behind a ping or an ack, or alone) in one compound, or two if it comes out
  // larger than a datagram once compressed. With `last`, news identical to the last datagram's
  // reuses its compression, and `last` then holds this one's.
  void send_parts(const Address& to, std::vector<wire::Bytes> parts, PackedNews* last = nullptr);
  // A packet ready but for encryption and the label.
  void send_packet(const Address& to, wire::Bytes packet);
  // Bytes of a datagram left for messages once the label and the cipher take theirs.
  std::size_t news_room() const;
  // How many raw bytes of news to take for `room` bytes on the wire.
  std::size_t news_budget(std::size_t room) const;
  void learn_packing(std::size_t plain, std::size_t packed);
  // `message` as compress messages carry it, if compression is on, the message has at least
  // kMinCompressible bytes and that is shorter; nothing otherwise.
  static constexpr std::size_t kMinCompressible = 128;
  std::optional<wire::Bytes> compressed(const wire::Bytes& message) const;
  // compressed(), counted, or the message itself.
  wire::Bytes maybe_compress(wire::Bytes message);
  void count_compressed(std::size_t plain, std::size_t packed);
  void count_sent(const wire::Bytes& encoded);
  std::size_t packet_overhead() const;
  // The label as the cipher authenticates it (associated data).
  std::span<const std::uint8_t> label_bytes() const;
  struct EncodedState {
    bool join = false;
    wire::Bytes bytes;  // the exchange message
    wire::Bytes sent;   // what goes on the stream: `bytes`, compressed if that is on and saves
  };
  // Our table as a full-state exchange carries it; valid until the next members_changed().
  const EncodedState& local_state(bool join);
  wire::Bytes encode_state(bool join) const;
  // Every change to a member's fields or to the set of members calls this (not a new probe
  // order: the table is encoded in name order).
  void members_changed() { state_cache_.reset(); }
  // Whether a full-state exchange carries exactly our own view, so merging it changes nothing.
  bool is_own_view(std::span<const std::uint8_t> bytes) const;  // plain, or compressed as sent
  // `from`: the address of the peer whose exchange this node opened, when the state is its reply.
  bool is_news(const wire::PushNodeStateView& remote, const Address* from) const;
  // `quiet`: the members it brings are no news to the cluster (a lone joiner's seed reply), so
  // they are added without being gossiped on. `from`: as for is_news.
  void merge_remote_state(Millis now, const wire::PushPullView& remote, bool quiet = false,
                          const Address* from = nullptr);

  // Receiving.
  void dispatch(Millis now, const Address& from, const wire::Message& message);
  void on_ping(Millis now, const Address& from, const wire::Ping& ping);
  void on_user(Millis now, const Address& from, const wire::User& user);
  void on_indirect_ping(Millis now, const Address& from, const wire::IndirectPing& req);
  void on_ack(Millis now, const wire::Ack& ack);
  void on_nack(const wire::Nack& nack);

  // Membership rules.
  // `from`: where the alive came from, when this node knows: a datagram's source, or the peer of
  // an exchange this node opened. Only the member's own word settles a tie at the top
  // incarnation (see refute_at_top).
  void alive_node(Millis now, const wire::Alive& alive, bool bootstrap, bool quiet = false,
                  const Address* from = nullptr);
  // Whether an alive for `m` at `incarnation`, with `meta` and `vsn`, heard from `from`, is the
  // member's own word against what this node holds at the top incarnation.
  bool settles_top_tie(const Member& m, Incarnation incarnation, std::span<const std::uint8_t> meta,
                       std::span<const std::uint8_t> vsn, const Address* from) const;
  // Whether a second-hand accusation of `m` at `accused` is a copy of one that `m` has just
  // answered at the top incarnation.
  bool answered_at_top(const Member& m, Incarnation accused, Millis now) const;
  // Whether a member not yet known may join the table (Config::max_members); counts and reports
  // the refusal if not.
  bool has_room_for(Millis now, const std::string& name);
  // Gossip heard about a member learned quietly, soon after the join: see the definition.
  void pass_on_quiet_news(Millis now, Member& m);
  // `sender` is where the accusation came from, when it came in a datagram (or, about this
  // node, in the reply of an exchange it opened).
  // `first_hand`: this node's own probe failed.
  void suspect_node(Millis now, const wire::Suspect& suspect, const Address* sender = nullptr,
                    bool first_hand = false);
  // `first_hand`: this node's own suspicion ran out.
  void dead_node(Millis now, const wire::Dead& dead, const Address* sender = nullptr,
                 bool first_hand = false);
  // `sender`: as for suspect_node, when known.
  void refute(Millis now, Member& self, Incarnation accused, const Address* sender = nullptr);
  // An accusation this node cannot outbid, at the top incarnation: see the definition.
  void refute_at_top(Millis now, const Member& self, const Address* sender);
  void cancel_suspicion(const std::string& member);
  // Every state change goes through here, so dead_count_ stays exact.
  void set_state(Member& m, MemberState s);
  void emit(Millis now, EventKind kind, const Member& m, const std::string& by = {});
  // A second node claims `held`'s name from `claimed` (memberlist's "Conflicting address").
  void conflict(Millis now, const Member& held, const Address& claimed, MemberState claimed_state);

  Member* find(const std::string& name);
  Member& insert(std::unique_ptr<Member> member);
  void reassert_self(Millis now, const Member& self, const std::string& accuser);
  // `sender` passed on an accusation against an older incarnation of `m`: see the definition.
  void answer_stale_accusation(Millis now, Member& m, const Address& sender);
  wire::Alive alive_message(const Member& m) const;
  int transmit_limit() const;
  // memberlist's kRandomNodes: up to k distinct members not excluded, in at most 3n draws.
  template <typename Exclude>
  std::vector<Member*> random_members(int k, Exclude exclude) {
    std::vector<Member*> out;
    const std::size_t n = nodes_.size();
    if (k <= 0 || n == 0) return out;
    for (std::size_t i = 0; i < 3 * n && out.size() < static_cast<std::size_t>(k); ++i) {
      Member* m = nodes_[rng_.below(static_cast<std::uint32_t>(n))].get();
      if (exclude(*m) || std::find(out.begin(), out.end(), m) != out.end()) continue;
      out.push_back(m);
    }
    return out;
  }

  Config config_;
  std::shared_ptr<const wire::Cipher> cipher_;
  std::string self_name_;
  Address self_address_;
  Rng rng_;
  Awareness awareness_;
  // Raw bytes of news per byte on the wire, as the last news datagrams compressed.
  double packing_ = 1.0;
  // Until when news of members learned quietly at a lone join is passed on when heard again.
  Millis quiet_news_until_{-1};
  BroadcastQueue broadcasts_;
  Counters counters_;
  Outbox outbox_;

  std::vector<std::unique_ptr<Member>> nodes_;  // probe order, self included
  MemberIndex index_;
  std::size_t probe_index_ = 0;
  std::size_t dead_count_ = 0;  // members held dead: reconnect attempts only scan when some are

  std::priority_queue<TimerEntry, std::vector<TimerEntry>, std::greater<>> timers_;
  std::uint64_t timer_order_ = 0;
  std::uint64_t next_token_ = 1;
  std::uint64_t probe_tick_token_ = 0;
  std::uint64_t gossip_token_ = 0;
  bool gossip_idle_ = false;  // the gossip tick is off while nothing waits to be sent
  Millis gossip_next_at_{0};  // when idle: the tick that found nothing, plus one interval
  std::uint64_t push_pull_token_ = 0;
  bool push_pull_staggered_ = false;  // the first push-pull timer (the stagger) has fired
  std::uint64_t reconnect_token_ = 0;
  std::uint64_t join_follow_up_token_ = 0;
  bool lone_join_ = false;  // the last join() began knowing no other member

  std::optional<Probe> probe_;
  bool probe_tick_pending_ = false;  // a probe tick arrived while a probe was still running
  bool woke_late_ = false;  // a timer fired late since the last probe ended (see handle_tick)
  std::uint32_t seq_no_ = 0;
  std::unordered_map<std::uint32_t, Relay> relays_;
  std::unordered_map<std::string, PendingSuspicion> suspicions_;
  std::unordered_map<std::uint64_t, std::string> suspicion_tokens_;
  struct PendingExchange {
    bool join = false;
    Address to;  // the peer asked: its reply is its own word (see settles_top_tie)
  };
  std::unordered_map<std::uint64_t, PendingExchange> streams_;     // exchanges this node opened
  std::unordered_map<std::uint64_t, std::uint32_t> ping_streams_;  // TCP fallback pings: id -> seq
  std::unordered_map<std::uint64_t, Address> join_streams_;        // a join's exchanges: id -> seed
  std::optional<JoinResult> join_result_;                          // the join under way
  struct Forgotten {
    Address address;
    Millis since;
  };
  // Failed members no longer in the list, still worth a reconnect attempt (see Config).
  std::unordered_map<std::string, Forgotten> forgotten_;
  std::unordered_map<Address, Millis> introductions_;  // last exchange with an unknown prober
  std::optional<EncodedState> state_cache_;  // local_state's last encoding, while still true
  std::uint64_t next_stream_id_ = 1;
  // When refute_at_top last told every member directly (at most once a probe interval).
  Millis top_refutation_sent_{Millis::min()};
  bool member_table_full_reported_ = false;  // the one Notice::member_table_full was sent
  bool started_ = false;
  bool left_ = false;
};

}  // namespace vigil::swim
