#include <doctest/doctest.h>

#include <cmath>

#include <vigil/detect/phi_accrual.hpp>
#include <vigil/sim/heartbeat_stream.hpp>

using vigil::Millis;
using namespace vigil::detect;

namespace {
PhiAccrual make(PhiAccrualConfig c) {
  auto d = PhiAccrual::create(c);
  REQUIRE(d.ok());
  return std::move(d).value();
}
PhiAccrualConfig hundred_ms(TailModel model = TailModel::normal) {
  PhiAccrualConfig c;
  c.model = model;
  c.window = 100;
  c.min_stddev_ms = 10;
  c.first_heartbeat_estimate_ms = 100;
  return c;
}
}  // namespace

TEST_CASE("defaults are Akka's") {
  PhiAccrualConfig c;
  CHECK(c.window == 1000);
  CHECK(c.min_stddev_ms == 100.0);
  CHECK(c.pause_margin_ms == 0.0);
  CHECK(c.first_heartbeat_estimate_ms == 1000.0);
  CHECK(c.model == TailModel::normal);
  CHECK(c.min_gaps == 10);
}

TEST_CASE("invalid parameters are reported as errors") {
  PhiAccrualConfig c;
  c.window = 0;
  CHECK_FALSE(PhiAccrual::create(c).ok());
  c = {};
  c.min_stddev_ms = 0;
  CHECK_FALSE(PhiAccrual::create(c).ok());
  c = {};
  c.pause_margin_ms = -1;
  CHECK_FALSE(PhiAccrual::create(c).ok());
  c = {};
  c.first_heartbeat_estimate_ms = 0;
  auto r = PhiAccrual::create(c);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("first-heartbeat") != std::string::npos);
}

TEST_CASE("bootstrap: two synthetic gaps at estimate -/+ estimate/4") {
  PhiAccrualConfig c;
  c.min_gaps = 0;  // judge the very first silence against the bootstrap alone
  auto d = make(c);
  CHECK(d.phi(Millis{5000}) == 0.0);  // nothing heard yet
  CHECK(d.window().size() == 2);
  CHECK(d.mean_ms() == 1000.0);
  CHECK(d.window().stddev_ms() == 250.0);
  d.heartbeat(Millis{0});
  CHECK(d.window().size() == 2);  // the first heartbeat only starts the clock
  // With mean 1000 and spread 250, a 1000 ms silence is the median: phi = log10 2.
  CHECK(d.phi(Millis{1000}) == doctest::Approx(std::log10(2.0)));
}

TEST_CASE("steady heartbeats: the fit converges and the spread floor applies") {
  auto d = make(hundred_ms());
  for (int i = 0; i <= 200; ++i) d.heartbeat(Millis{100 * i});
  CHECK(d.window().size() == 100);  // the window keeps only the last 100 gaps
  CHECK(d.mean_ms() == 100.0);
  CHECK(d.window().stddev_ms() == 0.0);
  CHECK(d.effective_stddev_ms() == 10.0);
  // Silence 156.12 ms = mean + 5.612 sigma: phi ~ 8, where a JavaScript simulation's phi > 8 fired
  // (157 ms).
  CHECK(d.phi_after(156.12) == doctest::Approx(8.0).epsilon(1e-3));
}

TEST_CASE("silence_to_reach is where phi crosses the threshold") {
  auto d = make(hundred_ms());
  for (int i = 0; i <= 200; ++i) d.heartbeat(Millis{100 * i + (i % 3) * 4});
  for (double threshold : {1.0, 8.0, 12.0}) {
    const double s = d.silence_to_reach(threshold);
    CHECK(d.phi_after(s) >= threshold);
    CHECK(d.phi_after(s - 1e-3) < threshold);
  }
  CHECK(d.silence_to_reach(8.0) < d.silence_to_reach(12.0));
}

TEST_CASE("a pause margin delays suspicion by exactly the margin") {
  auto plain = make(hundred_ms());
  auto c = hundred_ms();
  c.pause_margin_ms = 250;
  auto lenient = make(c);
  for (int i = 0; i <= 50; ++i) {
    plain.heartbeat(Millis{100 * i});
    lenient.heartbeat(Millis{100 * i});
  }
  CHECK(lenient.silence_to_reach(8) ==
        doctest::Approx(plain.silence_to_reach(8) + 250).epsilon(1e-9));
}

TEST_CASE("one long pause widens the fit and slows the next detection") {
  auto d = make(hundred_ms());
  for (int i = 0; i <= 100; ++i) d.heartbeat(Millis{100 * i});
  const double before = d.silence_to_reach(8);
  d.heartbeat(Millis{100 * 100 + 600});  // a 700 ms gap: the sender was stopped
  CHECK(d.silence_to_reach(8) > before + 200);
}

TEST_CASE("empirical model: suspicion starts once the silence passes every gap in the window") {
  auto d = make(hundred_ms(TailModel::empirical));
  for (int i = 0; i <= 200; ++i) d.heartbeat(Millis{100 * i + (i % 2) * 20});
  // Gaps alternate 120 and 80; phi(8) needs a share below 1e-8, i.e. no longer gap at all.
  CHECK(d.silence_to_reach(8) == doctest::Approx(120.0).epsilon(1e-6));
  CHECK(std::isinf(d.phi_after(121)));
  CHECK(d.phi_after(100) == doctest::Approx(std::log10(2.0)));
}

TEST_CASE("exponential model ignores the spread") {
  auto d = make(hundred_ms(TailModel::exponential));
  for (int i = 0; i <= 200; ++i) d.heartbeat(Millis{100 * i});
  CHECK(d.phi_after(100 * std::log(10.0)) == doctest::Approx(1.0));
}

TEST_CASE("warm-up: no accusation before min_gaps real gaps, whatever the silence") {
  auto c = hundred_ms();
  c.min_gaps = 10;
  auto d = make(c);
  for (int i = 0; i <= 9; ++i) {  // heartbeats 0..9: nine gaps
    d.heartbeat(Millis{100 * i});
    CHECK(d.warming_up());
    CHECK(d.phi(Millis{100 * i + 60'000}) == 0.0);
    CHECK(std::isinf(d.silence_to_reach(8.0)));
  }
  CHECK(d.gaps_seen() == 9);
  d.heartbeat(Millis{1000});  // the tenth gap ends the warm-up
  CHECK_FALSE(d.warming_up());
  CHECK(d.phi(Millis{1000 + 60'000}) > 12.0);
  CHECK(std::isfinite(d.silence_to_reach(8.0)));
  // The same detector without the rule would already have accused long silences.
  c.min_gaps = 0;
  auto eager = make(c);
  eager.heartbeat(Millis{0});
  eager.heartbeat(Millis{100});
  CHECK(eager.phi(Millis{100 + 60'000}) > 12.0);
}

namespace {
// Runs of `runs` seeded streams over a bad link (normal delay 80 +- 60 ms, 15 % loss, one
// heartbeat per 100 ms) that see phi >= 8 at some millisecond of [from, to).
int runs_with_false_alarm(std::size_t min_gaps, int from_ms, int to_ms, int runs) {
  int alarmed = 0;
  for (int seed = 1; seed <= runs; ++seed) {
    vigil::sim::HeartbeatConfig hc;
    hc.interval = Millis{100};
    hc.delay = vigil::sim::DelayModel::normal(80.0, 60.0);
    hc.loss = 0.15;
    auto stream =
        vigil::sim::HeartbeatStream::create(hc, vigil::Rng(static_cast<std::uint32_t>(seed)))
            .value();
    auto c = hundred_ms();
    c.min_gaps = min_gaps;
    auto d = make(c);
    for (int t = 0; t < to_ms; ++t) {
      for (const auto& hb : stream.advance(Millis{t})) d.heartbeat(hb.arrived);
      if (t >= from_ms && d.phi(Millis{t}) >= 8.0) {
        ++alarmed;
        break;
      }
    }
  }
  return alarmed;
}
}  // namespace

TEST_CASE("warm-up: early false alarms fall to the steady-state level") {
  // The sender is alive throughout, so every alarm is false. A fit of a handful of gaps
  // underestimates the spread (the sample deviation of n normal gaps is biased low and very
  // noisy for small n), so without the rule the first seconds alarm far more often than later
  // ones; with it, the first 3 s look like any other 3 s.
  constexpr int kRuns = 300;
  const int steady = runs_with_false_alarm(10, 20'000, 23'000, kRuns);
  const int eager = runs_with_false_alarm(0, 0, 3'000, kRuns);
  const int warmed = runs_with_false_alarm(10, 0, 3'000, kRuns);
  MESSAGE("runs with a false alarm: first 3 s without warm-up "
          << eager << ", with " << warmed << ", 3 s after 20 s " << steady << " (of " << kRuns
          << ")");
  CHECK(eager >= 10 * std::max(steady, 1));
  CHECK(warmed <= 2 * steady + 6);  // 6: about two standard deviations of a count near 3-9
}
