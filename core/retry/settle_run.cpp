#include <vigil/retry/settle_run.hpp>

#include <algorithm>
#include <cmath>

namespace vigil::retry {

// Keep in step with settle() in hysteresis.cpp: same step size, same order of operations.
SettleRun::SettleRun(const HysteresisModel& model, double lambda0, double start_ms,
                     double max_seconds)
    : model_(model), lambda0_(lambda0), max_seconds_(max_seconds) {
  const double rate = model_.eta * (model_.mu_max * model_.mu_max / 1000.0 +
                                    lambda0 * model_.gamma * model_.kappa / 4.0);
  const double dt = std::min(0.001, 2.0 / rate);
  per_second_ = static_cast<int>(std::ceil(1.0 / dt));
  h_ = 1.0 / per_second_;
  latency_ = std::clamp(start_ms, model_.l0_ms, model_.max_latency_ms);
  done_ = !(seconds_ < max_seconds_);
}

void SettleRun::step(int max_steps) {
  if (done_) return;
  const double lo = model_.l0_ms, hi = model_.max_latency_ms;
  if (done_steps_ == 0) {
    // settle()'s checks at the top of its loop, before a simulated second begins.
    if (latency_ >= hi && drift(hi) >= 0) {
      converged_ = done_ = true;
      return;
    }
    begin_ = latency_;
  }
  const double h = h_;
  double l = latency_;
  const int steps = std::min(std::max(max_steps, 1), per_second_ - done_steps_);
  for (int i = 0; i < steps; ++i) {
    const double k1 = drift(l);
    const double k2 = drift(l + 0.5 * h * k1);
    const double k3 = drift(l + 0.5 * h * k2);
    const double k4 = drift(l + h * k3);
    l = std::clamp(l + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4), lo, hi);
  }
  latency_ = l;
  done_steps_ += steps;
  if (done_steps_ < per_second_) return;
  done_steps_ = 0;
  seconds_ += 1.0;
  if (std::abs(l - begin_) < 1e-3) {
    converged_ = done_ = true;
    return;
  }
  done_ = !(seconds_ < max_seconds_);
}

}  // namespace vigil::retry
