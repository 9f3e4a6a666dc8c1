#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include <vigil/base/rng.hpp>

using vigil::Rng;

TEST_CASE("mulberry32 matches the common JavaScript generator bit for bit") {
  // Reference values printed by the JavaScript rand() (before its division by 2^32) under Node.
  Rng seven(7);
  for (std::uint32_t expected : {50271532u, 266108690u, 4195786334u, 3002305430u, 2239590375u})
    CHECK(seven.next_u32() == expected);
  Rng zero(0);
  for (std::uint32_t expected : {1144304738u, 1416247u, 958946056u})
    CHECK(zero.next_u32() == expected);
  Rng all_ones(0xFFFFFFFFu);  // JavaScript's seed -1
  for (std::uint32_t expected : {3850105811u, 813802916u, 3073704848u})
    CHECK(all_ones.next_u32() == expected);
}

TEST_CASE("uniform() is the 32-bit output over 2^32, from 0 up to but excluding 1") {
  Rng a(7), b(7);
  for (int i = 0; i < 1000; ++i) {
    const double u = a.uniform();
    CHECK(u == static_cast<double>(b.next_u32()) / 4294967296.0);
    CHECK(u >= 0.0);
    CHECK(u < 1.0);
  }
}

TEST_CASE("below(n) stays below n and covers every value") {
  Rng rng(3);
  std::set<std::uint32_t> seen;
  for (int i = 0; i < 2000; ++i) {
    const auto v = rng.below(7);
    CHECK(v < 7u);
    seen.insert(v);
  }
  CHECK(seen.size() == 7);
  CHECK(rng.below(1) == 0u);
}

TEST_CASE("chance(p) honours its bounds and its rate") {
  Rng rng(11);
  int hits = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    CHECK_FALSE(rng.chance(0.0));
    CHECK(rng.chance(1.0));
    hits += rng.chance(0.15) ? 1 : 0;
  }
  // Binomial(n, 0.15): standard deviation sqrt(n p (1-p)) ~ 113; allow 5 sigma.
  CHECK(std::abs(hits - 0.15 * n) < 5 * std::sqrt(n * 0.15 * 0.85));
}

TEST_CASE("normal() has mean 0 and variance 1 within sampling error") {
  Rng rng(2024);
  const int n = 200000;
  double sum = 0, squares = 0;
  for (int i = 0; i < n; ++i) {
    const double x = rng.normal();
    sum += x;
    squares += x * x;
  }
  const double mean = sum / n;
  const double var = squares / n - mean * mean;
  CHECK(std::abs(mean) < 5.0 / std::sqrt(n));             // sd of the mean is 1/sqrt(n)
  CHECK(std::abs(var - 1.0) < 5.0 * std::sqrt(2.0 / n));  // sd of the variance ~ sqrt(2/n)
}

TEST_CASE("fork gives reproducible, distinct streams and leaves the parent untouched") {
  const Rng root(5);
  Rng a = root.fork(1), a_again = root.fork(1), b = root.fork(2);
  CHECK(root.state() == 5u);
  int same = 0;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next_u32();
    CHECK(x == a_again.next_u32());
    same += x == b.next_u32() ? 1 : 0;
  }
  CHECK(same < 3);
}
