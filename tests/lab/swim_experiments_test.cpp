#include <doctest/doctest.h>

#include <cmath>

#include <vigil/lab/swim_experiments.hpp>

#include "support/sanitized.hpp"

using namespace vigil::lab;

TEST_CASE("the probe-failure formula") {
  CHECK(100 * probe_failure_formula(0.05, 0) == doctest::Approx(9.75));
  CHECK(100 * probe_failure_formula(0.05, 3) == doctest::Approx(0.0619).epsilon(0.01));
  CHECK(100 * probe_failure_formula(0.20, 0) == doctest::Approx(36.0));
  CHECK(100 * probe_failure_formula(0.20, 3) == doctest::Approx(7.409).epsilon(0.001));
}

TEST_CASE("the engine's probe failure rate is within 3 sigma of the formula") {
  struct Case {
    double loss;
    int k;
  };
  for (const Case c : {Case{0.05, 0}, Case{0.20, 0}, Case{0.20, 3}, Case{0.10, 1}}) {
    const double loss = c.loss;
    const int k = c.k;
    CAPTURE(loss);
    CAPTURE(k);
    SwimProbeOptions o;
    o.loss = loss;
    o.indirect = k;
    o.probes = vigil::test::kSanitized ? 3000 : 30000;
    auto r = run_swim_probe(o).value();
    const double q = probe_failure_formula(loss, k);
    const double sigma = std::sqrt(q * (1 - q) / static_cast<double>(r.probes));
    CHECK(std::abs(r.simulated_pct / 100 - q) < 3 * sigma);
  }
}

TEST_CASE("a crash in a healthy cluster: detected, agreed, and no mistakes") {
  SwimRunOptions o;
  o.nodes = 50;
  o.kill = 2;
  o.periods = 40;
  auto r = run_swim(o).value();
  REQUIRE(r.first_detection_periods.has_value());
  REQUIRE(r.all_dead_periods.has_value());
  CHECK(*r.first_detection_periods < *r.all_dead_periods);
  CHECK(*r.all_dead_periods <= 40);
  CHECK(r.false_suspicions == 0);
  CHECK(r.false_deaths == 0);
  // Steady state: a ping and an ack per node per period, plus gossip while news spreads.
  CHECK(r.msgs_per_node_per_period >= 2.0);
  CHECK(r.msgs_per_node_per_period < 6.0);
}

TEST_CASE("Lifeguard cuts the false deaths a slow node causes") {
  SwimRunOptions o;
  o.nodes = 20;
  o.kill = 0;
  o.slow = 1;
  o.slow_periods = 5;
  o.periods = 300;
  o.lifeguard = true;
  const auto on = run_swim(o).value();
  o.lifeguard = false;
  const auto off = run_swim(o).value();
  CHECK(off.false_deaths_of_healthy > 20);
  CHECK(on.false_deaths_of_healthy < off.false_deaths_of_healthy / 10);
  CHECK(on.false_suspicions < off.false_suspicions / 2);
}

TEST_CASE("the cost table: formulas exact, simulated SWIM near two messages per node") {
  CostOptions o;
  o.nodes = {10, 100};
  auto rows = run_cost(o).value();
  REQUIRE(rows.size() == 8);
  CHECK(rows[0].scheme == "all-to-all heartbeat");
  CHECK(rows[0].msgs_per_s == 90);
  CHECK(rows[0].bytes_per_s == 9000);
  CHECK(rows[4].msgs_per_s == 9900);
  CHECK(rows[5].bytes_per_s == 406000);
  CHECK(rows[6].bytes_per_s == 60000);
  for (const auto& r : rows)
    if (r.source == "simulated") {
      CHECK(r.msgs_per_node >= 2.0);
      CHECK(r.msgs_per_node < 2.3);
    }
}

TEST_CASE("invalid experiment options are rejected") {
  SwimProbeOptions p;
  p.loss = 1.5;
  CHECK_FALSE(run_swim_probe(p).ok());
  p = {};
  p.indirect = -1;
  CHECK_FALSE(run_swim_probe(p).ok());
  SwimRunOptions s;
  s.kill = s.nodes;
  CHECK_FALSE(run_swim(s).ok());
  s = {};
  s.profile = "cloud";
  auto r = run_swim(s);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("cloud") != std::string::npos);
  CostOptions c;
  c.nodes = {1};
  CHECK_FALSE(run_cost(c).ok());
}
