// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vigil/base/time.hpp>

namespace vigil::swim {

// Lifeguard's local health multiplier (memberlist's "awareness"): a score in [0, max-1] that
// rises when this node's own probes fail without nacks, when it must refute, or when its timers
// fire late (its host is starving it), falls with successful probes, and stretches the probe
// interval to interval * (score + 1). A node that is itself slow then accuses others less often.
class Awareness {
 public:
  explicit Awareness(int max_multiplier) : max_(max_multiplier) {}

  void apply(int delta);
  int score() const { return score_; }
  Millis scale(Millis timeout) const { return timeout * (score_ + 1); }

 private:
  int max_;
  int score_ = 0;
};

}  // namespace vigil::swim
