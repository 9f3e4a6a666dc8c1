#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <vigil/detect/phi.hpp>

using namespace vigil::detect;

TEST_CASE("the same 1200 ms silence alarms a steady link, not a noisy one") {
  const double steady = phi(1200, 1000, 50).value();
  const double noisy = phi(1200, 1000, 300).value();
  CHECK(steady > 4.49);
  CHECK(steady < 4.51);
  CHECK(noisy > 0.59);
  CHECK(noisy < 0.61);
  CHECK(steady > 2);
  CHECK(noisy < 2);
}

TEST_CASE("a 200 ms pause margin turns 1200 ms into a median silence") {
  CHECK(phi(1200, 1000, 50, 200).value() == doctest::Approx(std::log10(2.0)).epsilon(1e-12));
}

TEST_CASE("phi grows with the silence, for every closed-form model") {
  for (auto model : {TailModel::normal, TailModel::logistic, TailModel::exponential}) {
    double previous = -1;
    for (double t = 0; t <= 3000; t += 50) {
      const double p = phi(t, 1000, 50, 0, model).value();
      CHECK(p >= previous);
      previous = p;
    }
    CHECK(phi(1300, 1000, 50, 0, model).value() > phi(1200, 1000, 50, 0, model).value());
  }
}

TEST_CASE("the normal tail keeps its precision far out, then reports infinity") {
  // 1 - F(z) would already be 0 in doubles at z = 9; erfc still resolves it.
  CHECK(normal_tail(9.0) == doctest::Approx(1.1285884059538e-19).epsilon(1e-9));
  CHECK(phi_normal(1450, 1000, 50, 0) == doctest::Approx(18.948).epsilon(1e-4));
  CHECK(std::isinf(phi_normal(1e6, 1000, 50, 0)));
  CHECK(phi_from_tail(0.0) == std::numeric_limits<double>::infinity());
  CHECK_FALSE(std::signbit(phi_from_tail(1.0)));  // a certain tail is phi 0, never -0
}

TEST_CASE("the logistic approximation is close near the mean and stays finite far out") {
  for (double z : {-2.0, -1.0, 0.0, 1.0, 2.0}) {
    const double t = 1000 + 100 * z;
    CHECK(std::abs(phi_logistic(t, 1000, 100, 0) - phi_normal(t, 1000, 100, 0)) < 1e-3);
  }
  CHECK(std::abs(phi_logistic(1300, 1000, 100, 0) - phi_normal(1300, 1000, 100, 0)) < 0.05);
  // Far in the tail it overstates phi (Akka's approximation gives 22.89 where the exact value is
  // ~16).
  CHECK(phi_logistic(1800, 1000, 100, 0) > phi_normal(1800, 1000, 100, 0));
  CHECK(std::isfinite(phi_logistic(1e7, 1000, 100, 0)));
  // At the mean the logistic tail is exactly one half.
  CHECK(phi_logistic(1000, 1000, 100, 0) == doctest::Approx(std::log10(2.0)));
}

TEST_CASE("the exponential model is Cassandra's t / (mean ln 10)") {
  CHECK(phi_exponential(1000 * std::log(10.0), 1000, 0) == doctest::Approx(1.0));
  CHECK(phi_exponential(0, 1000, 0) == 0.0);
  // The margin shifts the distribution: silences shorter than it count as none.
  CHECK(phi_exponential(150, 1000, 200) == 0.0);
  CHECK(phi_exponential(1200, 1000, 200) == doctest::Approx(phi_exponential(1000, 1000, 0)));
}

TEST_CASE("the empirical model counts the window's longer gaps") {
  const std::vector<double> gaps = {100, 200, 300, 400};
  CHECK(phi_empirical(250, gaps, 0) == doctest::Approx(std::log10(2.0)));  // 2 of 4 are longer
  CHECK(phi_empirical(350, gaps, 0) == doctest::Approx(std::log10(4.0)));
  CHECK(std::isinf(phi_empirical(400, gaps, 0)));  // no gap is longer than 400
  CHECK(phi_empirical(450, gaps, 100) == doctest::Approx(std::log10(4.0)));
  CHECK(phi_empirical(50, {}, 0) == 0.0);
}

TEST_CASE("invalid input is rejected with a message, never computed") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(phi(-1, 1000, 50).ok());
  CHECK_FALSE(phi(1200, 0, 50).ok());
  CHECK_FALSE(phi(1200, -5, 50).ok());
  CHECK_FALSE(phi(1200, 1000, 0).ok());
  CHECK_FALSE(phi(1200, 1000, -1).ok());
  CHECK_FALSE(phi(1200, 1000, 50, -10).ok());
  CHECK_FALSE(phi(nan, 1000, 50).ok());
  CHECK_FALSE(phi(1200, 1000, 50, 0, TailModel::empirical).ok());
  CHECK(phi(1200, 1000, 0, 0, TailModel::exponential).ok());  // no spread needed there
  auto r = phi(1200, 1000, 0);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("--std must be in (0,") == 0);
}

TEST_CASE("tail model names round-trip") {
  for (auto m :
       {TailModel::normal, TailModel::logistic, TailModel::exponential, TailModel::empirical})
    CHECK(parse_tail_model(to_string(m)).value() == m);
  CHECK_FALSE(parse_tail_model("gaussian").ok());
}
