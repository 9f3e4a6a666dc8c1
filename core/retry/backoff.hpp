// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/rng.hpp>
#include <vigil/retry/params.hpp>

namespace vigil::retry {

// How long a client waits before its next attempt, after Brooker's "Exponential Backoff And
// Jitter" (AWS Architecture Blog, 2015). `retry` counts the retries already made (0 before the
// first one); the ceiling of retry i is min(cap, base * 2^i).
enum class BackoffStrategy {
  none,          // retry at once (after `immediate_s`, a client loop's turnaround)
  fixed,         // base every time
  exponential,   // the ceiling itself: 1, 2, 4, 8 ... s with no jitter
  full_jitter,   // Uniform(0, ceiling)
  equal_jitter,  // ceiling / 2 + Uniform(0, ceiling / 2)
  decorrelated,  // min(cap, Uniform(base, previous * 3)), previous starting at base
};

std::string backoff_name(BackoffStrategy strategy);
// "none", "fixed", "exponential", "full-jitter", "equal-jitter", "decorrelated".
const std::vector<std::string>& backoff_names();
Result<BackoffStrategy> parse_backoff(const std::string& name);

struct Backoff {
  BackoffStrategy strategy = BackoffStrategy::full_jitter;
  double base_s = fleet_param::base.def;
  double cap_s = fleet_param::cap.def;
  double immediate_s = 0.01;  // the wait of `none`

  Status validate() const;

  double ceiling(int retry) const;
  // The wait before retry number `retry`. `previous_s` is the wait chosen last time (base_s
  // before the first retry); only the decorrelated strategy reads it. Jittered strategies draw
  // exactly one uniform, the others none, so a simulation's random stream does not depend on
  // which deterministic strategy it runs.
  double delay(int retry, double previous_s, Rng& rng) const;
};

}  // namespace vigil::retry
