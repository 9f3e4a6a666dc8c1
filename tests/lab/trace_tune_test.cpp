#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include <vigil/detect/phi_threshold.hpp>
#include <vigil/lab/trace_tune.hpp>
#include "support/gapped_trace.hpp"
#include "support/param_spec_checks.hpp"

using vigil::Millis;
using namespace vigil::lab;
using vigil::test::regular_with_gaps;

namespace {

const TuneFamily& family(const TuneResult& r, const std::string& name) {
  auto it = std::find_if(r.families.begin(), r.families.end(),
                         [&](const auto& f) { return f.family == name; });
  REQUIRE(it != r.families.end());
  return *it;
}

TuneResult tune(const std::vector<Millis>& arrivals, double budget, int nodes = 10) {
  TuneOptions options;
  options.max_mistakes_per_hour = budget;
  options.confidence = 0;  // the trace's own count: exact expectations below
  options.nodes = nodes;
  options.replay.crash_points = 100;
  auto r = tune_trace(arrivals, options);
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("the timeout family: the smallest timeout within the budget, exactly") {
  // 75 s of heartbeats, the last 65 s scored (0.018 h), with gaps of 250, 450, 1200, 3500 ms.
  const auto arrivals = regular_with_gaps(150, {250, 450, 1200, 3500});
  const double hours = static_cast<double>((arrivals.back() - arrivals[100]).count()) / 3.6e6;
  struct Case {
    double budget;
    std::size_t allowed;
    double timeout;
  };
  for (auto c : {Case{0.0, 0, 3500}, Case{1.0 / hours, 1, 1200}, Case{2.0 / hours, 2, 450},
                 Case{3.0 / hours, 3, 250}}) {
    CAPTURE(c.budget);
    const auto r = tune(arrivals, c.budget);
    CHECK(r.allowed_mistakes == c.allowed);
    const auto& t = family(r, "timeout");
    REQUIRE(t.best.has_value());
    CHECK(t.best->parameter == c.timeout);
    CHECK(t.best->replay.mistakes == c.allowed);
    CHECK(t.best->replay.detection_mean_ms == c.timeout);
  }
}

TEST_CASE("the phi families: within the budget, and a lower threshold breaks it") {
  const auto arrivals = regular_with_gaps(150, {250, 450, 1200, 3500});
  const auto r = tune(arrivals, 1.0 / (65.0 / 3600.0) + 1e-9);
  REQUIRE(r.allowed_mistakes == 1);
  for (const auto* name : {"phi-normal", "phi-logistic", "phi-exponential", "phi-normal-pause"}) {
    CAPTURE(name);
    const auto& f = family(r, name);
    if (!f.best) continue;  // the normal tail can underflow on a 35-interval gap
    CHECK(f.best->replay.mistakes <= 1);
    if (f.best->parameter <= kMinPhiThreshold) continue;
    // Replaying just below the chosen threshold costs more than the budget.
    auto lower = vigil::detect::PhiThreshold::create(
        trace_phi_config(100.0,
                         std::string(name) == "phi-exponential"
                             ? vigil::detect::TailModel::exponential
                         : std::string(name) == "phi-logistic" ? vigil::detect::TailModel::logistic
                                                               : vigil::detect::TailModel::normal,
                         std::string(name) == "phi-normal-pause" ? 300.0 : 0.0),
        f.best->parameter * 0.99);
    REQUIRE(lower.ok());
    std::vector<std::unique_ptr<vigil::detect::Detector>> one;
    one.push_back(std::make_unique<vigil::detect::PhiThreshold>(std::move(*lower)));
    TraceReplayOptions options;
    options.crash_points = 100;
    CHECK(replay_trace(arrivals, one, options)->front().mistakes > 1);
  }
  CHECK(family(r, "phi-exponential").best.has_value());
}

TEST_CASE("the frontier: looser budgets never cost detection time") {
  const auto arrivals = regular_with_gaps(150, {250, 450, 1200, 3500, 180, 700});
  const auto r = tune(arrivals, 100.0);
  for (const auto& f : r.families) {
    CAPTURE(f.family);
    REQUIRE_FALSE(f.frontier.empty());
    for (std::size_t i = 1; i < f.frontier.size(); ++i) {
      CHECK(f.frontier[i].parameter < f.frontier[i - 1].parameter);
      CHECK(f.frontier[i].replay.mistakes >= f.frontier[i - 1].replay.mistakes);
      CHECK(f.frontier[i].replay.detection_mean_ms <= f.frontier[i - 1].replay.detection_mean_ms);
    }
  }
  CHECK(tune_frontier_report(r).tables.at(0).rows.size() > 5);
}

TEST_CASE("memberlist settings: probe interval, timeout and the suspicion multiplier") {
  const auto arrivals = regular_with_gaps(150, {250, 450, 1200, 3500});
  const double per_hour = 1.0 / (65.0 / 3600.0);
  const auto small = tune(arrivals, 2 * per_hour + 1e-9, 10);
  REQUIRE(small.memberlist.has_value());
  CHECK(small.memberlist->probe_interval_ms == 100);
  CHECK(small.memberlist->probe_timeout_ms == 1);  // acks are never late in this trace
  CHECK(small.memberlist->tolerated_silence_ms == 450);
  CHECK(small.memberlist->suspicion_mult == 5);  // 5 * max(1, log10 10) * 100 ms >= 450 ms
  CHECK(small.memberlist->suspicion_timeout_ms == 500);
  const auto large = tune(arrivals, 2 * per_hour + 1e-9, 1000);
  CHECK(large.memberlist->suspicion_mult == 2);  // 2 * log10(1000) * 100 ms = 600 ms
  CHECK(large.memberlist->suspicion_timeout_ms == doctest::Approx(600));
}

TEST_CASE("allowed mistakes: the exact Poisson upper bound at the confidence asked") {
  // P(Poisson(3) = 0) = e^-3 = 0.0498 <= 0.05: zero mistakes over 3 expected shows the budget.
  CHECK(allowed_mistakes(1.0, 3.0, 0.95) == std::size_t{0});
  CHECK_FALSE(allowed_mistakes(1.0, 2.99, 0.95).has_value());
  // Poisson(10): P(X <= 4) = 0.0293, P(X <= 5) = 0.0671.
  CHECK(allowed_mistakes(10.0, 1.0, 0.95) == std::size_t{4});
  // Poisson(10): P(X <= 2) = 0.00277, P(X <= 3) = 0.0103.
  CHECK(allowed_mistakes(10.0, 1.0, 0.99) == std::size_t{2});
  CHECK(allowed_mistakes(10.0, 1.0, 0.0) == std::size_t{10});
  CHECK(allowed_mistakes(2.5, 1.0, 0.0) == std::size_t{2});
  CHECK_FALSE(allowed_mistakes(0.0, 100.0, 0.95).has_value());  // no trace shows a zero rate
  // A large mean: the normal approximation puts the bound near mean - 1.645 sqrt(mean).
  const auto big = allowed_mistakes(1000.0, 24.0, 0.95);
  REQUIRE(big.has_value());
  CHECK(*big > 24000 - 1.645 * 155 - 3);
  CHECK(*big < 24000 - 1.645 * 155 + 3);
  CHECK(hours_needed(20.0, 0.95) == doctest::Approx(0.14979).epsilon(1e-4));
  CHECK(hours_needed(20.0, 0.0) == 0.0);
}

TEST_CASE("with a confidence, the recommendation leaves room for the next hour") {
  // 0.018 scored hours with four gaps: at 95 %, 220/hour (a Poisson mean of 3.97) allows
  // no mistake at all, where the trace's own count would allow three.
  const auto arrivals = regular_with_gaps(150, {250, 450, 1200, 3500});
  const double hours = static_cast<double>((arrivals.back() - arrivals[100]).count()) / 3.6e6;
  TuneOptions options;
  options.max_mistakes_per_hour = 3.97 / hours;
  options.replay.crash_points = 100;
  auto sure = tune_trace(arrivals, options);
  REQUIRE(sure.ok());
  CHECK(sure->allowed_mistakes == std::size_t{0});
  CHECK(family(*sure, "timeout").best->parameter == 3500);
  options.confidence = 0;
  auto fitted = tune_trace(arrivals, options);
  REQUIRE(fitted.ok());
  CHECK(fitted->allowed_mistakes == std::size_t{3});
  CHECK(family(*fitted, "timeout").best->parameter == 250);
  // Too short a trace for the budget: no recommendation, and the report says how long is needed.
  options.confidence = 0.95;
  options.max_mistakes_per_hour = 2.9 / hours;
  auto short_trace = tune_trace(arrivals, options);
  REQUIRE(short_trace.ok());
  CHECK_FALSE(short_trace->allowed_mistakes.has_value());
  for (const auto& f : short_trace->families) CHECK_FALSE(f.best.has_value());
  CHECK_FALSE(short_trace->memberlist.has_value());
}

TEST_CASE("memberlist's default LAN timings on a trace: suspicions and deaths, counted by hand") {
  const auto arrivals = regular_with_gaps(150, {1200, 3500, 7000, 30000});
  // n = 10: suspect after 1.5 s, dead after 1.5 + 4 s confirmed, 1.5 + 24 s unconfirmed.
  const auto small = tune(arrivals, 100, 10);
  REQUIRE(small.memberlist_defaults.size() == 3);
  CHECK(small.memberlist_defaults[0].what == "suspect");
  CHECK(small.memberlist_defaults[0].silence_ms == 1500);
  CHECK(small.memberlist_defaults[0].replay.mistakes == 3);
  CHECK(small.memberlist_defaults[1].silence_ms == 5500);
  CHECK(small.memberlist_defaults[1].replay.mistakes == 2);
  CHECK(small.memberlist_defaults[2].silence_ms == 25500);
  CHECK(small.memberlist_defaults[2].replay.mistakes == 1);
  // n = 1000 scales the suspicion timeout by log10 n = 3: 12 s, and 72 s unconfirmed.
  const auto large = tune(arrivals, 100, 1000);
  CHECK(large.memberlist_defaults[1].silence_ms == doctest::Approx(13500));
  CHECK(large.memberlist_defaults[1].replay.mistakes == 1);
  CHECK(large.memberlist_defaults[2].replay.mistakes == 0);
  const auto report = tune_report(large, TuneOptions{});
  CHECK(std::any_of(report.tables.begin(), report.tables.end(),
                    [](const auto& t) { return t.key == "memberlist_defaults"; }));
}

TEST_CASE("the tuning inputs' table: well formed, and the options' defaults are its own") {
  vigil::test::check_well_formed(tune_param::budget);
  vigil::test::check_well_formed(tune_param::confidence);
  CHECK(TuneOptions{}.confidence == tune_param::confidence.def);
  TuneOptions options;
  options.confidence = tune_param::confidence.view_max;
  CHECK(options.validate().ok());  // the page's slider never offers what tuning refuses
}

TEST_CASE("tuning refuses bad options and short traces") {
  const auto arrivals = regular_with_gaps(150, {250});
  TuneOptions options;
  options.max_mistakes_per_hour = -1;
  CHECK(tune_trace(arrivals, options).error().message ==
        "--max-mistakes-per-hour must be a number >= 0");
  options.max_mistakes_per_hour = 1;
  options.nodes = 0;
  CHECK(tune_trace(arrivals, options).error().message == "--nodes must be between 1 and 1000000");
  options.nodes = 10;
  options.confidence = 1.0;
  CHECK(tune_trace(arrivals, options).error().message ==
        "--confidence must be in [0, 0.999], got 1");
  options.confidence = 0.95;
  const std::vector<Millis> tiny(arrivals.begin(), arrivals.begin() + 50);
  CHECK(tune_trace(tiny, options).error().message ==
        "the trace has 50 heartbeats; at least 102 are needed (the first 100 only train the "
        "detectors)");
}
