#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "agent/commands.hpp"

using vigil::native::tokens_equal;

namespace {

volatile int g_sink = 0;

// The fastest of many timed batches: the least disturbed by whatever else runs on the machine.
double fastest_ns(const std::string& a, const std::string& b) {
  double best = 1e300;
  for (int sample = 0; sample < 25; ++sample) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 200; ++i) g_sink = g_sink + tokens_equal(a, b);
    const auto ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start);
    best = std::min(best, ns.count());
  }
  return best;
}

}  // namespace

TEST_CASE("token comparison takes as long wherever the first difference is") {
  // Long strings make an early exit obvious: with one, a guess wrong in its first byte would be
  // rejected thousands of times faster than one wrong in its last.
  const std::string token(8192, 'k');
  std::string first = token, last = token, shorter = token.substr(0, 1);
  first.front() = 'x';
  last.back() = 'x';
  CHECK_FALSE(tokens_equal(first, token));
  CHECK_FALSE(tokens_equal(last, token));
  CHECK(tokens_equal(token, std::string(token)));
  // Interleaved rounds so that a burst of load elsewhere hits every case alike.
  double t_first = 1e300, t_last = 1e300, t_equal = 1e300;
  for (int round = 0; round < 4; ++round) {
    t_first = std::min(t_first, fastest_ns(first, token));
    t_last = std::min(t_last, fastest_ns(last, token));
    t_equal = std::min(t_equal, fastest_ns(token, std::string(token)));
  }
  INFO("first byte wrong " << t_first << " ns, last byte wrong " << t_last << " ns, equal "
                           << t_equal << " ns (200 comparisons of 8 KiB)");
  // An early-exit comparison would differ by orders of magnitude; allow machine noise.
  CHECK(t_first > 0.5 * t_last);
  CHECK(t_last > 0.5 * t_first);
  CHECK(t_equal > 0.5 * t_first);
  // A length mismatch is no shortcut either: the longer string is still walked.
  const double t_short = fastest_ns(shorter, token);
  CHECK(t_short > 0.5 * t_first);
}
