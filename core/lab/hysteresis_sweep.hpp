// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <climits>
#include <optional>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/lab/retry_experiments.hpp>
#include <vigil/retry/settle_run.hpp>

namespace vigil::lab {

// run_hysteresis(), a slice at a time: the same loads in the same order, each
// settled from the previous one's latency by a retry::SettleRun, so the finished result equals
// run_hysteresis(options) row for row, collapse and recovery loads included. Hosts with a frame
// budget call step() until it is spent; the rows so far are readable at any time.
class HysteresisSweep {
 public:
  static Result<HysteresisSweep> create(const HysteresisOptions& options);

  bool done() const { return !run_.has_value(); }
  // Advances the load being settled by up to `max_steps` RK4 steps (retry::SettleRun::step);
  // once it has settled, records its row and starts the next load. Nothing once done.
  void step(int max_steps = INT_MAX);

  const HysteresisOptions& options() const { return options_; }
  const std::vector<double>& loads() const { return loads_; }  // the grid, lowest first
  int total() const { return 2 * static_cast<int>(loads_.size()) - 1; }
  int visited() const { return static_cast<int>(result_.sweep.size()); }
  // Rows so far (up, then down). collapse_load and recovery_load are final once set.
  const HysteresisResult& result() const { return result_; }

  // The load being settled, its direction and its latency so far (not meaningful once done).
  double load() const { return run_ ? run_->lambda0() : 0.0; }
  bool up() const { return visited() < static_cast<int>(loads_.size()); }
  double latency_ms() const { return run_ ? run_->latency_ms() : latency_; }

 private:
  explicit HysteresisSweep(const HysteresisOptions& options);
  void start(int index);  // begins settling the index-th visit (0 .. total() - 1)
  void record();

  HysteresisOptions options_;
  std::vector<double> loads_;
  std::optional<retry::SettleRun> run_;
  double latency_ = 0.0;  // where the previous load settled
  bool high_ = false;     // the previous row's latency was above the timeout
  HysteresisResult result_;
};

}  // namespace vigil::lab
