#include <vigil/lab/hysteresis_sweep.hpp>

#include <cmath>

namespace vigil::lab {

// Keep in step with run_hysteresis() in retry_experiments.cpp: same grid, same visiting order,
// same rule for the collapse and recovery loads.
Result<HysteresisSweep> HysteresisSweep::create(const HysteresisOptions& options) {
  if (auto s = options.validate(); !s) return s.error();
  return HysteresisSweep(options);
}

HysteresisSweep::HysteresisSweep(const HysteresisOptions& options) : options_(options) {
  const auto n = static_cast<int>(
      std::floor((options_.lambda_max - options_.lambda_min) / options_.step + 1e-9));
  for (int i = 0; i <= n; ++i) loads_.push_back(options_.lambda_min + i * options_.step);
  latency_ = options_.model.l0_ms;
  start(0);
}

void HysteresisSweep::start(int index) {
  if (index >= total()) {
    run_.reset();
    return;
  }
  const int up = static_cast<int>(loads_.size());
  // Up through the grid, then back down from the load below the top.
  const std::size_t at = static_cast<std::size_t>(index < up ? index : 2 * up - 2 - index);
  run_.emplace(options_.model, loads_[at], latency_, options_.settle_seconds);
}

void HysteresisSweep::step(int max_steps) {
  if (!run_) return;
  run_->step(max_steps);
  if (!run_->done()) return;
  record();
  start(visited());
}

void HysteresisSweep::record() {
  const retry::Settled s = run_->result();
  const double lambda0 = run_->lambda0();
  const bool up = this->up();
  const auto& m = options_.model;
  latency_ = s.latency_ms;
  result_.sweep.push_back({up, lambda0, latency_, m.offered(latency_, lambda0), m.carried(latency_),
                           m.goodput(latency_), s.converged});
  const double timeout = m.timeout_ms;
  if (up && !result_.collapse_load && latency_ > timeout) result_.collapse_load = lambda0;
  if (!up && high_ && !result_.recovery_load && latency_ < timeout) result_.recovery_load = lambda0;
  high_ = latency_ > timeout;
}

}  // namespace vigil::lab
