#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include <vigil/swim/node.hpp>
#include <vigil/wire/codec.hpp>
#include "swim/test_addresses.hpp"
#include "swim/test_nodes.hpp"

using vigil::Millis;
using namespace vigil::swim;
namespace wire = vigil::wire;

using vigil::swim::testing::addr;
using vigil::swim::testing::ip;
using vigil::swim::testing::node_a;

namespace {

void feed(Node& n, const wire::Message& m, int from = 3, Millis now = Millis{10}) {
  n.handle_datagram(now, addr(from), wire::encode(m));
}

MemberState state(const Node& n, const std::string& who) {
  return n.member(who)->state;
}

// Every message the node put on the wire, compound parts unpacked.
std::vector<std::pair<Address, wire::Message>> sent(Node& n) {
  std::vector<std::pair<Address, wire::Message>> out;
  for (const auto& d : n.outbox().datagrams) {
    auto msgs = wire::decode_packet(d.bytes);
    REQUIRE(msgs.ok());
    for (auto& m : *msgs) out.emplace_back(d.to, m);
  }
  n.outbox().datagrams.clear();
  return out;
}

template <typename T>
std::vector<T> of_type(const std::vector<std::pair<Address, wire::Message>>& msgs) {
  std::vector<T> out;
  for (const auto& [to, m] : msgs)
    if (auto p = std::get_if<T>(&m)) out.push_back(*p);
  return out;
}

// Nodes "b" and "c" seeing the same cluster as node_a(), having learned it in another order; "c"
// at `incarnation`.
Node node_b() {
  auto n = Node::create(Config::lan(), "b", addr(2), vigil::Rng(99)).value();
  n.add_member(Millis{0}, "c", addr(3));
  n.add_member(Millis{0}, "a", addr(1));
  return n;
}
Node node_c(Incarnation incarnation) {
  auto n = Node::create(Config::lan(), "c", addr(3), vigil::Rng(5), incarnation).value();
  n.add_member(Millis{0}, "a", addr(1));
  n.add_member(Millis{0}, "b", addr(2));
  return n;
}

// `n`'s answer to the full-state exchange `request`.
wire::Bytes answer(Node& n, Millis now, const wire::Bytes& request) {
  auto reply = n.handle_stream(now, addr(9), request);
  REQUIRE(reply.ok());
  return *reply;
}

// A periodic full-state exchange that knows nothing: the reply is the node's whole table.
wire::Bytes empty_exchange() {
  wire::Bytes request;
  wire::encode_push_pull(wire::PushPull{false, {}, {}}, request);
  return request;
}

// The node's table as a full-state exchange answers it.
wire::PushPull table_of(Node& n, Millis now) {
  auto reply = n.handle_stream(now, addr(9), empty_exchange());
  REQUIRE(reply.ok());
  // Sent compressed when that saves bytes (the default, as memberlist's EnableCompression).
  if (!reply->empty() && (*reply)[0] == static_cast<std::uint8_t>(wire::MessageType::compress))
    reply = wire::open_compressed(std::span<const std::uint8_t>(*reply).subspan(1));
  REQUIRE(reply.ok());
  auto state = wire::decode_push_pull(*reply);
  REQUIRE(state.ok());
  return *state;
}

}  // namespace

TEST_CASE("an alive at the same incarnation loses to suspect; a higher one wins") {
  auto n = node_a();
  feed(n, wire::Suspect{1, "b", "c"});
  CHECK(state(n, "b") == MemberState::suspect);
  feed(n, wire::Alive{1, "b", ip(2), 7946, {}, kVersions});
  CHECK(state(n, "b") == MemberState::suspect);  // bad news wins at equal incarnation
  feed(n, wire::Alive{2, "b", ip(2), 7946, {}, kVersions});
  CHECK(state(n, "b") == MemberState::alive);
  CHECK(n.member("b")->incarnation == 2);
}

TEST_CASE("suspect needs an incarnation at least the known one") {
  auto n = node_a();
  feed(n, wire::Alive{3, "b", ip(2), 7946, {}, kVersions});
  feed(n, wire::Suspect{2, "b", "c"});
  CHECK(state(n, "b") == MemberState::alive);
  feed(n, wire::Suspect{3, "b", "c"});
  CHECK(state(n, "b") == MemberState::suspect);
}

TEST_CASE("alive overrides alive only with a strictly higher incarnation") {
  auto n = node_a();
  feed(n, wire::Alive{5, "b", ip(2), 7946, {}, kVersions});
  CHECK(n.member("b")->incarnation == 5);
  feed(n, wire::Alive{4, "b", ip(2), 7946, {9}, kVersions});
  CHECK(n.member("b")->meta.empty());  // older news ignored
}

TEST_CASE("dead overrides alive and suspect at its incarnation, not a newer one") {
  auto n = node_a();
  feed(n, wire::Suspect{1, "b", "c"});
  feed(n, wire::Dead{1, "b", "c"});
  CHECK(state(n, "b") == MemberState::dead);
  feed(n, wire::Alive{2, "c", ip(3), 7946, {}, kVersions});
  feed(n, wire::Dead{1, "c", "b"});  // about an incarnation c has since outgrown
  CHECK(state(n, "c") == MemberState::alive);
  feed(n, wire::Dead{2, "c", "c"});  // c announces it is leaving
  CHECK(state(n, "c") == MemberState::left);
}

TEST_CASE(
    "only the member itself raises its incarnation: others' claims cannot clear a suspicion") {
  auto n = node_a();
  feed(n, wire::Suspect{1, "b", "c"});
  // c vouches for b, but can only repeat b's incarnation.
  feed(n, wire::Alive{1, "b", ip(2), 7946, {}, kVersions}, 3);
  CHECK(state(n, "b") == MemberState::suspect);
}

TEST_CASE("an accused node refutes with max(own + 1, accused + 1) and says so") {
  auto n = node_a();
  CHECK(n.incarnation() == 1);
  feed(n, wire::Suspect{1, "a", "c"});
  CHECK(n.incarnation() == 2);
  CHECK(state(n, "a") == MemberState::alive);
  REQUIRE(!n.outbox().events.empty());
  CHECK(n.outbox().events.back().kind == EventKind::refuted);
  feed(n, wire::Dead{7, "a", "c"});  // an accusation from the future
  CHECK(n.incarnation() == 8);
  CHECK(n.counters().refutations == 2);
  // The refutation travels piggybacked on the next message we send.
  feed(n, wire::Ping{42, "a", {}, 0, "c"});
  auto alive = of_type<wire::Alive>(sent(n));
  REQUIRE(!alive.empty());
  CHECK(alive.front().node == "a");
  CHECK(alive.front().incarnation == 8);
}

TEST_CASE("pings are answered to the source address, and only when meant for us") {
  auto n = node_a();
  feed(n, wire::Ping{9, "a", ip(2), 7946, "b"}, 3);
  auto out = sent(n);
  auto acks = of_type<wire::Ack>(out);
  REQUIRE(acks.size() == 1);
  CHECK(acks[0].seq_no == 9);
  CHECK(out.front().first == addr(2));
  feed(n, wire::Ping{10, "someone-else", {}, 0, "b"}, 3);
  CHECK(of_type<wire::Ack>(sent(n)).empty());
}

TEST_CASE("an indirect ping is relayed: ack forwarded, or a nack after the probe timeout") {
  auto n = node_a();
  feed(n, wire::IndirectPing{77, ip(2), 7946, "b", true, ip(3), 7946, "c"}, 3, Millis{100});
  auto pings = of_type<wire::Ping>(sent(n));
  REQUIRE(pings.size() == 1);
  CHECK(pings[0].node == "b");
  // b answers: the ack goes back to c under c's sequence number.
  feed(n, wire::Ack{pings[0].seq_no, {}}, 2, Millis{110});
  auto acks = of_type<wire::Ack>(sent(n));
  REQUIRE(acks.size() == 1);
  CHECK(acks[0].seq_no == 77);
  // A second request that b never answers ends in a nack once the probe timeout passes.
  feed(n, wire::IndirectPing{78, ip(2), 7946, "b", true, ip(3), 7946, "c"}, 3, Millis{200});
  sent(n);
  n.handle_tick(Millis{200} + n.config().probe_timeout);
  auto nacks = of_type<wire::Nack>(sent(n));
  REQUIRE(nacks.size() == 1);
  CHECK(nacks[0].seq_no == 78);
}

TEST_CASE("garbage and foreign labels are counted and change nothing") {
  auto n = node_a();
  const wire::Bytes junk = {0xFF, 0x00, 0x13, 0x37};
  n.handle_datagram(Millis{1}, addr(3), junk);
  n.handle_datagram(Millis{1}, addr(3), wire::Bytes{});
  auto labelled =
      wire::add_label("other-cluster", wire::encode(wire::Suspect{1, "b", "c"})).value();
  n.handle_datagram(Millis{1}, addr(3), labelled);
  CHECK(n.counters().datagrams_rejected == 3);
  CHECK(state(n, "b") == MemberState::alive);
}

TEST_CASE("a failed probe leads to suspicion, then death after the suspicion timeout") {
  Config c = Config::lan();
  c.lifeguard.lha_suspicion = false;  // fixed timeout: min = 4 s for 3 members
  auto n = node_a(c);
  n.start(Millis{0});
  // Nobody answers anything: run 12 s of ticks.
  for (Millis t{0}; t <= Millis{12000}; t += Millis{10}) {
    n.handle_tick(t);
    n.outbox().datagrams.clear();
  }
  const auto& events = n.outbox().events;
  const auto first_suspect = std::find_if(
      events.begin(), events.end(), [](const Event& e) { return e.kind == EventKind::suspect; });
  REQUIRE(first_suspect != events.end());
  const auto dead = std::find_if(events.begin(), events.end(), [&](const Event& e) {
    return e.kind == EventKind::dead && e.member == first_suspect->member;
  });
  REQUIRE(dead != events.end());
  CHECK(dead->at - first_suspect->at == Millis{4000});
  CHECK(n.counters().probes_failed >= 2);
}

TEST_CASE("reconfigure swaps timing parameters and rejects invalid ones") {
  auto n = node_a();
  Config local = Config::local();
  REQUIRE(n.reconfigure(local).ok());
  CHECK(n.config().probe_timeout == Millis{200});
  Config bad = Config::lan();
  bad.probe_interval = Millis{0};
  CHECK_FALSE(n.reconfigure(bad).ok());
  CHECK(n.config().probe_timeout == Millis{200});
}

TEST_CASE("a ping from a stranger prompts one state exchange with it, not one per ping") {
  auto n = node_a();
  feed(n, wire::Ping{1, "a", ip(9), 7946, "zed"}, 9, Millis{100});
  REQUIRE(n.outbox().streams.size() == 1);
  CHECK(n.outbox().streams[0].to == addr(9));
  n.outbox().clear();
  feed(n, wire::Ping{2, "a", ip(9), 7946, "zed"}, 9, Millis{200});
  CHECK(n.outbox().streams.empty());  // rate-limited
  feed(n, wire::Ping{3, "a", ip(2), 7946, "b"}, 2, Millis{300});
  CHECK(n.outbox().streams.empty());  // b is known: nothing to learn
}

TEST_CASE("an accusation against an older self is answered by announcing the current self") {
  auto n = node_a();
  feed(n, wire::Suspect{1, "a", "c"});  // refute: incarnation 2
  n.outbox().clear();
  feed(n, wire::Suspect{1, "a", "b"});  // b missed the refutation
  CHECK(n.incarnation() == 2);          // no new incarnation for old news
  feed(n, wire::Ping{5, "a", {}, 0, "b"}, 2);
  auto alive = of_type<wire::Alive>(sent(n));
  REQUIRE_FALSE(alive.empty());
  CHECK(alive.front().incarnation == 2);
}

TEST_CASE("a stale accusation stapled after a ping is answered straight to the prober") {
  auto n = node_a();
  feed(n, wire::Suspect{1, "a", "c"});  // refute: incarnation 2
  // c's pings carry the refutation until its retransmit limit is spent.
  for (std::uint32_t seq = 1; seq <= 20; ++seq) feed(n, wire::Ping{seq, "a", {}, 0, "c"});
  REQUIRE(of_type<wire::Alive>(sent(n)).size() < 20);
  feed(n, wire::Ping{21, "a", {}, 0, "c"});
  REQUIRE(of_type<wire::Alive>(sent(n)).empty());
  // b missed the refutation and probes with memberlist's compound [ping, suspect]: the ack
  // leaves before the suspicion is read, so the answer needs a datagram of its own.
  auto compound = wire::make_compound(
      {wire::encode(wire::Ping{5, "a", {}, 0, "b"}), wire::encode(wire::Suspect{1, "a", "b"})});
  REQUIRE(compound);
  n.handle_datagram(Millis{20}, addr(2), *compound);
  int alive_to_b = 0;
  for (const auto& [to, m] : sent(n))
    if (auto a = std::get_if<wire::Alive>(&m); a && to == addr(2) && a->incarnation == 2)
      ++alive_to_b;
  CHECK(alive_to_b >= 1);
  CHECK(n.incarnation() == 2);
  // A dead member's stale accusation is not answered directly: it would not be listening.
  feed(n, wire::Dead{1, "c", "b"});
  feed(n, wire::Suspect{1, "a", "c"});
  for (const auto& [to, m] : sent(n)) CHECK(to != addr(3));
}

TEST_CASE("a full-state exchange always sends the table as it is now") {
  // The encoded table is reused between exchanges; every kind of change must show in the next.
  auto n = node_a();
  auto exchange = [&](Millis now) {
    std::map<std::string, std::pair<std::uint32_t, wire::NodeState>> table;
    for (const auto& s : table_of(n, now).nodes) table[s.name] = {s.incarnation, s.state};
    return table;
  };
  using S = wire::NodeState;
  auto t = exchange(Millis{10});
  CHECK(t.size() == 3);
  CHECK(t["b"] == std::pair{1u, S::alive});
  CHECK(exchange(Millis{11}) == t);  // nothing changed, nothing differs

  feed(n, wire::Suspect{1, "b", "c"});
  CHECK(exchange(Millis{12})["b"] == std::pair{1u, S::suspect});
  feed(n, wire::Alive{2, "b", ip(2), 7946, {}, vigil::swim::kVersions});
  CHECK(exchange(Millis{13})["b"] == std::pair{2u, S::alive});
  feed(n, wire::Alive{3, "b", ip(2), 7946, {}, vigil::swim::kVersions});  // alive to alive
  CHECK(exchange(Millis{14})["b"] == std::pair{3u, S::alive});
  feed(n, wire::Dead{3, "c", "b"});
  CHECK(exchange(Millis{15})["c"] == std::pair{3u, S::dead});
  feed(n, wire::Suspect{1, "a", "b"});  // refutation raises our own incarnation
  CHECK(exchange(Millis{16})["a"] == std::pair{2u, S::alive});
  feed(n, wire::Alive{1, "d", ip(4), 7946, {}, vigil::swim::kVersions});  // a newcomer
  CHECK(exchange(Millis{17}).count("d") == 1);
}

TEST_CASE("members that see the cluster alike send the same full state, whatever their order") {
  // "a" learns b then c; "b" learns c then a, and both have shuffled their probe order.
  auto a = node_a();
  auto b = node_b();
  a.start(Millis{0});
  b.start(Millis{0});
  const wire::Bytes empty = empty_exchange();
  const wire::Bytes from_a = answer(a, Millis{1}, empty);
  const wire::Bytes from_b = answer(b, Millis{1}, empty);
  CHECK(from_a == from_b);

  // So each recognises the other's state as its own and skips the merge.
  CHECK(a.counters().exchanges_unchanged == 0);
  CHECK(answer(a, Millis{2}, from_b) == from_a);
  CHECK(a.counters().exchanges_unchanged == 1);
  CHECK(a.member_count() == 3);
  // Also on a node's very first exchange, before it ever encoded its table.
  auto fresh = node_a();
  answer(fresh, Millis{2}, from_b);
  CHECK(fresh.counters().exchanges_unchanged == 1);

  // A view that differs in one incarnation is merged the long way, and the news taken.
  auto newer = node_c(4);
  answer(a, Millis{3}, answer(newer, Millis{1}, empty));
  CHECK(a.counters().exchanges_unchanged == 1);
  CHECK(a.member("c")->incarnation == 4);
}

TEST_CASE("the node that started an exchange skips merging a reply equal to its own view") {
  // Probes are pushed out of the way so that no suspicion is pending when the replies arrive.
  Config config = Config::lan();
  config.probe_interval = Millis{3600000};
  config.push_pull_interval = Millis{1000};
  auto a = node_a(config);
  a.start(Millis{0});
  auto next_exchange = [&](Millis& t) {
    for (; a.outbox().streams.empty(); t += Millis{100}) {
      REQUIRE(t < Millis{10000});
      a.outbox().clear();
      a.handle_tick(t);
    }
    auto request = a.outbox().streams.front();
    a.outbox().clear();
    return request;
  };
  Millis t{0};
  auto first = next_exchange(t);
  auto b = node_b();
  a.handle_stream_reply(t, first.id, answer(b, t, first.bytes));
  CHECK(a.counters().exchanges_unchanged == 1);

  // A reply with news goes through the merge and is taken.
  auto second = next_exchange(t);
  auto newer = node_c(4);
  a.handle_stream_reply(t, second.id, answer(newer, t, second.bytes));
  CHECK(a.counters().exchanges_unchanged == 1);
  CHECK(a.member("c")->incarnation == 4);
}

TEST_CASE("a member forgotten after gossip-to-the-dead time leaves the next full state") {
  auto n = node_a();
  n.start(Millis{0});
  feed(n, wire::Dead{1, "c", "b"}, 3, Millis{10});
  auto names = [&](Millis now) {
    std::vector<std::string> out;
    for (const auto& s : table_of(n, now).nodes) out.push_back(s.name);
    return out;
  };
  CHECK(names(Millis{20}) == std::vector<std::string>{"a", "b", "c"});
  // Probe rounds go on (b never answers either); c is dropped once dead for longer than
  // gossip-to-the-dead time, at the next reshuffle of the probe order.
  const Millis until = n.config().gossip_to_the_dead_time + n.config().probe_interval * 20;
  for (Millis t{100}; t < until; t += Millis{100}) {
    n.handle_tick(t);
    n.outbox().clear();
  }
  REQUIRE(n.member("c") == nullptr);
  const auto after = names(until);
  CHECK(std::find(after.begin(), after.end(), "c") == after.end());
}

TEST_CASE("our own view is merged the long way while a suspicion is pending") {
  // A remote suspect entry confirms a pending suspicion even when it matches our own table.
  auto n = node_a();
  feed(n, wire::Suspect{1, "b", "c"});
  auto own = n.handle_stream(Millis{11}, addr(9), empty_exchange());
  REQUIRE(own.ok());
  n.outbox().clear();
  auto reply = n.handle_stream(Millis{12}, addr(3), *own);
  REQUIRE(reply.ok());
  CHECK(*reply == *own);
  CHECK(n.counters().exchanges_unchanged == 0);
  CHECK(state(n, "b") == MemberState::suspect);
}

TEST_CASE("gossip sleeps while nothing waits to be sent, and resumes on its own schedule") {
  Config config = Config::lan();  // gossip every 200 ms to 3 members, probes every second
  config.round_based = true;      // no random phases: the first gossip tick is at 200 ms
  config.push_pull_interval = Millis{0};
  config.reconnect_interval = Millis{0};
  auto n = node_a(config);
  n.start(Millis{0});  // queues our own alive; 4 transmissions: 3 at 200 ms, 1 at 400 ms
  auto gossiped = [&](Millis now) {
    n.handle_tick(now);
    auto msgs = sent(n);
    return of_type<wire::Alive>(msgs).size() + of_type<wire::Suspect>(msgs).size();
  };
  CHECK(gossiped(Millis{200}) == 2);  // only two other members to tell
  CHECK(gossiped(Millis{400}) == 2);
  CHECK(n.pending_broadcasts() == 0);
  n.handle_tick(Millis{600});  // the tick that finds nothing to say
  // No more gossip ticks: the next wake-up is the first probe, not 800 ms.
  CHECK(n.next_deadline() == Millis{1000});
  n.handle_tick(Millis{1000});
  sent(n);
  // News at 1,130 ms goes out at 1,200 ms, the tick the schedule would have reached anyway.
  n.handle_datagram(Millis{1130}, addr(3), wire::encode(wire::Suspect{1, "b", "c"}));
  sent(n);
  CHECK(n.next_deadline() <= Millis{1200});
  CHECK(gossiped(Millis{1199}) == 0);
  CHECK(gossiped(Millis{1200}) > 0);
}

TEST_CASE("a ping over a stream (memberlist's TCP fallback) is answered with its ack") {
  Node a = node_a();
  const wire::Bytes ping = wire::encode(wire::Ping{
      .seq_no = 77, .node = "a", .source_addr = {}, .source_port = 0, .source_node = ""});
  CHECK(Node::stream_message_complete(ping));
  CHECK_FALSE(Node::stream_message_complete(std::span(ping).first(ping.size() - 1)));
  auto reply = a.handle_stream(Millis{10}, addr(2), ping);
  REQUIRE(reply.ok());
  CHECK(wire::decode_message(*reply).value() == wire::Message{wire::Ack{77, {}}});
  CHECK(a.counters().stream_pings_answered == 1);
  // A ping meant for someone else (a restarted agent at a reused address) is refused.
  const wire::Bytes other = wire::encode(wire::Ping{
      .seq_no = 78, .node = "z", .source_addr = {}, .source_port = 0, .source_node = ""});
  CHECK_FALSE(a.handle_stream(Millis{10}, addr(2), other).ok());
  CHECK(a.counters().stream_pings_answered == 1);
  // Any other single message is not a stream request.
  const wire::Bytes nack = wire::encode(wire::Nack{.seq_no = 1});
  CHECK_FALSE(Node::stream_message_complete(nack));
  CHECK_FALSE(a.handle_stream(Millis{10}, addr(2), nack).ok());
}

TEST_CASE("user messages are handed up as bytes, and at most 256 wait undrained") {
  Node a = node_a();
  feed(a, wire::User{{0x01, 0x02, 0x03}}, 2);
  REQUIRE(a.outbox().user_messages.size() == 1);
  CHECK(a.outbox().user_messages[0].payload == wire::Bytes{0x01, 0x02, 0x03});
  CHECK(a.outbox().user_messages[0].from == addr(2));
  CHECK(sent(a).empty());  // nothing for membership to answer
  for (int i = 0; i < 300; ++i) feed(a, wire::User{{static_cast<std::uint8_t>(i)}}, 2);
  CHECK(a.outbox().user_messages.size() == Outbox::kMaxUserMessages);
  CHECK(a.counters().user_messages == 301);
  CHECK(a.counters().user_messages_dropped == 301 - Outbox::kMaxUserMessages);
  a.outbox().clear();
  feed(a, wire::User{{0x09}}, 2);
  CHECK(a.outbox().user_messages.size() == 1);
}

TEST_CASE(
    "with the TCP fallback on, a UDP probe timeout also pings over a stream, which can save it") {
  Config config = Config::lan();
  config.tcp_fallback_ping = true;
  Node a = node_a(config);
  // Probe until the probe times out without a UDP ack; the stream ping goes to the target.
  a.start(Millis{0});
  Millis now{0};
  std::optional<StreamRequest> fallback;
  for (int step = 0; step < 40 && !fallback; ++step) {
    now = a.next_deadline();
    a.handle_tick(now);
    for (const auto& s : a.outbox().streams) {
      auto m = wire::decode_message(s.bytes);
      if (m && std::holds_alternative<wire::Ping>(*m)) fallback = s;
    }
    a.outbox().streams.clear();
    a.outbox().datagrams.clear();
  }
  REQUIRE(fallback.has_value());
  const auto ping = std::get<wire::Ping>(wire::decode_message(fallback->bytes).value());
  CHECK(a.counters().stream_pings_sent == 1);
  CHECK(fallback->to == (ping.node == "b" ? addr(2) : addr(3)));
  // A wrong sequence number does not count; the right ack finishes the probe as a success.
  const auto failed_before = a.counters().probes_failed;
  a.handle_stream_reply(now, fallback->id, wire::encode(wire::Ack{ping.seq_no, {}}));
  CHECK(a.counters().stream_pings_acked == 1);
  CHECK(a.counters().probes_failed == failed_before);
  CHECK(state(a, ping.node) == MemberState::alive);
  for (const auto& e : a.outbox().events) CHECK(e.kind != EventKind::suspect);
}

TEST_CASE("without the TCP fallback (the simulations), a timed-out probe sends no stream ping") {
  Node a = node_a();
  a.start(Millis{0});
  for (int step = 0; step < 40; ++step) {
    a.handle_tick(a.next_deadline());
    for (const auto& s : a.outbox().streams) {
      auto m = wire::decode_message(s.bytes);
      CHECK_FALSE((m && std::holds_alternative<wire::Ping>(*m)));
    }
    a.outbox().clear();
  }
  CHECK(a.counters().stream_pings_sent == 0);
  CHECK(a.counters().probes_failed > 0);
}

TEST_CASE("metadata set before start is this node's; after start it is refused and kept") {
  Node n = Node::create(Config::lan(), "m", addr(9), vigil::Rng(9)).value();
  REQUIRE(n.set_meta(wire::Bytes{0xFF, 0x80}));
  CHECK(n.member("m")->meta == wire::Bytes{0xFF, 0x80});
  n.start(Millis{0});
  CHECK_FALSE(n.set_meta(wire::Bytes{1}));
  CHECK(n.member("m")->meta == wire::Bytes{0xFF, 0x80});
}

TEST_CASE(
    "the first full-state exchange waits an interval scaled to the cluster known after the "
    "stagger") {
  // memberlist's pushPullTrigger: a random stagger below PushPullInterval, then
  // pushPullScale(interval, n) with n as known then. A node that knows only itself at start and
  // 199 members a moment later scales by ceil(log2(200) - log2(32)) + 1 = 4: its first exchange
  // comes 120-150 s after start, not 30-60 s.
  Config config = Config::lan();
  config.reconnect_interval = Millis{0};  // the members never answer: no exchanges with the dead
  auto n = Node::create(config, "a", addr(1), vigil::Rng(11)).value();
  n.start(Millis{0});
  for (int i = 2; i <= 200; ++i)
    n.add_member(
        Millis{1}, "m" + std::to_string(i),
        Address::from_octets(10, 0, i / 250 + 1, static_cast<std::uint8_t>(i % 250), 7946));
  REQUIRE(n.members().size() == 200);
  std::optional<Millis> first;
  for (Millis t{2}; t < Millis{200000} && !first; t += Millis{100}) {
    n.handle_tick(t);
    if (!n.outbox().streams.empty()) first = t;
    n.outbox().clear();
  }
  REQUIRE(first.has_value());
  CHECK(*first >= Millis{120000});
  CHECK(*first < Millis{150100});
}

namespace {

// Ticks `n` from `from` to `to` every 10 ms, acking every ping it sends at once.
void run_acking(Node& n, Millis from, Millis to) {
  for (Millis t = from; t <= to; t += Millis{10}) {
    n.handle_tick(t);
    for (const auto& [peer, m] : sent(n))
      if (auto ping = std::get_if<wire::Ping>(&m))
        n.handle_datagram(t, peer, wire::encode(wire::Ack{ping->seq_no, {}}));
  }
}

}  // namespace

TEST_CASE("timers that fire half a probe timeout late count against local health") {
  for (const bool lha_probe : {true, false}) {
    CAPTURE(lha_probe);
    Config c = Config::lan();
    c.lifeguard.lha_probe = lha_probe;
    auto n = node_a(c);
    n.start(Millis{0});
    run_acking(n, Millis{0}, Millis{5000});
    REQUIRE(n.counters().probes >= 4);
    CHECK(n.health_score() == 0);
    CHECK(n.counters().late_timers == 0);

    // Woken 249 ms after the next probe was due: not late enough to count.
    Millis due = n.next_deadline();
    run_acking(n, due + Millis{249}, due + Millis{249});
    CHECK(n.counters().late_timers == 0);
    CHECK(n.health_score() == 0);

    // Woken 250 ms late (half of the LAN's 500 ms probe timeout): that probe is acked at once,
    // yet it raises the score instead of lowering it.
    const auto probes = n.counters().probes;
    due = n.next_deadline();
    run_acking(n, due + Millis{250}, due + Millis{250});
    CHECK(n.counters().late_timers == 1);
    CHECK(n.counters().probes == probes + 1);
    CHECK(n.counters().probes_failed == 0);
    CHECK(n.health_score() == (lha_probe ? 1 : 0));

    // On time again, the next acked probe brings it back.
    due = n.next_deadline();
    run_acking(n, due, due + Millis{990});
    CHECK(n.counters().late_timers == 1);
    CHECK(n.health_score() == 0);
  }
}

TEST_CASE("a forwarded accusation against a refuted incarnation is answered with the alive") {
  auto n = node_a();
  feed(n, wire::Alive{2, "c", ip(3), 7946, {}, kVersions}, 3, Millis{10});
  sent(n);

  // "b" passes on a suspicion of "c" at incarnation 1: it missed the refutation.
  feed(n, wire::Suspect{1, "c", "d"}, 2, Millis{100});
  auto out = sent(n);
  auto alives = of_type<wire::Alive>(out);
  REQUIRE(alives.size() == 1);
  CHECK(alives[0].node == "c");
  CHECK(alives[0].incarnation == 2);
  CHECK(out[0].first == addr(2));
  CHECK(state(n, "c") == MemberState::alive);
  CHECK(n.counters().stale_accusations_answered == 1);

  // Within a probe interval of that answer, further stale news about "c" gets none.
  feed(n, wire::Dead{1, "c", "d"}, 2, Millis{1099});
  CHECK(of_type<wire::Alive>(sent(n)).empty());
  // A probe interval later it does, for a stale verdict too.
  feed(n, wire::Dead{1, "c", "d"}, 2, Millis{1100});
  alives = of_type<wire::Alive>(sent(n));
  REQUIRE(alives.size() == 1);
  CHECK(alives[0].incarnation == 2);
  CHECK(n.counters().stale_accusations_answered == 2);

  // News at the current incarnation is believed, not answered; once "c" is suspect, an older
  // accusation gets no alive either (this node no longer vouches for it).
  feed(n, wire::Suspect{2, "c", "d"}, 2, Millis{3000});
  CHECK(of_type<wire::Alive>(sent(n)).empty());
  CHECK(state(n, "c") == MemberState::suspect);
  feed(n, wire::Suspect{1, "c", "d"}, 2, Millis{5000});
  CHECK(of_type<wire::Alive>(sent(n)).empty());
  CHECK(n.counters().stale_accusations_answered == 2);
}
