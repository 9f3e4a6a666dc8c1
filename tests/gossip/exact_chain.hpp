#pragma once

#include <cmath>
#include <vector>

#include <vigil/gossip/spread.hpp>

namespace vigil::gossip::testing {

// A test oracle for gossip::spread: the exact expected number of rounds, without simulation.
//
// Members are interchangeable and every contact picks uniformly among the n - 1 others, so the
// informed count I is a Markov chain. From I (U = live - I uninformed, q = 1 / (n - 1), p the
// loss):
// - the f·I pushes (push, push-pull) each reach a given uninformed member with probability
//   q(1 - p); the number of distinct members reached follows the occupancy recursion
//   k -> k + 1 with probability (U - k) q (1 - p) per push;
// - every member not reached pulls (pull, push-pull) on its own, succeeding with probability
//   1 - (1 - q·I·(1 - p)²)^f, independently of the pushes and of the others.
// E[rounds] = sum over r of P(I_r < live). Cost O(f·live³), meant for live up to a few hundred.
inline double exact_expected_rounds(const SpreadOptions& o) {
  const int n = static_cast<int>(o.nodes);
  const int live = static_cast<int>(o.nodes - o.dead);
  if (live <= 1) return 0.0;
  const double q = 1.0 / (n - 1);
  const double arrive_push = q * (1.0 - o.loss);
  const double arrive_pull = q * (1.0 - o.loss) * (1.0 - o.loss);

  // next[I][J]: probability of going from I to I + J informed in one round.
  std::vector<std::vector<double>> next(static_cast<std::size_t>(live));
  for (int informed = 1; informed < live; ++informed) {
    const int u = live - informed;
    std::vector<double> reached(static_cast<std::size_t>(u) + 1, 0.0);
    reached[0] = 1.0;
    if (o.mode != Mode::pull) {
      for (int push = 0; push < o.fanout * informed; ++push)
        for (int k = u; k >= 0; --k) {
          const double stay = reached[k] * (1.0 - (u - k) * arrive_push);
          const double come = k > 0 ? reached[k - 1] * (u - k + 1) * arrive_push : 0.0;
          reached[k] = stay + come;
        }
    }
    const double pull =
        o.mode == Mode::push ? 0.0 : 1.0 - std::pow(1.0 - informed * arrive_pull, o.fanout);
    auto& row = next[static_cast<std::size_t>(informed)];
    row.assign(static_cast<std::size_t>(u) + 1, 0.0);
    for (int k = 0; k <= u; ++k) {
      const int rest = u - k;
      if (pull >= 1.0) {
        row[static_cast<std::size_t>(u)] += reached[k];
        continue;
      }
      // Binomial(rest, pull) more, by the multiplicative recurrence on its terms.
      double term = std::pow(1.0 - pull, rest);
      for (int j = 0; j <= rest; ++j) {
        row[static_cast<std::size_t>(k) + static_cast<std::size_t>(j)] += reached[k] * term;
        term *= (rest - j) / (j + 1.0) * pull / (1.0 - pull);
      }
    }
  }

  std::vector<double> dist(static_cast<std::size_t>(live) + 1, 0.0);
  dist[1] = 1.0;
  double expected = 0.0;
  for (int round = 0; round < 100000; ++round) {
    const double unfinished = 1.0 - dist[static_cast<std::size_t>(live)];
    if (unfinished < 1e-13) break;
    expected += unfinished;
    std::vector<double> after(dist.size(), 0.0);
    after[static_cast<std::size_t>(live)] = dist[static_cast<std::size_t>(live)];
    for (int informed = 1; informed < live; ++informed) {
      const double mass = dist[static_cast<std::size_t>(informed)];
      if (mass == 0.0) continue;
      const auto& row = next[static_cast<std::size_t>(informed)];
      for (std::size_t j = 0; j < row.size(); ++j)
        after[static_cast<std::size_t>(informed) + j] += mass * row[j];
    }
    dist = std::move(after);
  }
  return expected;
}

}  // namespace vigil::gossip::testing
