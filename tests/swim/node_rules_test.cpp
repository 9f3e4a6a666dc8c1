#include <doctest/doctest.h>

#include <algorithm>

#include "swim/node.hpp"
#include "wire/codec.hpp"

using vigil::Millis;
using namespace vigil::swim;
namespace wire = vigil::wire;

namespace {

Address addr(int i) {
  return Address::from_octets(10, 0, 0, static_cast<std::uint8_t>(i), 7946);
}

wire::Bytes ip(int i) {
  const auto b = addr(i).ip_bytes();
  return wire::Bytes(b.begin(), b.end());
}

// Node "a" (10.0.0.1) knowing "b" (10.0.0.2) and "c" (10.0.0.3), all at incarnation 1.
Node node_a(Config config = Config::lan()) {
  auto n = Node::create(config, "a", addr(1), vigil::sim::Rng(7)).value();
  n.add_member(Millis{0}, "b", addr(2));
  n.add_member(Millis{0}, "c", addr(3));
  n.outbox().clear();
  return n;
}

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
