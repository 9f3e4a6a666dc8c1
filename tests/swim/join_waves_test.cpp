#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <vigil/sim/swim_cluster.hpp>

#include "support/sanitized.hpp"

// Clusters that grow in waves, as operators start them: three seeds, then 50 agents at a time,
// each joining through the three seeds, the next wave once the last one is known everywhere.
// The first two tests are claims about clusters of 200 and 400 members, which take minutes
// under the sanitizers: that build skips them (see support/sanitized.hpp) and runs the third,
// one cluster of 200 that takes the same code paths.
using vigil::Millis;
using namespace vigil::sim;

namespace {

// Pairs of running hosts where one does not hold the other alive.
std::size_t pairs_apart(const SwimCluster& c, std::size_t up) {
  std::size_t apart = 0;
  for (std::size_t i = 0; i < up; ++i)
    for (std::size_t j = 0; j < up; ++j) {
      if (i == j) continue;
      const auto* m = c.view(i, j);
      if (!m || m->state != vigil::swim::MemberState::alive) ++apart;
    }
  return apart;
}

bool gossip_done(const SwimCluster& c, std::size_t up) {
  for (std::size_t i = 0; i < up; ++i)
    if (c.node(i).pending_broadcasts() > 0) return false;
  return true;
}

struct Growth {
  std::vector<Millis> waves;  // from a wave's first start until everyone knows everyone
  Millis slowest_wave{0};
  std::uint64_t datagrams = 0, bytes = 0;
  std::uint64_t compressed = 0, compressions_reused = 0;
};

// Grows a cluster to `nodes` in waves of 50 started 1 ms apart; each wave waits for agreement
// and for the gossip to end.
Growth grow(std::size_t nodes, std::uint32_t seed, vigil::swim::Config config) {
  ClusterOptions o;
  o.nodes = nodes;
  o.config = std::move(config);
  o.static_membership = false;
  o.started = 3;
  o.join_seeds = 3;
  o.seed = seed;
  o.event_log_capacity = 0;
  auto c = SwimCluster::create(o).value();
  c.run_for(Millis{5000});
  Growth g;
  for (std::size_t up = 3; up < nodes;) {
    const Millis first = c.now();
    for (const std::size_t end = std::min(nodes, up + 50); up < end; ++up) {
      c.start(up);
      c.run_for(Millis{1});
    }
    while (pairs_apart(c, up) > 0 && c.now() - first < Millis{120000}) c.run_for(Millis{50});
    REQUIRE(pairs_apart(c, up) == 0);
    g.waves.push_back(c.now() - first);
    g.slowest_wave = std::max(g.slowest_wave, g.waves.back());
    while (!gossip_done(c, up)) c.run_for(Millis{100});
  }
  const auto totals = c.totals();  // sums every host's counters: once
  g.datagrams = totals.datagrams_sent;
  g.bytes = totals.bytes_sent;
  g.compressed = totals.compressed_sent;
  g.compressions_reused = totals.news_compressions_reused;
  return g;
}

}  // namespace

TEST_CASE("waves of joiners are known everywhere within a second, without full-state exchanges" *
          doctest::skip(vigil::test::kSanitized)) {
  // Without periodic full-state exchanges, nothing but gossip, the joiners' follow-up exchanges
  // and introductions can close a gap. A member that misses a joiner's news used to wait for the
  // next exchange (every 120 s at 200 members): the joiners of one wave learn one another from the
  // seeds' tables without passing that news on, so fewer members spread it. Passing on the
  // news of those members when it is heard again restores the spread.
  vigil::swim::Config config = vigil::swim::Config::lan();
  config.push_pull_interval = Millis{0};
  std::vector<Millis> waves;
  std::string times;
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const Growth g = grow(200, seed, config);
    for (Millis w : g.waves) times += " " + std::to_string(w.count());
    waves.insert(waves.end(), g.waves.begin(), g.waves.end());
  }
  INFO("each wave agreed in (ms):" << times);
  // Every wave: by the joiners' follow-up exchanges at the latest (2 s after their joins).
  for (Millis w : waves) CHECK(w <= config.join_follow_up + Millis{100});
  // Nearly every wave by gossip alone, in a few rounds. Without passing news on, the first wave
  // of every seed waited for the follow-ups (18 of these 24 waves within 1.5 s).
  const auto fast =
      std::count_if(waves.begin(), waves.end(), [](Millis w) { return w <= Millis{1500}; });
  CHECK(waves.size() == 24);
  CHECK(fast >= 22);
}

TEST_CASE("in waves, joining quietly costs far fewer datagrams than memberlist's loud join" *
          doctest::skip(vigil::test::kSanitized)) {
  // memberlist's joiner gossips every member of the table it learns (join_follow_up = 0): at
  // 400 members that is 400 entries, 12 times each, for each of the 50 joiners of a wave.
  vigil::swim::Config loud = vigil::swim::Config::lan();
  loud.join_follow_up = Millis{0};
  const Growth quiet_growth = grow(400, 1, vigil::swim::Config::lan());
  const Growth loud_growth = grow(400, 1, loud);
  INFO("quiet: " << quiet_growth.datagrams << " datagrams, " << quiet_growth.bytes
                 << " B, slowest wave " << quiet_growth.slowest_wave.count()
                 << " ms; loud: " << loud_growth.datagrams << " datagrams, " << loud_growth.bytes
                 << " B, slowest wave " << loud_growth.slowest_wave.count() << " ms");
  CHECK(static_cast<double>(quiet_growth.datagrams) <
        0.7 * static_cast<double>(loud_growth.datagrams));
  CHECK(static_cast<double>(quiet_growth.bytes) < 0.7 * static_cast<double>(loud_growth.bytes));
  CHECK(quiet_growth.slowest_wave <= loud_growth.slowest_wave + Millis{500});
}

TEST_CASE("while waves of joins spread, a gossip round compresses its news once for most targets") {
  // A member gossips to three targets a round; while its queue holds less than a datagram of
  // news, all three get the same news, compressed once (news_compressions_reused).
  const Growth g = grow(200, 1, vigil::swim::Config::lan());
  INFO(g.compressed << " datagrams and streams sent compressed, " << g.compressions_reused
                    << " of them reusing the round's compression");
  CHECK(g.compressions_reused > 0);
  CHECK(static_cast<double>(g.compressions_reused) > 0.3 * static_cast<double>(g.compressed));
}
