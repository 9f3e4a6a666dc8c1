#include <doctest/doctest.h>

#include <utility>

#include <vigil/base/rng.hpp>
#include <vigil/sim/swim_cluster.hpp>
#include <vigil/swim/node.hpp>
#include <vigil/wire/codec.hpp>
#include "support/sanitized.hpp"
#include "swim/test_addresses.hpp"

using vigil::Millis;
using namespace vigil::swim;

using vigil::swim::testing::addr;
using vigil::swim::testing::ip;

namespace {

Node started(const std::string& name, int i, Config config = Config::lan()) {
  auto n = Node::create(std::move(config), name, addr(i), vigil::Rng(static_cast<std::uint64_t>(i)))
               .value();
  n.start(Millis{0});
  n.outbox().clear();
  return n;
}

// `a` joins `b` and gets its reply at t = 12 ms.
void join(Node& a, Node& b) {
  a.join(Millis{10}, {b.address()});
  REQUIRE(a.outbox().streams.size() == 1);
  const auto request = a.outbox().streams[0];
  a.outbox().clear();
  a.handle_stream_reply(Millis{12}, request.id,
                        b.handle_stream(Millis{12}, a.address(), request.bytes).value());
  REQUIRE(a.outbox().join_results.size() == 1);
  REQUIRE(a.outbox().join_results[0].ok());
}

// A seed that knows `members` members besides itself.
Node seed(int members) {
  Node b = started("b", 2);
  for (int i = 0; i < members; ++i) b.add_member(Millis{0}, "m" + std::to_string(i), addr(100 + i));
  return b;
}

std::vector<StreamRequest> streams_until(Node& n, Millis t) {
  n.handle_tick(t);
  auto out = n.outbox().streams;
  n.outbox().clear();
  return out;
}

}  // namespace

TEST_CASE("a lone joiner keeps the member list it learns to itself") {
  Node b = seed(30);
  Node a = started("a", 1);
  join(a, b);
  CHECK(a.member_count() == 32);
  // Its own announcement only: the 31 members it learned are no news to the cluster.
  CHECK(a.pending_broadcasts() == 1);

  Config memberlist = Config::lan();
  memberlist.join_follow_up = Millis{0};
  Node b2 = seed(30);
  Node a2 = started("a", 1, memberlist);
  join(a2, b2);
  CHECK(a2.member_count() == 32);
  CHECK(a2.pending_broadcasts() == 32);  // as memberlist: every learned entry, and itself
}

TEST_CASE("join_follow_up after its join, a lone joiner exchanges states with one live member") {
  Node b = seed(30);
  Node a = started("a", 1);
  const Millis follow_up = a.config().join_follow_up;
  REQUIRE(follow_up == Millis{2000});
  join(a, b);
  CHECK(streams_until(a, Millis{12} + follow_up - Millis{1}).empty());
  const auto due = streams_until(a, Millis{12} + follow_up);
  REQUIRE(due.size() == 1);
  CHECK_FALSE(due[0].join);
  CHECK(due[0].to != a.address());
  // Once: the next exchange waits for the push-pull interval.
  CHECK(streams_until(a, Millis{12} + 3 * follow_up).empty());
}

TEST_CASE("a running member that joins another cluster spreads what it learns, as memberlist") {
  Node b = seed(5);
  Node a = started("a", 1);
  a.add_member(Millis{0}, "x", addr(50));  // a member of a's own cluster
  const auto before = a.pending_broadcasts();
  join(a, b);
  CHECK(a.member_count() == 8);  // a, x, b and b's five
  // b and its five are news to x's side of the merged cluster.
  CHECK(a.pending_broadcasts() >= before + 6);
  CHECK(streams_until(a, Millis{12} + a.config().join_follow_up).empty());
}

TEST_CASE("a cluster started at once through one seed agrees as fast as memberlist's") {
  using namespace vigil::sim;
  // Each run: when every member first sees every other alive, and the datagrams sent by 30 s.
  auto run = [](Millis follow_up, std::uint64_t seed) {
    ClusterOptions o;
    o.nodes = 100;
    o.static_membership = false;  // every node joins through node 0 at t = 0
    o.seed = seed;
    o.config.join_follow_up = follow_up;
    auto c = SwimCluster::create(o).value();
    Millis agreed = Millis::max();
    for (Millis t{100}; t <= Millis{30000}; t += Millis{100}) {
      c.run_until(t);
      if (agreed != Millis::max()) continue;
      bool all = true;
      for (std::size_t i = 0; i < c.size() && all; ++i)
        for (std::size_t j = 0; j < c.size() && all; ++j)
          if (i != j) all = c.view(i, j) && c.view(i, j)->state == MemberState::alive;
      if (all) agreed = t;
    }
    return std::pair{agreed, c.totals().datagrams_sent};
  };
  // One seed under the sanitizers (see support/sanitized.hpp), three in the ordinary build.
  const std::uint64_t seeds = vigil::test::kSanitized ? 1 : 3;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    const auto quiet = run(Millis{2000}, seed);
    const auto loud = run(Millis{0}, seed);
    const auto quiet_at = quiet.first, loud_at = loud.first;
    const auto quiet_datagrams = quiet.second, loud_datagrams = loud.second;
    INFO("seed " << seed << ": agreed at " << quiet_at.count() << " ms (" << quiet_datagrams
                 << " datagrams by 30 s) against " << loud_at.count() << " ms (" << loud_datagrams
                 << ")");
    // Here every member's news is still going round while the others join, so the joiners pass
    // nearly all of it on (see "news heard again"), and no one waits for the follow-up.
    CHECK(quiet_at <= Millis{1500});
    CHECK(quiet_at <= loud_at + Millis{500});
    CHECK(static_cast<double>(quiet_datagrams) <= 1.1 * static_cast<double>(loud_datagrams));
  }
}

TEST_CASE("news heard again of a member learned quietly is passed on, once, soon after the join") {
  Node b = seed(30);
  Node a = started("a", 1);
  join(a, b);
  REQUIRE(a.pending_broadcasts() == 1);  // its own announcement
  const auto alive_of = [](int i) {
    return vigil::wire::encode(
        vigil::wire::Alive{1, "m" + std::to_string(i), ip(100 + i), 7946, {}, kVersions});
  };
  // Still going round: a member that joined about when we did. Spread it as news.
  a.handle_datagram(Millis{500}, addr(2), alive_of(3));
  CHECK(a.pending_broadcasts() == 2);
  a.handle_datagram(Millis{600}, addr(2), alive_of(3));
  CHECK(a.pending_broadcasts() == 2);  // once only
  // After the follow-up, what is heard again is old news.
  a.handle_datagram(Millis{12} + a.config().join_follow_up + Millis{1}, addr(2), alive_of(4));
  CHECK(a.pending_broadcasts() == 2);
  // A member learned the ordinary way was gossiped when learned: hearing it again is no news.
  a.handle_datagram(
      Millis{700}, addr(2),
      vigil::wire::encode(vigil::wire::Alive{1, "late", ip(90), 7946, {}, kVersions}));
  CHECK(a.pending_broadcasts() == 3);
  a.handle_datagram(
      Millis{800}, addr(2),
      vigil::wire::encode(vigil::wire::Alive{1, "late", ip(90), 7946, {}, kVersions}));
  CHECK(a.pending_broadcasts() == 3);
}
