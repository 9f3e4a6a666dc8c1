#include <doctest/doctest.h>

#include <cmath>

#include <vigil/retry/hysteresis.hpp>

using namespace vigil::retry;

namespace {

int count_stable(const std::vector<Equilibrium>& e) {
  int n = 0;
  for (const auto& x : e) n += x.stable;
  return n;
}

}  // namespace

TEST_CASE("the model's pieces: offered load steps up past the timeout, carried load saturates") {
  const HysteresisModel m;
  // Far from the timeout the sigmoid is 0 or 1 to within e^-15.
  CHECK(m.offered(20, 500) == doctest::Approx(500).epsilon(1e-6));
  CHECK(m.offered(80, 500) == doctest::Approx(1500).epsilon(1e-6));
  CHECK(m.offered(50, 500) == doctest::Approx(1000));
  CHECK(m.carried(m.l0_ms) == 0.0);
  // M/M/1 with a 1 ms service time: a 9 ms wait means rho = 0.9.
  CHECK(m.carried(29) == doctest::Approx(900));
  double prev = 0.0;
  for (double l = 20.5; l < 1000; l += 0.5) {
    CHECK(m.carried(l) > prev);
    CHECK(m.carried(l) < m.mu_max);
    CHECK(m.goodput(l) <= m.carried(l));
    prev = m.carried(l);
  }
  // The usual capacity curve: mu = 1000 / (1 + 0.1 * 5^2) = 285 at L = 100 ms.
  HysteresisModel degraded;
  degraded.alpha = 0.1;
  CHECK(degraded.capacity(100) == doctest::Approx(1000 / 3.5));
  CHECK(degraded.capacity(20) == doctest::Approx(1000 / 1.1));
}

TEST_CASE("the usual balance, offered = capacity, has at most one root, never stable") {
  // Why the model balances against the carried load: offered rises with L and capacity falls, so
  // their difference only grows and any crossing repels.
  HysteresisModel m;
  m.alpha = 0.1;
  for (double lambda0 : {200.0, 500.0, 900.0, 1300.0}) {
    double prev = -1e18;
    for (double l = 20; l < 1000; l += 0.25) {
      const double f = m.offered(l, lambda0) - m.capacity(l);
      CHECK(f > prev);
      prev = f;
    }
  }
}

TEST_CASE("one, three, one equilibria: healthy, bistable, storm") {
  const HysteresisModel m;
  auto low = equilibria(m, 200);
  REQUIRE(low.size() == 1);
  CHECK(low[0].stable);
  CHECK_FALSE(low[0].at_limit);
  CHECK(low[0].latency_ms < m.timeout_ms);
  // M/M/1: rho = 0.2 gives a wait of 0.25 ms.
  CHECK(low[0].latency_ms == doctest::Approx(20.25).epsilon(1e-6));

  auto mid = equilibria(m, 600);
  REQUIRE(mid.size() == 3);
  CHECK(mid[0].stable);
  CHECK_FALSE(mid[1].stable);
  CHECK(mid[2].stable);
  CHECK(mid[0].latency_ms < mid[1].latency_ms);
  CHECK(mid[1].latency_ms < mid[2].latency_ms);
  CHECK(mid[0].latency_ms < m.timeout_ms);
  CHECK(mid[2].latency_ms > m.timeout_ms);

  auto high = equilibria(m, 1200);
  REQUIRE(high.size() == 1);
  CHECK(high[0].stable);
  CHECK(high[0].latency_ms > m.timeout_ms);

  // Just under mu_max / (1 + gamma) the storm is a genuine root, not the queue limit.
  auto storm = equilibria(m, 330);
  REQUIRE(storm.size() == 3);
  CHECK_FALSE(storm[2].at_limit);
  CHECK(m.offered(storm[2].latency_ms, 330) ==
        doctest::Approx(m.carried(storm[2].latency_ms)).epsilon(1e-6));
}

TEST_CASE("without retries there is one stable equilibrium at every load") {
  HysteresisModel m;
  m.gamma = 0.0;
  for (double lambda0 = 50; lambda0 <= 1500; lambda0 += 50) {
    CAPTURE(lambda0);
    auto e = equilibria(m, lambda0);
    REQUIRE(e.size() == 1);
    CHECK(e[0].stable);
  }
}

TEST_CASE("capacity degradation alone is a sustaining effect: bistable even with gamma = 0") {
  HysteresisModel m;
  m.gamma = 0.0;
  m.alpha = 0.1;
  auto e = equilibria(m, 500);
  CHECK(count_stable(e) == 2);
  CHECK(e.back().at_limit);
}

TEST_CASE("settling lands on the stable equilibrium the flow leads to") {
  const HysteresisModel m;
  const auto roots = equilibria(m, 600);
  REQUIRE(roots.size() == 3);
  // From below the unstable root: the healthy one. From above: the storm.
  auto healthy = settle(m, 600, m.l0_ms);
  CHECK(healthy.converged);
  CHECK(healthy.latency_ms == doctest::Approx(roots[0].latency_ms).epsilon(1e-4));
  auto storm = settle(m, 600, roots[1].latency_ms + 1);
  CHECK(storm.converged);
  CHECK(storm.latency_ms == m.max_latency_ms);
  // Below mu_max / (1 + gamma) minus a margin, even the queue limit drains back to health.
  auto drained = settle(m, 300, m.max_latency_ms);
  CHECK(drained.converged);
  CHECK(drained.latency_ms < m.timeout_ms);
  CHECK(m.goodput(drained.latency_ms) == doctest::Approx(300).epsilon(1e-3));
}

TEST_CASE("invalid model parameters are rejected with the option to fix") {
  auto message = [](HysteresisModel m) { return m.validate().error().message; };
  HysteresisModel m;
  CHECK(m.validate().ok());
  m.timeout_ms = 10;
  CHECK(message(m).find("--timeout must be above --l0") != std::string::npos);
  m = {};
  m.kappa = 0;
  CHECK(message(m).find("--kappa") != std::string::npos);
  m = {};
  m.gamma = -1;
  CHECK(message(m).find("--gamma") != std::string::npos);
  m = {};
  m.max_latency_ms = 40;
  CHECK(message(m).find("--max-latency") != std::string::npos);
  m = {};
  m.mu_max = 0;
  CHECK(message(m).find("--mu-max") != std::string::npos);
}
