#include <vigil/gossip/spread_run.hpp>

#include <doctest/doctest.h>

#include <algorithm>

using namespace vigil;
using gossip::Mode;
using gossip::SpreadOptions;
using gossip::SpreadRun;

namespace {

SpreadOptions options(std::size_t n, int f, Mode mode, double loss = 0.0, std::size_t dead = 0) {
  SpreadOptions o;
  o.nodes = n;
  o.fanout = f;
  o.mode = mode;
  o.loss = loss;
  o.dead = dead;
  return o;
}

}  // namespace

TEST_CASE("stepped to the end, a run equals spread() draw for draw") {
  int compared = 0;
  for (Mode m : {Mode::push, Mode::pull, Mode::push_pull})
    for (std::size_t n : {1u, 2u, 3u, 50u, 2000u})
      for (int f : {1, 3})
        for (double loss : {0.0, 0.3})
          for (std::size_t dead : {0u, 1u, 7u}) {
            if (dead >= n) continue;
            for (std::uint32_t seed : {1u, 44u, 2024u}) {
              CAPTURE(gossip::mode_name(m));
              CAPTURE(n);
              CAPTURE(f);
              CAPTURE(loss);
              CAPTURE(dead);
              CAPTURE(seed);
              const SpreadOptions o = options(n, f, m, loss, dead);
              Rng a(seed);
              const auto expected = gossip::spread(o, a).value();
              auto run = SpreadRun::create(o, Rng(seed)).value();
              run.run_to_end();
              const auto got = run.result();
              CHECK(got.finished == expected.finished);
              CHECK(got.rounds == expected.rounds);
              CHECK(got.messages == expected.messages);
              CHECK(got.live == expected.live);
              CHECK(got.informed == expected.informed);
              // The same number of draws: the generators end in the same state.
              CHECK(run.rng().state() == a.state());
              ++compared;
            }
          }
  CHECK(compared > 200);
}

TEST_CASE("a generator passed on keeps matching spread() over several runs") {
  const SpreadOptions o = options(300, 2, Mode::push_pull, 0.1, 5);
  Rng reference(9), stepped(9);
  for (int t = 0; t < 4; ++t) {
    const auto expected = gossip::spread(o, reference).value();
    auto run = SpreadRun::create(o, stepped).value();
    run.run_to_end();
    stepped = run.rng();
    CHECK(run.result().informed == expected.informed);
  }
  CHECK(stepped.state() == reference.state());
}

TEST_CASE("learned rounds account for every informed count, and the dead never learn") {
  for (Mode m : {Mode::push, Mode::pull, Mode::push_pull}) {
    CAPTURE(gossip::mode_name(m));
    auto run = SpreadRun::create(options(5000, 1, m, 0.2, 400), Rng(7)).value();
    CHECK(run.learned_round(0) == 0);
    CHECK(run.informed_by_round() == std::vector<std::uint32_t>{1});
    CHECK(run.messages_by_round() == std::vector<std::uint64_t>{0});
    run.run_to_end();
    REQUIRE(run.finished());
    CHECK(run.informed() == 4600u);
    const auto& counts = run.informed_by_round();
    REQUIRE(counts.size() == static_cast<std::size_t>(run.round()) + 1);
    std::vector<std::uint32_t> learnt_in(counts.size(), 0);
    for (std::size_t i = 0; i < run.nodes(); ++i) {
      const std::uint32_t r = run.learned_round(i);
      if (run.is_dead(i)) {
        CHECK(r == SpreadRun::kNever);
        continue;
      }
      REQUIRE(r < learnt_in.size());  // a finished run informed every live member
      ++learnt_in[r];
    }
    std::uint32_t cumulative = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      cumulative += learnt_in[r];
      CHECK(cumulative == counts[r]);
    }
    // Each round teaches someone only if someone knew before it: news moves one hop a round.
    CHECK(std::is_sorted(counts.begin(), counts.end()));
  }
}

TEST_CASE("push without loss sends fanout pushes for each member informed when the round began") {
  auto run = SpreadRun::create(options(1000, 3, Mode::push), Rng(44)).value();
  while (run.step()) {
    const auto r = static_cast<std::size_t>(run.round());
    const auto& sent = run.messages_by_round();
    CHECK(sent[r] - sent[r - 1] == 3u * run.informed_by_round()[r - 1]);
  }
  CHECK(run.messages() == run.messages_by_round().back());
}

TEST_CASE("a run stopped by the round cap is done but not finished, and stepping stops") {
  SpreadOptions o = options(10000, 1, Mode::push);
  o.max_rounds = 4;
  auto run = SpreadRun::create(o, Rng(3)).value();
  for (int r = 1; r <= 4; ++r) {
    CHECK_FALSE(run.done());
    CHECK(run.step());
    CHECK(run.round() == r);
  }
  CHECK(run.done());
  CHECK_FALSE(run.finished());
  CHECK(run.informed() <= 16u);  // push with fanout 1 at most doubles the informed each round
  const auto before = run.result();
  const auto state = run.rng().state();
  CHECK_FALSE(run.step());
  CHECK(run.round() == 4);
  CHECK(run.result().informed == before.informed);
  CHECK(run.rng().state() == state);
}

TEST_CASE("a single member is done before any round, and bad options are refused") {
  auto alone = SpreadRun::create(options(1, 1, Mode::pull), Rng(1)).value();
  CHECK(alone.done());
  CHECK(alone.finished());
  CHECK_FALSE(alone.step());
  CHECK(alone.messages() == 0u);

  CHECK_FALSE(SpreadRun::create(options(10, 1, Mode::push, 0.0, 10), Rng(1)).ok());
  CHECK_FALSE(SpreadRun::create(options(10, 0, Mode::push), Rng(1)).ok());
  CHECK_FALSE(SpreadRun::create(options(10, 1, Mode::push, 1.0), Rng(1)).ok());
}
