#include <vigil/gossip/theory.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>

#include "exact_chain.hpp"

using namespace vigil;
using gossip::Mode;

namespace {

gossip::SpreadOptions options(std::size_t n, int f, Mode mode) {
  gossip::SpreadOptions o;
  o.nodes = n;
  o.fanout = f;
  o.mode = mode;
  return o;
}

std::string one_decimal(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

}  // namespace

TEST_CASE("Pittel's formula gives the theory column") {
  CHECK(gossip::pittel_rounds(100, 1) == doctest::Approx(std::log2(100.0) + std::log(100.0)));
  const char* expected[] = {"11.2", "4.9", "16.9", "7.3", "22.5", "9.7"};
  int i = 0;
  for (double n : {100.0, 1000.0, 10000.0})
    for (double f : {1.0, 3.0}) CHECK(one_decimal(gossip::pittel_rounds(n, f)) == expected[i++]);
}

TEST_CASE("the push curve follows i' = i + (1 - i)(1 - e^(-f i)) for large n") {
  const std::size_t n = 1'000'000;
  for (int f : {1, 3}) {
    const auto curve = gossip::mean_field_curve(options(n, f, Mode::push), 60);
    double i = 1.0 / n;
    for (std::size_t r = 1; r < curve.size(); ++r) {
      i = i + (1 - i) * (1 - std::exp(-f * i));
      CAPTURE(r);
      CHECK(curve[r] / n == doctest::Approx(i).epsilon(1e-4));
    }
  }
}

TEST_CASE("the pull curve squares the uninformed fraction at fanout 1") {
  const std::size_t n = 1'000'000;
  const auto curve = gossip::mean_field_curve(options(n, 1, Mode::pull), 100);
  const double dn = static_cast<double>(n);
  for (std::size_t r = 1; r < curve.size(); ++r) {
    const double s = 1 - curve[r - 1] / dn;
    // Past one member left, informed = n - tiny loses the tiny to rounding.
    if (s > 0.5 || s * dn < 1) continue;
    // s' = s(1 - (1 - s)n/(n - 1)) = s² - s(1 - s)/(n - 1): s² while s·n is large.
    CHECK(1 - curve[r] / dn == doctest::Approx(s * s - s * (1 - s) / (dn - 1)).epsilon(1e-6));
    if (s > 0.01) CHECK(1 - curve[r] / dn == doctest::Approx(s * s).epsilon(1e-3));
  }
}

TEST_CASE("curves start at one member, never fall, and stop at the live count") {
  for (Mode m : {Mode::push, Mode::pull, Mode::push_pull}) {
    auto o = options(1000, 2, m);
    o.dead = 100;
    o.loss = 0.2;
    const auto curve = gossip::mean_field_curve(o, 1000);
    CHECK(curve.front() == 1.0);
    for (std::size_t r = 1; r < curve.size(); ++r) CHECK(curve[r] >= curve[r - 1]);
    CHECK(curve.back() == doctest::Approx(900.0));
    CHECK(curve.back() <= 900.0);
  }
  CHECK(gossip::mean_field_curve(options(1, 1, Mode::push), 10) == std::vector<double>{1.0});
  CHECK(gossip::mean_field_rounds(options(1, 1, Mode::push), 10) == 0.0);
}

TEST_CASE("the mean-field estimate runs close to the exact expectation") {
  // The recursion keeps only the mean of each round and so ignores how much the first rounds
  // vary; for these sizes that costs under a round (checked against the exact Markov chain).
  for (Mode m : {Mode::push, Mode::pull, Mode::push_pull})
    for (int f : {1, 2, 3}) {
      const auto o = options(100, f, m);
      CAPTURE(gossip::mode_name(m));
      CAPTURE(f);
      CHECK(std::abs(gossip::mean_field_rounds(o, 1000) -
                     gossip::testing::exact_expected_rounds(o)) < 1.0);
    }
}
