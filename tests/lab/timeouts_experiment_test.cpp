#include <doctest/doctest.h>

#include <cmath>

#include <vigil/lab/timeouts_experiment.hpp>

using namespace vigil::lab;

TEST_CASE("seed 7 reproduces the mulberry32 hour of heartbeats exactly") {
  const auto r = run_timeouts(TimeoutsOptions{}).value();
  REQUIRE(r.gaps_ms.size() == 3600);
  // A JavaScript simulation's table: timeout, false alarms/hour, average detection.
  const int alarms[] = {346, 32, 28, 15, 0};
  const int detect_avg[] = {720, 1012, 1505, 2499, 4495};
  REQUIRE(r.timeouts.size() == 5);
  for (int i = 0; i < 5; ++i) {
    CHECK(r.timeouts[i].false_alarms_per_hour == alarms[i]);
    CHECK(std::lround(r.timeouts[i].detect_avg_ms) == detect_avg[i]);
  }
  CHECK(std::lround(r.window_mean_ms) == 1009);
  CHECK(std::lround(r.window_std_ms) == 242);
  // Its phi table: "normal" there is Akka's logistic formula; exponential; measured.
  const double logistic[] = {0.29, 1.68, 4.97, 11.50, 22.89};
  const double exponential[] = {0.43, 0.65, 0.86, 1.08, 1.29};
  const double empirical[] = {0.32, 2.10, 2.15, 2.22, 2.40};
  REQUIRE(r.phi.size() == 5);
  for (int i = 0; i < 5; ++i) {
    CHECK(std::round(r.phi[i].phi_logistic * 100) / 100 == doctest::Approx(logistic[i]));
    CHECK(std::round(r.phi[i].phi_exponential * 100) / 100 == doctest::Approx(exponential[i]));
    CHECK(std::round(r.phi[i].phi_empirical * 100) / 100 == doctest::Approx(empirical[i]));
  }
}

TEST_CASE("longer timeouts: fewer false alarms, detection about T - interval/2") {
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    TimeoutsOptions o;
    o.seed = seed;
    const auto r = run_timeouts(o).value();
    for (std::size_t i = 1; i < r.timeouts.size(); ++i)
      CHECK(r.timeouts[i].false_alarms_per_hour <= r.timeouts[i - 1].false_alarms_per_hour);
    CHECK(r.timeouts.front().false_alarms_per_hour > r.timeouts.back().false_alarms_per_hour);
    for (const auto& row : r.timeouts) {
      // Mean of 1000 draws of T - 1000 U: standard error 1000/sqrt(12 * 1000) ~ 9.1 ms.
      CHECK(std::abs(row.detect_avg_ms - (row.timeout_ms - 500.0)) < 4 * 9.13);
      CHECK(row.detect_max_ms <= row.timeout_ms);
      CHECK(row.detect_max_ms > row.timeout_ms - 10);
    }
  }
}

TEST_CASE("the exact normal tail is below the logistic one far out, and finite phis grow") {
  const auto r = run_timeouts(TimeoutsOptions{}).value();
  CHECK(r.phi.back().phi_normal < r.phi.back().phi_logistic);
  for (std::size_t i = 1; i < r.phi.size(); ++i) {
    CHECK(r.phi[i].phi_normal > r.phi[i - 1].phi_normal);
    CHECK(r.phi[i].phi_exponential > r.phi[i - 1].phi_exponential);
    CHECK(r.phi[i].phi_empirical >= r.phi[i - 1].phi_empirical);
  }
}

TEST_CASE("invalid options are rejected") {
  TimeoutsOptions o;
  o.gaps = 1;
  CHECK_FALSE(run_timeouts(o).ok());
  o = {};
  o.timeouts_ms = {1000, -5};
  CHECK_FALSE(run_timeouts(o).ok());
  o = {};
  o.window = 0;
  CHECK_FALSE(run_timeouts(o).ok());
}
