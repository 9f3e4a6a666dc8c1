#include <vigil/gossip/heartbeat_cluster.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "exact_chain.hpp"

using namespace vigil;
using gossip::HeartbeatCluster;
using gossip::HeartbeatConfig;
using gossip::Verdict;

namespace {

HeartbeatConfig config(std::size_t n, int f, int t_fail) {
  HeartbeatConfig c;
  c.nodes = n;
  c.fanout = f;
  c.t_fail = t_fail;
  return c;
}

// False node-rounds over `rounds` rounds from the start, summed over trials 0..trials-1.
std::uint64_t false_suspicions(const HeartbeatConfig& c, int rounds, int trials) {
  std::uint64_t total = 0;
  for (int t = 0; t < trials; ++t) {
    auto hb = HeartbeatCluster::create(c).value();
    Rng rng = Rng(77).fork(static_cast<std::uint32_t>(t));
    for (int r = 0; r < rounds; ++r) {
      hb.step(rng);
      total += hb.false_suspicions();
    }
  }
  return total;
}

}  // namespace

TEST_CASE("two members, round by round: bump, swap lists, then a crash times out") {
  auto c = config(2, 1, 2);  // T_cleanup defaults to 4
  CHECK(c.cleanup_rounds() == 4);
  auto hb = HeartbeatCluster::create(c).value();
  Rng rng(1);
  hb.step(rng);
  CHECK(hb.round() == 1);
  CHECK(hb.counter(0, 0) == 1);
  CHECK(hb.counter(0, 1) == 1);  // the list left after member 1's bump
  CHECK(hb.last_grown(0, 1) == 1);
  CHECK(hb.messages_sent() == 2);
  for (int r = 2; r <= 5; ++r) hb.step(rng);
  CHECK(hb.counter(1, 0) == 5);
  CHECK(hb.last_grown(1, 0) == 5);
  CHECK(hb.false_suspicions() == 0);

  hb.crash(1);
  const Verdict expected[] = {Verdict::alive, Verdict::failed, Verdict::failed, Verdict::removed};
  for (int r = 6; r <= 9; ++r) {
    hb.step(rng);
    CAPTURE(r);
    CHECK(hb.counter(0, 1) == 5);
    CHECK(hb.last_grown(0, 1) == 5);
    CHECK(hb.verdict(0, 1) == expected[r - 6]);  // failed from 5 + T_fail, removed from 5 + 4
    CHECK(hb.all_hold_failed(1) == (r >= 7));
    CHECK(hb.counter(1, 1) == 5);  // a crashed member stops bumping
  }
  CHECK(hb.messages_sent() == 10 + 4);  // member 0 keeps sending, into the void
  CHECK(hb.verdict(0, 0) == Verdict::alive);
}

TEST_CASE("every live member sends exactly fanout messages a round") {
  auto hb = HeartbeatCluster::create(config(50, 3, 5)).value();
  Rng rng(4);
  for (int r = 0; r < 10; ++r) hb.step(rng);
  CHECK(hb.messages_sent() == 10u * 50 * 3);
  for (std::size_t v : {5u, 17u, 49u}) hb.crash(v);
  for (int r = 0; r < 10; ++r) hb.step(rng);
  CHECK(hb.messages_sent() == 10u * 50 * 3 + 10u * 47 * 3);
}

TEST_CASE("lists only ever hold counters their owners have reached, and never go back") {
  auto c = config(60, 2, 4);
  c.loss = 0.2;
  auto hb = HeartbeatCluster::create(c).value();
  Rng rng(6);
  std::vector<std::uint32_t> before(60 * 60, 0);
  for (int r = 1; r <= 40; ++r) {
    if (r == 20) hb.crash(7);
    hb.step(rng);
    bool ok = true;
    for (std::size_t i = 0; i < 60; ++i)
      for (std::size_t j = 0; j < 60; ++j) {
        const auto now = hb.counter(i, j);
        ok = ok && now >= before[i * 60 + j] && now <= hb.counter(j, j) &&
             hb.last_grown(i, j) <= r && (now == 0 || hb.last_grown(i, j) >= 1);
        before[i * 60 + j] = now;
      }
    CAPTURE(r);
    CHECK(ok);
  }
  CHECK(hb.counter(7, 7) == 19);
  CHECK(hb.counter(0, 0) == 40);
}

TEST_CASE("false suspicions fall with T_fail and vanish well past the spread time") {
  // 100 members, fanout 2: a bump takes about 7.4 rounds to reach everyone (the exact
  // chain gives 7.35), so T_fail = 3 must misjudge live members and T_fail = 20 never should.
  // The trials draw the same targets for every T_fail, so runs differ only in the entries that
  // stop circulating once removed (at 2·T_fail quiet rounds): a smaller T_fail both suspects
  // sooner and withholds more news, so the count must not grow with T_fail.
  std::uint64_t previous = 0;
  for (int t_fail = 1; t_fail <= 12; ++t_fail) {
    const std::uint64_t count = false_suspicions(config(100, 2, t_fail), 30, 2);
    CAPTURE(t_fail);
    if (t_fail > 1) CHECK(count <= previous);
    if (t_fail == 3) CHECK(count > 1000);
    previous = count;
  }
  CHECK(false_suspicions(config(100, 2, 20), 60, 2) == 0);
}

TEST_CASE("a crash is agreed no sooner than T_fail, and within the spread of its last bump") {
  // The victim's last counter spreads like a push rumour (its owner pushes only in the first
  // round); member i marks the victim failed T_fail rounds after that counter reached it, so
  // agreement - T_fail + 1 is the rumour's completion time S': at least push's S, and at most
  // about a round slower for lacking the owner's later pushes.
  const int t_fail = 10, trials = 40;
  const double push_rounds = gossip::testing::exact_expected_rounds([] {
    gossip::SpreadOptions s;
    s.nodes = 100;
    s.fanout = 2;
    return s;
  }());
  double sum = 0.0, squares = 0.0;
  for (int t = 0; t < trials; ++t) {
    auto hb = HeartbeatCluster::create(config(100, 2, t_fail)).value();
    Rng rng = Rng(31).fork(static_cast<std::uint32_t>(t));
    for (int r = 0; r < 25; ++r) hb.step(rng);
    hb.crash(99);
    int agreed = 0;
    for (int elapsed = 1; elapsed <= 100 && !agreed; ++elapsed) {
      hb.step(rng);
      if (hb.all_hold_failed(99)) agreed = elapsed;
    }
    REQUIRE(agreed > 0);
    CHECK(agreed >= t_fail);
    const double spread = agreed - t_fail + 1;
    sum += spread;
    squares += spread * spread;
  }
  const double mean = sum / trials;
  const double se = std::sqrt((squares - trials * mean * mean) / (trials - 1) / trials);
  CAPTURE(push_rounds);
  CAPTURE(mean);
  CHECK(mean >= push_rounds - 4 * se);
  CHECK(mean <= push_rounds + 1 + 4 * se);
}

TEST_CASE("bad membership parameters are refused with the flag to fix") {
  auto message = [](HeartbeatConfig c) {
    auto r = HeartbeatCluster::create(c);
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  auto c = config(100, 2, 10);
  auto bad = c;
  bad.nodes = 1;
  CHECK(message(bad).find("--nodes must be a whole number in [2, 2000]") != std::string::npos);
  bad = c;
  bad.fanout = 0;
  CHECK(message(bad).find("--fanout") != std::string::npos);
  bad = c;
  bad.t_fail = 0;
  CHECK(message(bad).find("--tfail") != std::string::npos);
  bad = c;
  bad.t_cleanup = 5;
  CHECK(message(bad).find("--tcleanup must be at least --tfail (10)") != std::string::npos);
  bad = c;
  bad.loss = 1.0;
  CHECK(message(bad).find("--loss must be in [0, 1)") != std::string::npos);
  c.t_cleanup = 10;
  CHECK(HeartbeatCluster::create(c).ok());
}
