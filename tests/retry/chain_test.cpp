#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include <vigil/retry/chain.hpp>

using namespace vigil::retry;

namespace {

double round2(double x) {
  return std::round(x * 100.0) / 100.0;
}

ChainAmplification run(int depth, int tries, double fail) {
  return amplify(Chain{depth, tries, fail}).value();
}

}  // namespace

TEST_CASE("expected calls per hop: worked examples") {
  CHECK(round2(expected_calls(3, 0.2)) == doctest::Approx(1.24));
  CHECK(round2(expected_calls(3, 0.7)) == doctest::Approx(2.19));
  CHECK(expected_calls(3, 0.0) == 1.0);
  CHECK(expected_calls(1, 0.9) == 1.0);  // one attempt, no retries
}

TEST_CASE("the reference chain table with k = 3, from the closed forms") {
  struct Row {
    int depth;
    double fail, amplification, worst, success_pct;
  };
  // A JavaScript version of this table prints 3.70 / 87.26% for p = 0.3 and 22.99 / 12.28% for p =
  // 0.7; its own formulas give 1.39^4 = 3.73, 0.973^5 = 87.21%, 2.19^4 = 23.00 and 0.657^5
  // = 12.24%, and no single p yields both of either pair, so the figures below are the formulas'.
  const Row rows[] = {{3, 0.05, 1.11, 9, 99.96},   {3, 0.20, 1.54, 9, 97.62},
                      {5, 0.10, 1.52, 81, 99.50},  {5, 0.30, 3.73, 81, 87.21},
                      {5, 0.70, 23.00, 81, 12.24}, {5, 1.00, 81.00, 81, 0.00}};
  for (const auto& r : rows) {
    CAPTURE(r.depth);
    CAPTURE(r.fail);
    const auto a = run(r.depth, 3, r.fail);
    CHECK(round2(a.amplification) == doctest::Approx(r.amplification));
    CHECK(a.worst_case == r.worst);
    CHECK(round2(100 * a.success) == doctest::Approx(r.success_pct));
  }
  const auto a = run(5, 3, 0.7);
  CHECK(a.calls_per_request == doctest::Approx(2.19));
  CHECK(a.amplification == doctest::Approx(std::pow(2.19, 4)));
}

TEST_CASE("at p = 1 every hop makes all k attempts and nothing succeeds") {
  for (int k : {1, 2, 3, 5}) {
    for (int n : {1, 2, 4, 7}) {
      const auto a = run(n, k, 1.0);
      CHECK(a.calls_per_request == k);
      CHECK(a.amplification == doctest::Approx(std::pow(k, n - 1)));
      CHECK(a.amplification == a.worst_case);
      CHECK(a.success == 0.0);
    }
  }
  // Continuous as p approaches 1: no 0/0 from the closed form.
  CHECK(expected_calls(3, 1.0 - 1e-12) == doctest::Approx(3.0));
}

TEST_CASE("no failures: one call per hop, no amplification, certain success") {
  const auto a = run(6, 4, 0.0);
  CHECK(a.calls_per_request == 1.0);
  CHECK(a.amplification == 1.0);
  CHECK(a.worst_case == 4.0 * 4 * 4 * 4 * 4);
  CHECK(a.success == 1.0);
}

TEST_CASE("amplification grows with p and depth, success falls") {
  double prev_a = 0.0, prev_s = 2.0;
  for (double p = 0.0; p <= 1.0; p += 0.05) {
    const auto a = run(5, 3, p);
    CHECK(a.amplification >= prev_a);
    CHECK(a.success <= prev_s);
    CHECK(a.amplification <= a.worst_case + 1e-9);
    prev_a = a.amplification;
    prev_s = a.success;
  }
  CHECK(run(6, 3, 0.5).amplification > run(5, 3, 0.5).amplification);
}

TEST_CASE("invalid chains are rejected with the option to fix") {
  auto message = [](Chain c) {
    auto r = amplify(c);
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  CHECK(message({5, 3, -0.1}).find("--fail") != std::string::npos);
  CHECK(message({5, 3, 1.5}) == "--fail must be in [0, 1], got 1.5");
  CHECK(message({5, 3, std::numeric_limits<double>::quiet_NaN()}).find("--fail") !=
        std::string::npos);
  CHECK(message({0, 3, 0.1}).find("--depth") != std::string::npos);
  CHECK(message({-2, 3, 0.1}).find("--depth") != std::string::npos);
  CHECK(message({5, 0, 0.1}).find("--retries") != std::string::npos);
  CHECK(message({5, -1, 0.1}).find("--retries") != std::string::npos);
  CHECK(message({65, 3, 0.1}).find("--depth") != std::string::npos);
}
