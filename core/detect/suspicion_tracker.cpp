#include <vigil/detect/suspicion_tracker.hpp>

#include <algorithm>

namespace vigil::detect {

void SuspicionTracker::observe(Millis now, bool suspecting, std::optional<Millis> crashed_at) {
  if (crashed_at && !crashed_at_) crashed_at_ = crashed_at;
  if (started_ && suspecting_) {
    // The part of [last, now) before the crash was a wrong suspicion.
    const Millis up_until = crashed_at_ ? std::min(now, *crashed_at_) : now;
    if (up_until > last_) false_ms_ += static_cast<double>((up_until - last_).count());
  }
  if (suspecting && (!started_ || !suspecting_)) {
    since_ = now;
    if (!crashed_at_ || now < *crashed_at_) ++false_alarms_;
  }
  started_ = true;
  suspecting_ = suspecting;
  last_ = now;
}

std::optional<double> SuspicionTracker::detection_ms() const {
  if (!crashed_at_ || !suspecting_) return std::nullopt;
  return static_cast<double>(std::max(Millis{0}, since_ - *crashed_at_).count());
}

}  // namespace vigil::detect
