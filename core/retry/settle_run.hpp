// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <climits>

#include <vigil/retry/hysteresis.hpp>

namespace vigil::retry {

// settle(), a slice at a time, for hosts that interleave it with other work (the browser draws a
// frame every 16 ms, and one settle near a fold can take a simulated minute; with a large eta and
// mu_max a single simulated second takes tens of thousands of RK4 steps). The arithmetic is
// settle()'s, in the same order, so the result is bit for bit the same however it is sliced:
//
//   SettleRun run(model, lambda0, start_ms);
//   while (!run.done()) run.step(2000);
//   run.result() == settle(model, lambda0, start_ms)
class SettleRun {
 public:
  SettleRun(const HysteresisModel& model, double lambda0, double start_ms,
            double max_seconds = 600.0);

  bool done() const { return done_; }
  // Up to `max_steps` RK4 steps (at least one), never past the end of the simulated second under
  // way; when that second is complete, settle()'s convergence checks run. Nothing once done.
  void step(int max_steps = INT_MAX);

  double lambda0() const { return lambda0_; }
  double latency_ms() const { return latency_; }  // where latency is now
  double seconds() const { return seconds_; }     // whole simulated seconds so far
  int steps_per_second() const { return per_second_; }
  Settled result() const { return {latency_, seconds_, converged_}; }

 private:
  double drift(double latency_ms) const { return model_.drift(latency_ms, lambda0_); }

  HysteresisModel model_;
  double lambda0_;
  double max_seconds_;
  int per_second_ = 1;  // RK4 steps per simulated second
  double h_ = 1.0;      // their length, s
  double latency_;
  double begin_ = 0.0;  // latency when the second under way began
  int done_steps_ = 0;  // RK4 steps of the second under way
  double seconds_ = 0.0;
  bool converged_ = false;
  bool done_ = false;
};

}  // namespace vigil::retry
