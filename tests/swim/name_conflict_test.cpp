#include <doctest/doctest.h>

#include <vector>

#include <vigil/swim/node.hpp>
#include <vigil/wire/codec.hpp>
#include "swim/test_addresses.hpp"

using vigil::Millis;
using namespace vigil::swim;
namespace wire = vigil::wire;

using vigil::swim::testing::addr;
using vigil::swim::testing::ip;

namespace {

Node make(const std::string& name, int at, std::uint64_t seed, Incarnation incarnation = 1) {
  return Node::create(Config::lan(), name, addr(at), vigil::Rng(seed), incarnation).value();
}

std::vector<Event> events_of(Node& n, EventKind kind) {
  std::vector<Event> out;
  for (const auto& e : n.outbox().events)
    if (e.kind == kind) out.push_back(e);
  return out;
}

// Carries `joiner`'s join exchange to `seed` and the answer back, as the agent's TCP link does.
void join_through(Node& joiner, Node& seed, Millis now) {
  joiner.join(now, {seed.address()});
  REQUIRE(joiner.outbox().streams.size() == 1);
  const StreamRequest request = joiner.outbox().streams.front();
  joiner.outbox().streams.clear();
  auto reply = seed.handle_stream(now, joiner.address(), request.bytes);
  REQUIRE(reply.ok());
  joiner.handle_stream_reply(now, request.id, *reply);
}

}  // namespace

TEST_CASE("an alive naming a live member from another address is a conflict, not an update") {
  auto n = make("a", 1, 7);
  n.add_member(Millis{0}, "b", addr(2), 3);
  n.outbox().clear();
  n.handle_datagram(Millis{10}, addr(5),
                    wire::encode(wire::Alive{9, "b", ip(5), 7946, {}, kVersions}));
  const Member* b = n.member("b");
  CHECK(b->address == addr(2));
  CHECK(b->incarnation == 3);
  CHECK(b->state == MemberState::alive);
  CHECK(n.counters().name_conflicts == 1);
  const auto conflicts = events_of(n, EventKind::conflict);
  REQUIRE(conflicts.size() == 1);
  CHECK(conflicts[0].member == "b");
  CHECK(conflicts[0].address == addr(2));
  CHECK(conflicts[0].claimed == addr(5));
  CHECK(conflicts[0].claimed_state == MemberState::alive);
  CHECK(events_of(n, EventKind::join).empty());
  CHECK(n.outbox().datagrams.empty());  // the claim is not gossiped on
}

TEST_CASE("a suspect or dead member's name is held too; only a member that left gives it up") {
  auto n = make("a", 1, 7);
  n.add_member(Millis{0}, "b", addr(2), 1);
  n.add_member(Millis{0}, "c", addr(3), 1);
  n.handle_datagram(Millis{10}, addr(3), wire::encode(wire::Dead{1, "b", "c"}));
  n.handle_datagram(Millis{10}, addr(2), wire::encode(wire::Dead{1, "c", "c"}));  // c leaves
  REQUIRE(n.member("b")->state == MemberState::dead);
  REQUIRE(n.member("c")->state == MemberState::left);
  n.outbox().clear();
  n.handle_datagram(Millis{20}, addr(6),
                    wire::encode(wire::Alive{2, "b", ip(6), 7946, {}, kVersions}));
  n.handle_datagram(Millis{20}, addr(7),
                    wire::encode(wire::Alive{2, "c", ip(7), 7946, {}, kVersions}));
  CHECK(n.member("b")->address == addr(2));
  CHECK(n.member("b")->state == MemberState::dead);
  CHECK(n.member("c")->address == addr(7));
  CHECK(n.member("c")->state == MemberState::alive);
  CHECK(n.counters().name_conflicts == 1);
  const auto conflicts = events_of(n, EventKind::conflict);
  REQUIRE(conflicts.size() == 1);
  CHECK(conflicts[0].member == "b");
  CHECK(events_of(n, EventKind::join).size() == 1);
}

TEST_CASE("an alive for our own name from another address is reported, never refuted") {
  auto n = make("a", 1, 7);
  n.add_member(Millis{0}, "b", addr(2));
  n.outbox().clear();
  n.handle_datagram(Millis{10}, addr(5),
                    wire::encode(wire::Alive{4, "a", ip(5), 7946, {}, kVersions}));
  CHECK(n.incarnation() == 1);
  CHECK(n.counters().refutations == 0);
  CHECK(n.counters().name_conflicts == 1);
  const auto conflicts = events_of(n, EventKind::conflict);
  REQUIRE(conflicts.size() == 1);
  CHECK(conflicts[0].member == "a");
  CHECK(conflicts[0].address == addr(1));
  CHECK(conflicts[0].claimed == addr(5));
}

TEST_CASE(
    "a newcomer taking a live member's name: both the holder and the newcomer see the conflict") {
  auto holder = make("dup", 1, 7, 2);
  holder.start(Millis{0});
  holder.add_member(Millis{0}, "b", addr(2));
  holder.outbox().clear();
  auto newcomer = make("dup", 5, 11);
  newcomer.start(Millis{0});
  newcomer.outbox().clear();

  join_through(newcomer, holder, Millis{100});

  // The holder read the newcomer's state: its own record stands, and nothing was refuted.
  CHECK(holder.counters().name_conflicts == 1);
  CHECK(holder.member("dup")->address == addr(1));
  CHECK(holder.incarnation() == 2);
  CHECK(holder.counters().refutations == 0);
  const auto held = events_of(holder, EventKind::conflict);
  REQUIRE(held.size() == 1);
  CHECK(held[0].address == addr(1));
  CHECK(held[0].claimed == addr(5));

  // The newcomer read the holder's answer: it learned the cluster, and that its name is taken.
  CHECK(newcomer.counters().name_conflicts == 1);
  CHECK(newcomer.member("b") != nullptr);
  CHECK(newcomer.incarnation() == 1);
  CHECK(newcomer.counters().refutations == 0);
  const auto seen = events_of(newcomer, EventKind::conflict);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].member == "dup");
  CHECK(seen[0].address == addr(5));
  CHECK(seen[0].claimed == addr(1));
  CHECK(seen[0].claimed_state == MemberState::alive);
}

TEST_CASE(
    "a full state calling our name suspect or dead at another address is about another node") {
  auto peer = make("b", 2, 3);
  peer.add_member(Millis{0}, "dup", addr(1), 4);
  peer.handle_datagram(Millis{10}, addr(3), wire::encode(wire::Dead{4, "dup", "c"}));
  REQUIRE(peer.member("dup")->state == MemberState::dead);
  auto newcomer = make("dup", 5, 11);
  newcomer.start(Millis{0});
  newcomer.outbox().clear();
  join_through(newcomer, peer, Millis{100});
  CHECK(newcomer.incarnation() == 1);
  CHECK(newcomer.counters().refutations == 0);
  CHECK(newcomer.counters().name_conflicts == 1);
  const auto seen = events_of(newcomer, EventKind::conflict);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].claimed == addr(1));
  CHECK(seen[0].claimed_state == MemberState::dead);
  // The peer keeps its dead record: the name moves only after it is forgotten.
  CHECK(peer.member("dup")->address == addr(1));
  CHECK(peer.counters().name_conflicts == 1);
}

TEST_CASE("a member restarted at the same address rejoins above its old incarnation, no conflict") {
  auto peer = make("b", 2, 3);
  peer.add_member(Millis{0}, "dup", addr(1), 6);  // the crashed process, still believed alive
  auto restarted = make("dup", 1, 11);
  restarted.start(Millis{0});
  restarted.outbox().clear();
  join_through(restarted, peer, Millis{100});
  CHECK(restarted.incarnation() == 7);
  CHECK(restarted.counters().refutations == 1);
  CHECK(restarted.counters().name_conflicts == 0);
  CHECK(peer.counters().name_conflicts == 0);
  // Its new alive reaches the peer, which takes it.
  peer.handle_datagram(Millis{110}, addr(1),
                       wire::encode(wire::Alive{7, "dup", ip(1), 7946, {}, kVersions}));
  CHECK(peer.member("dup")->incarnation == 7);
  CHECK(peer.member("dup")->state == MemberState::alive);
  CHECK(peer.counters().name_conflicts == 0);
}
