#include <vigil/gossip/spread.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

#include "exact_chain.hpp"

using namespace vigil;
using gossip::Mode;
using gossip::SpreadOptions;

namespace {

SpreadOptions options(std::size_t n, int f, Mode mode) {
  SpreadOptions o;
  o.nodes = n;
  o.fanout = f;
  o.mode = mode;
  return o;
}

struct Sample {
  double mean = 0.0;
  double standard_error = 0.0;
};

Sample mean_rounds(const SpreadOptions& o, int trials, std::uint32_t seed) {
  Rng rng(seed);
  double sum = 0.0, squares = 0.0;
  for (int t = 0; t < trials; ++t) {
    auto r = gossip::spread(o, rng).value();
    REQUIRE(r.finished);
    sum += r.rounds;
    squares += static_cast<double>(r.rounds) * r.rounds;
  }
  const double mean = sum / trials;
  const double variance = (squares - trials * mean * mean) / (trials - 1);
  return {mean, std::sqrt(variance / trials)};
}

}  // namespace

TEST_CASE("the exact-chain oracle on cases worked by hand") {
  // Two members: the one contact always tells.
  for (Mode m : {Mode::push, Mode::pull, Mode::push_pull})
    CHECK(gossip::testing::exact_expected_rounds(options(2, 1, m)) == doctest::Approx(1.0));
  // Three, push, fanout 1: round 1 informs a second member for sure; then each round two pushes
  // both miss the last one with probability 1/4, so 4/3 more rounds on average.
  CHECK(gossip::testing::exact_expected_rounds(options(3, 1, Mode::push)) ==
        doctest::Approx(1.0 + 4.0 / 3.0));
  // Three, pull, fanout 1: each uninformed member asks the informed one with probability 1/2.
  // From 1 informed: both learn (1/4), one (1/2), none (1/4); from 2: the last asks right w.p. 1.
  // E = 1 + (1/2)·E[from 2] + (1/4)·E[from 1], E[from 2] = 1  =>  E = 2.
  CHECK(gossip::testing::exact_expected_rounds(options(3, 1, Mode::pull)) == doctest::Approx(2.0));
}

TEST_CASE("tiny runs are exact: two members need one round and one contact each way") {
  for (Mode m : {Mode::push, Mode::pull, Mode::push_pull}) {
    CAPTURE(gossip::mode_name(m));
    Rng rng(1);
    auto r = gossip::spread(options(2, 1, m), rng).value();
    CHECK(r.finished);
    CHECK(r.rounds == 1);
    CHECK(r.informed == std::vector<std::uint32_t>{1, 2});
    // push: member 0 tells; pull: member 1 asks; push-pull: both start a contact.
    CHECK(r.messages == (m == Mode::push_pull ? 2u : 1u));
  }
  Rng rng(1);
  auto three = gossip::spread(options(2, 3, Mode::push), rng).value();
  CHECK(three.messages == 3);  // fanout 3 sends three pushes even when one would do
}

TEST_CASE("one member knows already: zero rounds, no messages") {
  for (Mode m : {Mode::push, Mode::pull, Mode::push_pull}) {
    Rng rng(5);
    auto r = gossip::spread(options(1, 3, m), rng).value();
    CHECK(r.finished);
    CHECK(r.rounds == 0);
    CHECK(r.messages == 0);
    CHECK(r.informed == std::vector<std::uint32_t>{1});
  }
}

TEST_CASE("contacts are counted exactly: who starts them in each mode") {
  for (Mode m : {Mode::push, Mode::pull, Mode::push_pull})
    for (int f : {1, 3}) {
      CAPTURE(gossip::mode_name(m));
      CAPTURE(f);
      auto o = options(500, f, m);
      o.dead = 50;
      o.loss = 0.1;
      Rng rng(11);
      auto r = gossip::spread(o, rng).value();
      REQUIRE(r.finished);
      REQUIRE(r.informed.size() == static_cast<std::size_t>(r.rounds) + 1);
      // Round r is started by the members informed (push) or not (pull) after round r - 1.
      std::uint64_t expected = 0;
      for (int round = 0; round < r.rounds; ++round) {
        const std::uint64_t informed = r.informed[static_cast<std::size_t>(round)];
        expected += m == Mode::push ? informed : m == Mode::pull ? r.live - informed : r.live;
      }
      CHECK(r.messages == expected * static_cast<std::uint64_t>(f));
    }
}

TEST_CASE("the informed curve never falls and ends with every live member") {
  for (Mode m : {Mode::push, Mode::pull, Mode::push_pull}) {
    auto o = options(2000, 2, m);
    o.dead = 300;
    Rng rng(3);
    auto r = gossip::spread(o, rng).value();
    CAPTURE(gossip::mode_name(m));
    CHECK(r.finished);
    CHECK(r.live == 1700);
    CHECK(r.informed.front() == 1);
    CHECK(r.informed.back() == 1700);  // the 300 dead are not waited for, and never informed
    for (std::size_t i = 1; i < r.informed.size(); ++i) CHECK(r.informed[i] >= r.informed[i - 1]);
  }
}

TEST_CASE("mean rounds match the exact Markov-chain expectation within 4 standard errors") {
  struct Case {
    std::size_t n;
    int f;
    Mode mode;
    double loss;
    std::size_t dead;
  };
  const Case cases[] = {
      {100, 1, Mode::push, 0, 0},         {100, 3, Mode::push, 0, 0},
      {100, 1, Mode::pull, 0, 0},         {100, 2, Mode::pull, 0, 0},
      {100, 1, Mode::push_pull, 0, 0},    {100, 3, Mode::push_pull, 0, 0},
      {80, 2, Mode::push, 0.3, 10},       {80, 1, Mode::pull, 0.2, 10},
      {80, 1, Mode::push_pull, 0.25, 20},
  };
  std::uint32_t seed = 100;
  for (const auto& c : cases) {
    auto o = options(c.n, c.f, c.mode);
    o.loss = c.loss;
    o.dead = c.dead;
    const double exact = gossip::testing::exact_expected_rounds(o);
    const auto s = mean_rounds(o, 400, ++seed);
    CAPTURE(gossip::mode_name(c.mode));
    CAPTURE(c.f);
    CAPTURE(c.loss);
    CAPTURE(exact);
    CAPTURE(s.standard_error);
    CHECK(std::abs(s.mean - exact) < 4 * s.standard_error);
  }
}

TEST_CASE("push-pull beats push, and loss slows the spread") {
  for (int f : {1, 2, 3}) {
    CAPTURE(f);
    const auto push = mean_rounds(options(1000, f, Mode::push), 30, 7);
    const auto both = mean_rounds(options(1000, f, Mode::push_pull), 30, 7);
    CHECK(both.mean + 4 * (both.standard_error + push.standard_error) < push.mean);
  }
  // Loss 0.3 leaves push an effective fanout of 0.7: Pittel's log_1.7(1000) + ln(1000)/0.7 ≈ 22.9
  // rounds against 16.9 without loss.
  auto lossy = options(1000, 1, Mode::push);
  lossy.loss = 0.3;
  const auto clean = mean_rounds(options(1000, 1, Mode::push), 30, 8);
  const auto slowed = mean_rounds(lossy, 30, 8);
  CHECK(slowed.mean - 4 * (slowed.standard_error + clean.standard_error) > clean.mean + 3);
}

TEST_CASE("near the end of pull and push-pull the uninformed fraction squares every round") {
  // Pull, fanout 1: each of the U uninformed asks one of the n - 1 others, so U' is exactly
  // Binomial(U, 1 - I/(n - 1)), mean s·(1 - I/(n - 1)) = s(sn - 1)/(n - 1) <= s² in fractions of
  // n. Push-pull also gets pushed into, so its U' is at most that. Checked every round once half
  // know, 5 binomial standard deviations of slack.
  const std::size_t n = 100000;
  for (Mode m : {Mode::pull, Mode::push_pull}) {
    CAPTURE(gossip::mode_name(m));
    Rng rng(21);
    auto r = gossip::spread(options(n, 1, m), rng).value();
    REQUIRE(r.finished);
    const double dn = static_cast<double>(n);
    int checked = 0;
    for (std::size_t i = 0; i + 1 < r.informed.size(); ++i) {
      const double u = dn - r.informed[i];
      const double u_next = dn - r.informed[i + 1];
      if (u > dn / 2 || u == 0) continue;
      const double stay = 1.0 - r.informed[i] / (dn - 1);
      const double sd = std::sqrt(u * stay * (1 - stay));
      const double s = u / dn;
      CAPTURE(i);
      CHECK(u_next <= s * s * dn + 5 * sd + 1);
      if (m == Mode::pull) CHECK(u_next >= u * stay - 5 * sd - 1);
      ++checked;
    }
    CHECK(checked >= 3);
  }
}

TEST_CASE("the round cap stops a run and says so") {
  auto o = options(1000, 1, Mode::push);
  o.max_rounds = 3;
  Rng rng(2);
  auto r = gossip::spread(o, rng).value();
  CHECK_FALSE(r.finished);
  CHECK(r.rounds == 3);
  CHECK(r.informed.size() == 4);
  CHECK(r.informed.back() <= 8);  // at most doubling with fanout 1
  CHECK(gossip::default_max_rounds(1000) == 200);
  CHECK(gossip::default_max_rounds(1) == 100);
}

TEST_CASE("the same generator state gives the same run") {
  auto o = options(5000, 2, Mode::push_pull);
  o.loss = 0.1;
  Rng a(9), b(9);
  auto x = gossip::spread(o, a).value();
  auto y = gossip::spread(o, b).value();
  CHECK(x.informed == y.informed);
  CHECK(x.messages == y.messages);
  CHECK(a.state() == b.state());
}

TEST_CASE("bad parameters are refused with the flag to fix") {
  auto expect_error = [](SpreadOptions o, const std::string& text) {
    Rng rng(1);
    auto r = gossip::spread(o, rng);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find(text) != std::string::npos);
  };
  auto o = options(100, 1, Mode::push);
  auto bad = o;
  bad.fanout = 0;
  expect_error(bad, "--fanout must be a whole number in [1, 1000]");
  bad = o;
  bad.nodes = 0;
  expect_error(bad, "--nodes must be a whole number in [1, 10000000]");
  bad = o;
  bad.loss = 1.0;
  expect_error(bad, "--loss must be in [0, 1)");
  bad.loss = -0.01;
  expect_error(bad, "--loss must be in [0, 1)");
  bad.loss = std::nan("");
  expect_error(bad, "--loss must be in [0, 1)");
  bad = o;
  bad.dead = 100;
  expect_error(bad, "--dead must be smaller than --nodes");
  bad = o;
  bad.max_rounds = -1;
  expect_error(bad, "--max-rounds");
  CHECK(gossip::parse_mode("pushpull").value() == Mode::push_pull);
  CHECK(gossip::parse_mode("push-pull").error().message.find("push|pull|pushpull") !=
        std::string::npos);
}
