#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include <vigil/sim/swim_cluster.hpp>
#include <vigil/swim/node.hpp>
#include <vigil/wire/codec.hpp>
#include "swim/test_addresses.hpp"
#include "swim/test_nodes.hpp"

using vigil::Millis;
using namespace vigil::swim;
namespace wire = vigil::wire;
namespace sim = vigil::sim;

using vigil::swim::testing::addr;
using vigil::swim::testing::ip;
using vigil::swim::testing::node_a;

namespace {

constexpr Incarnation kTop = kMaxIncarnation;

// Node "a" (10.0.0.1) knowing "b" (10.0.0.2) and "c" (10.0.0.3), all at incarnation 1.
void feed(Node& n, const wire::Message& m, int from, Millis now = Millis{10}) {
  n.handle_datagram(now, addr(from), wire::encode(m));
}

wire::Alive alive_b(Incarnation incarnation, wire::Bytes meta = {}) {
  return wire::Alive{incarnation, "b", ip(2), 7946, std::move(meta), kVersions};
}

// The alives for `name` that the node sent alone (not piggybacked): where each went.
std::vector<Address> straight_alives(Node& n, const std::string& name, Incarnation incarnation) {
  std::vector<Address> out;
  for (const auto& d : n.outbox().datagrams) {
    auto messages = wire::decode_packet(d.bytes);
    REQUIRE(messages.ok());
    if (messages->size() != 1) continue;
    if (const auto* a = std::get_if<wire::Alive>(&messages->front()))
      if (a->node == name && a->incarnation == incarnation) out.push_back(d.to);
  }
  n.outbox().datagrams.clear();
  return out;
}

bool has(const std::vector<Address>& list, const Address& a) {
  return std::find(list.begin(), list.end(), a) != list.end();
}

}  // namespace

TEST_CASE("incarnations saturate at 2^32-1: a refutation never wraps") {
  static_assert(next_incarnation(5) == 6);
  static_assert(next_incarnation(kTop) == kTop);
  auto n = node_a();
  feed(n, wire::Suspect{kTop - 1, "a", "c"}, 3);
  CHECK(n.incarnation() == kTop);  // outbids the accusation, as below the top
  CHECK(n.counters().refutations == 1);
  CHECK(n.counters().incarnation_top_refutations == 0);
  feed(n, wire::Dead{kTop, "a", "c"}, 3);
  CHECK(n.incarnation() == kTop);  // not 0
  CHECK(n.member("a")->state == MemberState::alive);
  CHECK(n.counters().refutations == 2);
  CHECK(n.counters().incarnation_top_refutations == 1);
}

TEST_CASE("an accusation at the top is answered at the top, straight to the sender and to all") {
  auto n = node_a();
  // From a stranger at 10.0.0.9 (a forger, or a member we do not know yet).
  feed(n, wire::Dead{kTop, "a", "b"}, 9);
  CHECK(n.incarnation() == kTop);
  auto to = straight_alives(n, "a", kTop);
  CHECK(to.size() == 3);
  CHECK(has(to, addr(9)));
  CHECK(has(to, addr(2)));
  CHECK(has(to, addr(3)));
  CHECK(n.outbox().events.back().kind == EventKind::refuted);
  CHECK(n.pending_broadcasts() > 0);  // gossiped too

  // Again within a probe interval: only to whoever passed it on.
  feed(n, wire::Suspect{kTop, "a", "c"}, 3, Millis{500});
  to = straight_alives(n, "a", kTop);
  CHECK(to == std::vector<Address>{addr(3)});
  // A probe interval later, to every member again.
  feed(n, wire::Suspect{kTop, "a", "c"}, 3, Millis{1010});
  to = straight_alives(n, "a", kTop);
  CHECK(to.size() == 2);
  CHECK(has(to, addr(2)));
  CHECK(has(to, addr(3)));
  CHECK(n.counters().incarnation_top_refutations == 3);
}

TEST_CASE("an alive about itself at the top with other metadata is answered at the top") {
  auto n = node_a();
  feed(n, wire::Alive{kTop, "a", ip(1), 7946, {0xee}, kVersions}, 3);
  CHECK(n.incarnation() == kTop);
  CHECK(n.member("a")->meta.empty());  // its own metadata, not the forger's
  const auto to = straight_alives(n, "a", kTop);
  CHECK(has(to, addr(2)));
  CHECK(has(to, addr(3)));
  CHECK(n.counters().incarnation_top_refutations == 1);
  // The same with its own metadata is no news.
  feed(n, wire::Alive{kTop, "a", ip(1), 7946, {}, kVersions}, 3, Millis{2000});
  CHECK(n.counters().incarnation_top_refutations == 1);
}

TEST_CASE("ties at the top go to the member itself, heard from its own address") {
  auto n = node_a();
  feed(n, wire::Dead{kTop, "b", "c"}, 3);
  REQUIRE(n.member("b")->state == MemberState::dead);
  // Relayed by c: a tie, ignored as memberlist ignores it.
  feed(n, alive_b(kTop), 3);
  CHECK(n.member("b")->state == MemberState::dead);
  // From b's own address: b's word wins.
  n.outbox().events.clear();
  feed(n, alive_b(kTop), 2);
  CHECK(n.member("b")->state == MemberState::alive);
  CHECK(n.member("b")->incarnation == kTop);
  REQUIRE(!n.outbox().events.empty());
  CHECK(n.outbox().events.back().kind == EventKind::join);

  // Within a probe interval of b's own word, a second-hand accusation at the top is a copy of
  // the forgery b has just answered, still on its way: ignored, or it would undo the answer.
  feed(n, wire::Dead{kTop, "b", "c"}, 3, Millis{500});
  feed(n, wire::Dead{kTop, "b", "a"}, 3, Millis{600});  // naming this node as the accuser
  feed(n, wire::Suspect{kTop, "b", "c"}, 3, Millis{1009});
  CHECK(n.member("b")->state == MemberState::alive);
  // Later ones count as ever (bad news wins a tie), and b's word settles them again.
  feed(n, wire::Suspect{kTop, "b", "c"}, 3, Millis{1010});
  CHECK(n.member("b")->state == MemberState::suspect);
  feed(n, alive_b(kTop), 2, Millis{1020});
  CHECK(n.member("b")->state == MemberState::alive);
  CHECK(n.suspicion_timers().empty());

  // Metadata: a forged alive at the top wins once (it outbids), then only b changes it back.
  auto m = node_a();
  feed(m, alive_b(kTop, {0xee}), 3);
  CHECK(m.member("b")->meta == wire::Bytes{0xee});
  feed(m, alive_b(kTop), 3);
  CHECK(m.member("b")->meta == wire::Bytes{0xee});
  m.outbox().events.clear();
  feed(m, alive_b(kTop), 2);
  CHECK(m.member("b")->meta.empty());
  REQUIRE(!m.outbox().events.empty());
  CHECK(m.outbox().events.back().kind == EventKind::updated);
  // And a second copy of the forgery, relayed or not from b's address, changes nothing now.
  feed(m, alive_b(kTop, {0xee}), 3);
  CHECK(m.member("b")->meta.empty());
}

TEST_CASE("below the top, an alive from the member itself at a tie still loses") {
  auto n = node_a();
  feed(n, wire::Suspect{5, "b", "c"}, 3);
  feed(n, alive_b(5), 2);
  CHECK(n.member("b")->state == MemberState::suspect);
  feed(n, wire::Alive{5, "b", ip(2), 7946, {0xee}, kVersions}, 2);
  CHECK(n.member("b")->meta.empty());
}

TEST_CASE("the reply of an exchange opened to the member settles a tie at the top") {
  auto n = node_a();
  feed(n, alive_b(kTop, {0xee}), 3);
  REQUIRE(n.member("b")->meta == wire::Bytes{0xee});
  const auto reply_with_b = [] {
    wire::PushPull p;
    p.nodes.push_back(
        wire::PushNodeState{"b", ip(2), 7946, {}, kTop, wire::NodeState::alive, kVersions});
    wire::Bytes out;
    wire::encode_push_pull(p, out);
    return out;
  }();
  n.join(Millis{20}, {addr(3), addr(2)});
  REQUIRE(n.outbox().streams.size() == 2);
  const auto to_c = n.outbox().streams[0], to_b = n.outbox().streams[1];
  REQUIRE(to_c.to == addr(3));
  REQUIRE(to_b.to == addr(2));
  // c's reply speaks for b: a tie, ignored.
  n.handle_stream_reply(Millis{30}, to_c.id, reply_with_b);
  CHECK(n.member("b")->meta == wire::Bytes{0xee});
  // b's reply speaks for itself.
  n.handle_stream_reply(Millis{30}, to_b.id, reply_with_b);
  CHECK(n.member("b")->meta.empty());
  CHECK(n.member("b")->incarnation == kTop);
  // A full state b sends us (an exchange it opened) settles nothing: TCP's source port is not
  // its address.
  feed(n, alive_b(kTop, {0xee}), 2);  // b's own word again, now with other metadata
  REQUIRE(n.member("b")->meta == wire::Bytes{0xee});
  CHECK(n.handle_stream(Millis{40}, addr(2), reply_with_b).ok());
  CHECK(n.member("b")->meta == wire::Bytes{0xee});
}

// ------------------------------------------------------------------- the same, cluster-wide

namespace {

constexpr std::size_t kAccused = 3;
const Address kForger = Address::from_octets(192, 0, 2, 1, 7946);  // outside the cluster

sim::SwimCluster cluster_of(std::size_t n) {
  sim::ClusterOptions o;
  o.nodes = n;
  o.config = Config::lan();
  o.seed = 1;
  return sim::SwimCluster::create(o).value();
}

// Whether every other member holds `observed` alive at `incarnation` with `meta`.
bool all_hold(const sim::SwimCluster& c, std::size_t observed, Incarnation incarnation,
              const wire::Bytes& meta) {
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (i == observed) continue;
    const Member* m = c.view(i, observed);
    if (!m || m->state != MemberState::alive || m->incarnation != incarnation || m->meta != meta)
      return false;
  }
  return true;
}

// Members (observer, observed) pairs not holding `observed` alive, over the whole cluster.
std::size_t not_alive(const sim::SwimCluster& c, std::size_t observed) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (i == observed) continue;
    const Member* m = c.view(i, observed);
    if (!m || m->state != MemberState::alive) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE(
    "a forged death at the top, repeated, cannot keep a member dead: it ends alive everywhere") {
  auto c = cluster_of(8);
  const Config& config = c.config();
  c.run_for(Millis{5000});
  REQUIRE(all_hold(c, kAccused, 1, {}));
  // Every 5 s for a minute, to one member only: everyone else, the accused included, hears of
  // it second-hand, by gossip (a gossip interval per hop, to gossip_nodes members at a time).
  const wire::Bytes forged = wire::encode(wire::Dead{kTop, c.name(kAccused), c.name(0)});
  std::size_t samples = 0, dead_samples = 0, forgeries = 0, alive_a_probe_interval_later = 0;
  for (int k = 0; k < 12; ++k) {
    c.inject(0, kForger, forged);
    ++forgeries;
    for (int s = 0; s < 50; ++s) {  // sampled every 100 ms
      c.run_for(Millis{100});
      ++samples;
      dead_samples += not_alive(c, kAccused);
      // Once the forgery reached the accused, its answer reached everyone in one hop: a probe
      // interval is five gossip rounds, enough for the news to find the accused among 8.
      if (Millis{100} * (s + 1) == config.probe_interval && not_alive(c, kAccused) == 0)
        ++alive_a_probe_interval_later;
    }
  }
  MESSAGE("views of the accused not alive: ", dead_samples, " of ", samples * (c.size() - 1));
  CHECK(alive_a_probe_interval_later == forgeries);
  CHECK(c.node(kAccused).incarnation() == kTop);
  CHECK(c.node(kAccused).counters().incarnation_top_refutations >= forgeries);
  // A member that missed every answer would still hold the accused dead; it exchanges state
  // with it (Serf's reconnect) within one reconnect interval, and the reply is the accused's own
  // word. After that bound every member holds it alive, at the top, with its own metadata.
  c.run_for(config.reconnect_interval);
  CHECK(all_hold(c, kAccused, kTop, {}));
  // Only the forgery accused anyone: no probe failed, and every other member stays as it was.
  CHECK(c.totals().probes_failed == 0);
  for (std::size_t i = 0; i < c.size(); ++i)
    if (i != kAccused) CHECK(all_hold(c, i, 1, {}));
}

TEST_CASE("a forged death at the top sent to every member is undone within a round trip") {
  auto c = cluster_of(8);
  c.run_for(Millis{5000});
  const wire::Bytes forged = wire::encode(wire::Dead{kTop, c.name(kAccused), c.name(0)});
  for (std::size_t i = 0; i < c.size(); ++i) c.inject(i, kForger, forged);
  // The accused heard it first-hand and told every member straight away: one link's delay.
  c.run_for(Millis{static_cast<long long>(c.network().default_link().delay.mean_ms * 3) + 1});
  CHECK(all_hold(c, kAccused, kTop, {}));
  CHECK(c.node(kAccused).counters().incarnation_top_refutations >= 1);
}

TEST_CASE("a forged alive at the top with other metadata: the member's own metadata wins back") {
  auto c = cluster_of(8);
  const Config& config = c.config();
  c.run_for(Millis{5000});
  const std::string name = c.name(kAccused);
  const Address at = sim::SwimCluster::address_of(kAccused);
  const auto ip_bytes = at.ip_bytes();
  const wire::Bytes forged = wire::encode(wire::Alive{
      kTop, name, wire::Bytes(ip_bytes.begin(), ip_bytes.end()), at.port, {0xee}, kVersions});
  c.inject(0, kForger, forged);
  c.inject(1, kForger, forged);
  // The forgery outbids everywhere it arrives first; the accused answers it as soon as it hears
  // of it, second-hand here, and at the latest in its next full-state exchange (its push-pull
  // timer: the first after a random stagger of up to one interval, then one interval later).
  c.run_for(config.push_pull_interval * 2);
  CHECK(all_hold(c, kAccused, kTop, {}));
  CHECK(c.node(kAccused).member(name)->meta.empty());
  CHECK(c.node(kAccused).counters().incarnation_top_refutations >= 1);
  // Sent again, it is a tie no longer from the member: nobody takes it.
  for (std::size_t i = 0; i < c.size(); ++i)
    if (i != kAccused) c.inject(i, kForger, forged);
  c.run_for(Millis{1000});
  CHECK(all_hold(c, kAccused, kTop, {}));
}

TEST_CASE("below the top a forged death is refuted as memberlist refutes it") {
  auto c = cluster_of(8);
  c.run_for(Millis{5000});
  c.inject(0, kForger, wire::encode(wire::Dead{1, c.name(kAccused), c.name(0)}));
  c.run_for(c.config().reconnect_interval);
  CHECK(c.node(kAccused).incarnation() == 2);
  CHECK(c.node(kAccused).counters().incarnation_top_refutations == 0);
  CHECK(all_hold(c, kAccused, 2, {}));
}
