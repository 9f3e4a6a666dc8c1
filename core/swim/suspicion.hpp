// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <set>
#include <string>

#include <vigil/base/time.hpp>

namespace vigil::swim {

// min = SuspicionMult * max(1, log10 N) * ProbeInterval, as memberlist computes it.
Millis suspicion_min_timeout(int suspicion_mult, std::size_t cluster_size, Millis probe_interval);

// Lifeguard's suspicion timer for one suspect member. It starts at `max` when k independent
// confirmations are expected (k >= 1), else at `min`; each new confirmation from a distinct
// member shrinks it along max - log(n+1)/log(k+1) * (max - min), never below `min`.
class Suspicion {
 public:
  Suspicion(const std::string& from, int k, Millis min, Millis max, Millis start);

  // A confirmation from `from`. Returns true if it counted (new, and fewer than k so far):
  // memberlist re-gossips only those.
  bool confirm(const std::string& from);

  Millis deadline() const { return deadline_; }
  int confirmations() const { return n_; }
  Millis start() const { return start_; }

 private:
  int k_;
  int n_ = 0;
  Millis min_, max_, start_, deadline_;
  std::set<std::string> confirmed_;
};

}  // namespace vigil::swim
