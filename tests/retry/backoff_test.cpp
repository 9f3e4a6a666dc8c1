#include <doctest/doctest.h>

#include <cmath>

#include <vigil/retry/backoff.hpp>

using namespace vigil;
using namespace vigil::retry;

TEST_CASE("exponential backoff without jitter: 1, 2, 4, 8 s then the cap") {
  Backoff b{BackoffStrategy::exponential, 1.0, 20.0};
  Rng rng(1);
  const double expected[] = {1, 2, 4, 8, 16, 20, 20};
  double t = 0.0;
  const double wake[] = {1, 3, 7, 15, 31};
  for (int i = 0; i < 7; ++i) {
    CHECK(b.delay(i, 0.0, rng) == expected[i]);
    t += expected[i];
    if (i < 5) CHECK(t == wake[i]);
  }
  // A huge retry count neither overflows nor exceeds the cap.
  CHECK(b.delay(5000, 0.0, rng) == 20.0);
}

TEST_CASE("deterministic strategies draw nothing, jittered ones exactly one uniform") {
  for (auto s : {BackoffStrategy::none, BackoffStrategy::fixed, BackoffStrategy::exponential}) {
    Rng rng(9);
    Backoff{s, 1.0, 20.0}.delay(3, 1.0, rng);
    CHECK(rng.state() == Rng(9).state());
  }
  for (auto s : {BackoffStrategy::full_jitter, BackoffStrategy::equal_jitter,
                 BackoffStrategy::decorrelated}) {
    Rng rng(9), reference(9);
    Backoff{s, 1.0, 20.0}.delay(3, 2.0, rng);
    reference.next_u32();
    CHECK(rng.state() == reference.state());
  }
  Rng rng(1);
  CHECK(Backoff{BackoffStrategy::none, 1.0, 20.0, 0.01}.delay(7, 5.0, rng) == 0.01);
  CHECK(Backoff{BackoffStrategy::fixed, 1.5, 20.0}.delay(7, 5.0, rng) == 1.5);
}

TEST_CASE("jittered waits stay in Brooker's ranges and average where they should") {
  Rng rng(2002);
  const int n = 20000;
  for (int retry : {0, 2, 3, 6}) {
    CAPTURE(retry);
    Backoff full{BackoffStrategy::full_jitter, 1.0, 20.0};
    Backoff equal{BackoffStrategy::equal_jitter, 1.0, 20.0};
    const double c = full.ceiling(retry);
    double sum_full = 0.0, sum_equal = 0.0;
    for (int i = 0; i < n; ++i) {
      const double f = full.delay(retry, 1.0, rng);
      const double e = equal.delay(retry, 1.0, rng);
      CHECK((f >= 0.0 && f < c));
      CHECK((e >= c / 2 && e < c));
      sum_full += f;
      sum_equal += e;
    }
    // Means of n uniforms: standard errors c / sqrt(12 n) and (c / 2) / sqrt(12 n).
    const double se = c / std::sqrt(12.0 * n);
    CHECK(std::abs(sum_full / n - c / 2) < 4 * se);
    CHECK(std::abs(sum_equal / n - 3 * c / 4) < 4 * se / 2);
  }
  Backoff d{BackoffStrategy::decorrelated, 1.0, 20.0};
  double previous = d.base_s;
  for (int i = 0; i < 1000; ++i) {
    const double w = d.delay(i, previous, rng);
    CHECK(w >= 1.0);
    CHECK(w <= std::min(20.0, 3 * previous));
    previous = w;
  }
}

TEST_CASE("strategy names round-trip, and bad settings are rejected") {
  for (const auto& name : backoff_names()) CHECK(backoff_name(parse_backoff(name).value()) == name);
  CHECK(backoff_names().size() == 6);
  auto bad = parse_backoff("linear");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("none|fixed|exponential|full-jitter|equal-jitter|decorrelated") !=
        std::string::npos);
  CHECK(Backoff{BackoffStrategy::full_jitter, 1.0, 20.0}.validate().ok());
  CHECK(Backoff{BackoffStrategy::full_jitter, 0.0, 20.0}.validate().error().message.find(
            "--base") != std::string::npos);
  CHECK(Backoff{BackoffStrategy::full_jitter, 2.0, 1.0}.validate().error().message.find("--cap") !=
        std::string::npos);
}
