#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <utility>

#include <vigil/sim/swim_cluster.hpp>

#include "support/sanitized.hpp"

using vigil::Millis;
using namespace vigil::sim;
using vigil::swim::EventKind;
using vigil::swim::MemberState;

namespace {

SwimCluster cluster(std::size_t n, vigil::swim::Config config = vigil::swim::Config::lan(),
                    std::uint32_t seed = 1) {
  ClusterOptions o;
  o.nodes = n;
  o.config = std::move(config);
  o.seed = seed;
  return SwimCluster::create(o).value();
}

std::vector<ClusterEvent> record(SwimCluster& c) {
  return {c.events().begin(), c.events().end()};
}

bool everyone_sees(const SwimCluster& c, std::size_t observed, MemberState s) {
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (i == observed || !c.is_up(i)) continue;
    const auto* m = c.view(i, observed);
    if (!m || m->state != s) return false;
  }
  return true;
}

// Dead, or already forgotten after gossip-to-the-dead time.
bool everyone_buried(const SwimCluster& c, std::size_t observed) {
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (i == observed || !c.is_up(i)) continue;
    const auto* m = c.view(i, observed);
    if (m && m->state != MemberState::dead) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("SWIM: each node sends one probe per period, whatever the cluster size") {
  for (std::size_t n : {3u, 10u}) {
    auto c = cluster(n);
    c.run_until(Millis{50'000});
    for (std::size_t i = 0; i < n; ++i) {
      const auto probes = c.node(i).counters().probes;
      CHECK(probes >= 49);  // one per second after a random phase in the first second
      CHECK(probes <= 50);
      CHECK(c.node(i).counters().indirect_probes == 0);
    }
    // All-to-all heartbeating would send n(n-1) messages a period; SWIM sends n pings.
    const auto pings = c.totals().messages_sent[0];
    CHECK(pings <= 50 * n);
  }
}

TEST_CASE("SWIM: news reaches nodes that never spoke with its source") {
  auto c = cluster(10);
  c.run_until(Millis{5000});
  // node-3 can now only talk to node-0; everyone else must hear of its departure second-hand.
  for (std::size_t j = 1; j < 10; ++j) {
    if (j == 3) continue;
    c.network().block(3, j);
    c.network().block(j, 3);
  }
  c.leave(3);
  c.run_until(Millis{15000});
  CHECK(everyone_sees(c, 3, MemberState::left));
}

TEST_CASE("SWIM: cutting a->b keeps b alive in a's view through indirect probes") {
  auto c = cluster(5);
  c.network().block(0, 1);  // a cannot reach b; b still reaches a, and others reach both
  c.run_until(Millis{120'000});
  for (const auto& e : record(c)) {
    const bool about_b_by_a = e.observer == 0 && e.event.member == "node-1";
    CHECK_FALSE(
        (about_b_by_a && (e.event.kind == EventKind::suspect || e.event.kind == EventKind::dead)));
  }
  CHECK(c.view(0, 1)->state == MemberState::alive);
  CHECK(c.node(0).counters().indirect_probes > 0);
  CHECK(c.node(0).counters().probes_failed == 0);
}

TEST_CASE("SWIM: with nobody to ask, a starts suspecting b") {
  SUBCASE("two nodes") {
    auto c = cluster(2);
    c.network().block(0, 1);
    c.run_until(Millis{10'000});
    bool suspected = false;
    for (const auto& e : record(c))
      suspected |=
          e.observer == 0 && e.event.member == "node-1" && e.event.kind == EventKind::suspect;
    CHECK(suspected);
  }
  SUBCASE("indirect checks 0") {
    auto config = vigil::swim::Config::lan();
    config.indirect_checks = 0;
    auto c = cluster(5, config);
    c.network().block(0, 1);
    c.run_until(Millis{30'000});
    bool suspected = false;
    for (const auto& e : record(c))
      suspected |=
          e.observer == 0 && e.event.member == "node-1" && e.event.kind == EventKind::suspect;
    CHECK(suspected);
  }
}

TEST_CASE("SWIM: a longer suspicion timeout delays the death") {
  auto death_after_kill = [](int suspicion_mult) {
    auto config = vigil::swim::Config::teaching();
    config.suspicion_mult = suspicion_mult;
    auto c = cluster(5, config, 3);
    c.run_until(Millis{3000});
    c.kill(4);
    c.run_until(Millis{60'000});
    for (const auto& e : record(c))
      if (e.event.kind == EventKind::dead && e.event.member == "node-4")
        return e.event.at - Millis{3000};
    return Millis::max();
  };
  const Millis short_timeout = death_after_kill(2);
  const Millis long_timeout = death_after_kill(6);
  CHECK(short_timeout < Millis{60'000});
  CHECK(long_timeout < Millis{60'000});
  CHECK(long_timeout - short_timeout >= Millis{3000});  // 4 more probe periods of suspicion
}

TEST_CASE("SWIM: a revived member refutes with a higher incarnation") {
  auto c = cluster(5);
  c.run_until(Millis{2000});
  c.kill(2);
  c.run_until(Millis{25'000});
  CHECK(everyone_sees(c, 2, MemberState::dead));
  c.revive(2);
  c.run_until(Millis{50'000});
  CHECK(everyone_sees(c, 2, MemberState::alive));
  for (std::size_t i = 0; i < 5; ++i)
    if (i != 2) CHECK(c.view(i, 2)->incarnation >= 2);
}

TEST_CASE("incarnations only ever come from the member itself") {
  auto config = vigil::swim::Config::lan();
  vigil::sim::LinkModel lossy;
  lossy.loss = 0.2;  // plenty of false suspicions and refutations
  ClusterOptions o;
  o.nodes = 8;
  o.config = config;
  o.link = lossy;
  auto c = SwimCluster::create(o).value();
  std::size_t refutations = 0;
  c.on_event([&](const ClusterEvent& e) {
    if (e.event.kind == EventKind::refuted) {
      CHECK(c.name(e.observer) == e.event.member);  // only the accused announces a refutation
      ++refutations;
    }
  });
  c.run_until(Millis{120'000});
  CHECK(refutations > 0);
  // No one believes an incarnation higher than the member's own.
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = 0; j < 8; ++j)
      if (const auto* m = c.view(i, j)) CHECK(m->incarnation <= c.node(j).incarnation());
}

TEST_CASE("a crash is detected by everyone within the profile's bound") {
  auto c = cluster(10, vigil::swim::Config::local());
  c.run_until(Millis{3000});
  c.kill(7);
  // local profile, 10 members: suspicion lasts 3 * 1 * 1 s = 3 s at least, 18 s at most; a probe
  // reaches node-7 within 2N-1 periods.
  c.run_until(Millis{3000 + 19'000 + 18'000});
  CHECK(everyone_buried(c, 7));
}

TEST_CASE("a partition makes each side declare the other dead; healing reconverges") {
  auto c = cluster(10, vigil::swim::Config::local());
  c.run_until(Millis{2000});
  c.network().partition({{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}});
  c.run_until(Millis{60'000});
  for (std::size_t i = 0; i < 10; ++i)
    for (std::size_t j = 0; j < 10; ++j) {
      const bool same_side = (i < 5) == (j < 5);
      if (i == j) continue;
      const auto* m = c.view(i, j);
      if (same_side)
        CHECK(m->state == MemberState::alive);
      else
        CHECK((m == nullptr || m->state == MemberState::dead));
    }
  c.network().heal();
  c.run_until(Millis{180'000});
  for (std::size_t j = 0; j < 10; ++j) CHECK(everyone_sees(c, j, MemberState::alive));
}

TEST_CASE("a short pause is suspected, refuted, and nobody declares the node dead") {
  auto c = cluster(5);
  c.run_until(Millis{3000});
  c.pause(2, Millis{2500});
  c.run_until(Millis{60'000});
  bool suspected = false;
  for (const auto& e : record(c)) {
    CHECK_FALSE((e.event.member == "node-2" && e.event.kind == EventKind::dead));
    suspected |= e.event.member == "node-2" && e.event.kind == EventKind::suspect;
  }
  CHECK(suspected);
  CHECK(c.node(2).incarnation() >= 2);
  CHECK(everyone_sees(c, 2, MemberState::alive));
}

TEST_CASE("joining through one seed spreads the whole membership") {
  ClusterOptions o;
  o.nodes = 12;
  o.static_membership = false;
  auto c = SwimCluster::create(o).value();
  c.run_until(Millis{30'000});
  for (std::size_t j = 0; j < 12; ++j) CHECK(everyone_sees(c, j, MemberState::alive));
}

TEST_CASE("dead members are forgotten after gossip-to-the-dead time") {
  auto c = cluster(5, vigil::swim::Config::local());
  c.run_until(Millis{1000});
  c.kill(4);
  c.run_until(Millis{120'000});
  for (std::size_t i = 0; i < 4; ++i) CHECK(c.view(i, 4) == nullptr);
}

TEST_CASE("the same seed replays the same run") {
  auto run = [] {
    vigil::sim::LinkModel lossy;
    lossy.loss = 0.05;
    lossy.delay = DelayModel::normal(5, 2);
    ClusterOptions o;
    o.nodes = 20;
    o.link = lossy;
    o.seed = 77;
    auto c = SwimCluster::create(o).value();
    c.run_until(Millis{20'000});
    c.kill(3);
    c.run_until(Millis{60'000});
    const auto t = c.totals();
    return std::tuple{t.datagrams_sent, t.bytes_sent, t.suspicions, c.events().size()};
  };
  CHECK(run() == run());
}

namespace {
// Crash one member just before a round boundary and count rounds until someone suspects it.
double rounds_to_first_suspicion(const vigil::swim::Config& config, std::size_t n,
                                 std::uint32_t seed) {
  auto c = cluster(n, config, seed);
  const Millis period = config.probe_interval;
  c.run_until(period * 3 - Millis{1});
  const Millis crash = c.now();
  c.kill(n - 1);
  Millis first = Millis::max();
  c.on_event([&](const ClusterEvent& e) {
    if (e.event.kind == EventKind::suspect && e.event.member == c.name(n - 1) &&
        first == Millis::max())
      first = e.event.at;
  });
  c.run_until(crash + period * (4 * static_cast<long>(n)));
  REQUIRE(first != Millis::max());
  // A probe sent in round r fails at the start of round r + 1.
  return std::floor(static_cast<double>((first - crash).count()) /
                    static_cast<double>(period.count()));
}
}  // namespace

TEST_CASE("random probing detects a crash after e/(e-1) rounds on average") {
  const std::size_t n = 30;
  const int trials = vigil::test::kSanitized ? 60 : 300;  // see support/sanitized.hpp
  double sum = 0;
  for (int t = 0; t < trials; ++t)
    sum += rounds_to_first_suspicion(vigil::swim::Config::teaching(), n, 100 + t);
  const double mean = sum / trials;
  // Rounds until one of n-1 probers picks the victim: geometric with
  // p = 1 - (1 - 1/(n-1))^(n-1) (-> 1 - 1/e), mean 1/p, variance (1-p)/p^2.
  const double p = 1 - std::pow(1 - 1.0 / (n - 1), n - 1);
  const double sd_of_mean = std::sqrt((1 - p) / (p * p) / trials);
  CHECK(std::abs(mean - 1 / p) < 3 * sd_of_mean);
  // The limit for large n, within 0.2: 3.7 standard errors of the mean at 300 trials, but only
  // 1.6 at the sanitizers' 60.
  if (!vigil::test::kSanitized)
    CHECK(std::abs(mean - std::numbers::e / (std::numbers::e - 1)) < 0.2);
}

TEST_CASE("round-robin probing never takes more than 2N-1 rounds to detect a crash") {
  auto config = vigil::swim::Config::teaching();
  config.random_probing = false;
  const std::size_t n = 12;
  double worst = 0;
  for (int t = 0; t < 200; ++t)
    worst = std::max(worst, rounds_to_first_suspicion(config, n, 500 + t));
  CHECK(worst <= 2.0 * n - 1);
  CHECK(worst >= 2);  // the bound is not vacuous: some crashes wait
}

TEST_CASE("reconfigure reaches every node and later restarts") {
  auto c = cluster(4);
  auto config = vigil::swim::Config::local();
  config.lifeguard = vigil::swim::Lifeguard{false, false, false};
  REQUIRE(c.reconfigure(config).ok());
  for (std::size_t i = 0; i < 4; ++i) CHECK(c.node(i).config().probe_timeout == Millis{200});
  c.kill(1);
  c.revive(1);
  CHECK_FALSE(c.node(1).config().lifeguard.lha_probe);
  config.probe_interval = Millis{0};
  CHECK_FALSE(c.reconfigure(config).ok());
}

TEST_CASE("a graceful leave reaches every member even with the smallest retransmit limit") {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    auto c = cluster(6, vigil::swim::Config::local(), seed);
    c.run_until(Millis{2000});
    c.leave(5);
    c.run_until(Millis{2500});
    CHECK(everyone_sees(c, 5, MemberState::left));
  }
}

TEST_CASE("the packet tap sees every datagram with its fate and flight time") {
  auto c = cluster(4);
  std::vector<PacketTrace> seen;
  c.on_packet([&](const PacketTrace& p) {
    PacketTrace copy = p;
    copy.bytes = {};
    seen.push_back(copy);
  });
  c.network().block(1, 2);
  c.run_until(Millis{5000});
  REQUIRE(!seen.empty());
  std::size_t delivered = 0, blocked = 0;
  for (const auto& p : seen) {
    CHECK(p.from < 4);
    CHECK(p.to < 4);
    if (p.fate == PacketTrace::Fate::delivered) {
      ++delivered;
      if (!p.stream) CHECK(p.arrives == p.sent + Millis{1});  // the default link's constant delay
    } else {
      CHECK(p.fate == PacketTrace::Fate::blocked);
      CHECK(p.from == 1);
      CHECK(p.to == 2);
      CHECK(p.arrives == p.sent);
      ++blocked;
    }
  }
  CHECK(blocked > 0);
  // Every datagram the nodes sent was traced exactly once.
  std::uint64_t datagrams = 0;
  for (const auto& p : seen) datagrams += p.stream ? 0 : 1;
  CHECK(datagrams == c.totals().datagrams_sent);
}

TEST_CASE("stepping event by event reaches the same state as running") {
  auto run = cluster(6, vigil::swim::Config::lan(), 7);
  auto stepped = cluster(6, vigil::swim::Config::lan(), 7);
  run.kill(3);
  stepped.kill(3);
  run.run_until(Millis{8000});
  std::size_t steps = 0;
  while (stepped.next_event_time() <= Millis{8000}) {
    const Millis due = stepped.next_event_time();
    REQUIRE(stepped.step());
    CHECK(stepped.now() == due);
    ++steps;
  }
  CHECK(steps > 100);
  CHECK(stepped.totals().datagrams_sent == run.totals().datagrams_sent);
  CHECK(stepped.totals().suspicions == run.totals().suspicions);
  CHECK(record(stepped).size() == record(run).size());
}

TEST_CASE("a node lists the suspicions it is timing until they end") {
  auto c = cluster(5);
  c.kill(3);
  // Step until some survivor times a suspicion of node-3.
  std::optional<std::size_t> timing;
  for (int i = 0; i < 200000 && !timing && c.step(); ++i)
    for (std::size_t n = 0; n < c.size(); ++n)
      if (c.is_up(n) && !c.node(n).suspicion_timers().empty()) timing = n;
  REQUIRE(timing);
  const auto timers = c.node(*timing).suspicion_timers();
  REQUIRE(timers.size() == 1);
  CHECK(timers[0].member == "node-3");
  CHECK(timers[0].started <= c.now());
  CHECK(timers[0].deadline > c.now());
  CHECK(c.view(*timing, 3)->state == MemberState::suspect);
  // Once the member is declared dead the timer is gone.
  c.run_until(timers[0].deadline + Millis{1});
  CHECK(c.view(*timing, 3)->state == MemberState::dead);
  CHECK(c.node(*timing).suspicion_timers().empty());
}

TEST_CASE("hosts started later join through the seeds; a host never started stays down") {
  ClusterOptions o;
  o.nodes = 6;
  o.static_membership = false;
  o.started = 3;
  o.join_seeds = 2;
  auto c = SwimCluster::create(o).value();
  c.run_for(Millis{3000});
  CHECK_FALSE(c.is_up(4));
  CHECK_FALSE(c.view(0, 4));
  c.revive(4);  // only a host that ran can be restarted
  CHECK_FALSE(c.is_up(4));
  c.start(4);
  c.run_for(Millis{3000});
  for (std::size_t i : {0u, 1u, 2u, 4u})
    for (std::size_t j : {0u, 1u, 2u, 4u})
      if (i != j) CHECK((c.view(i, j) && c.view(i, j)->state == MemberState::alive));
  CHECK_FALSE(c.view(0, 5));

  ClusterOptions bad = o;
  bad.started = 7;
  CHECK_FALSE(SwimCluster::create(bad).ok());
  bad = o;
  bad.join_seeds = 0;
  CHECK_FALSE(SwimCluster::create(bad).ok());
}
