#include <vigil/detect/phi_accrual.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace vigil::detect {

Status PhiAccrualConfig::validate() const {
  if (window < 1) return Error{"window size must be at least 1 gap"};
  if (!std::isfinite(min_stddev_ms) || min_stddev_ms <= 0.0)
    return Error{"minimum standard deviation must be > 0 ms"};
  if (!std::isfinite(pause_margin_ms) || pause_margin_ms < 0.0)
    return Error{"pause margin (acceptable heartbeat pause) must be >= 0 ms"};
  if (!std::isfinite(first_heartbeat_estimate_ms) || first_heartbeat_estimate_ms <= 0.0)
    return Error{"first-heartbeat estimate must be > 0 ms"};
  return ok_status();
}

Result<PhiAccrual> PhiAccrual::create(const PhiAccrualConfig& config) {
  if (auto s = config.validate(); !s) return s.error();
  return PhiAccrual(config);
}

PhiAccrual::PhiAccrual(const PhiAccrualConfig& config) : config_(config), window_(config.window) {
  // Akka's bootstrap: two synthetic gaps at estimate -/+ estimate/4, so the first real silences
  // are judged against a plausible spread instead of none.
  const double est = config.first_heartbeat_estimate_ms;
  window_.push(est - est / 4.0);
  window_.push(est + est / 4.0);
}

void PhiAccrual::heartbeat(Millis now) {
  if (last_) {
    window_.push(static_cast<double>((now - *last_).count()));
    ++gaps_seen_;
  }
  last_ = now;
}

double PhiAccrual::effective_stddev_ms() const {
  return std::max(window_.stddev_ms(), config_.min_stddev_ms);
}

double PhiAccrual::phi_after(double silence_ms) const {
  if (warming_up()) return 0.0;
  const double mean = window_.mean_ms();
  const double margin = config_.pause_margin_ms;
  switch (config_.model) {
    case TailModel::normal:
      return phi_normal(silence_ms, mean, effective_stddev_ms(), margin);
    case TailModel::logistic:
      return phi_logistic(silence_ms, mean, effective_stddev_ms(), margin);
    case TailModel::exponential:
      return phi_exponential(silence_ms, mean, margin);
    case TailModel::empirical:
      return phi_empirical(silence_ms, window_.unordered(), margin);
  }
  return 0.0;
}

double PhiAccrual::phi(Millis now) const {
  if (!last_) return 0.0;
  return phi_after(static_cast<double>((now - *last_).count()));
}

double PhiAccrual::silence_to_reach(double threshold) const {
  if (warming_up()) return std::numeric_limits<double>::infinity();
  if (phi_after(0.0) >= threshold) return 0.0;
  double hi = std::max(1.0, window_.mean_ms() + config_.pause_margin_ms);
  constexpr double kNever = 1e12;  // ~30 years of silence: treat as "never"
  while (phi_after(hi) < threshold) {
    hi *= 2.0;
    if (hi > kNever) return std::numeric_limits<double>::infinity();
  }
  double lo = 0.0;
  // 1e-6 ms is far below any clock we simulate; 60 halvings always get there.
  for (int i = 0; i < 80 && hi - lo > 1e-6; ++i) {
    const double mid = 0.5 * (lo + hi);
    (phi_after(mid) >= threshold ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace vigil::detect
