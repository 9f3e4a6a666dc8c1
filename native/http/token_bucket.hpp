#pragma once

#include <algorithm>

#include <vigil/base/time.hpp>

namespace vigil::native {

// A token bucket: `rate` tokens a second refill it up to `burst`; each admitted event takes one.
// Starts full, so a client may send `burst` messages at once, then `rate` a second for ever.
// Time is passed in (any monotonic origin), which keeps it testable. A rate <= 0 admits all.
class TokenBucket {
 public:
  TokenBucket(double rate_per_second, double burst)
      : rate_(rate_per_second), burst_(std::max(1.0, burst)), tokens_(burst_) {}

  // Takes a token at `now` if there is one.
  bool take(Millis now) {
    if (rate_ <= 0) return true;
    refill(now);
    if (tokens_ < 1.0 - 1e-9) return false;  // refills in pieces do not quite add up to 1.0
    tokens_ = std::max(0.0, tokens_ - 1.0);
    return true;
  }

  double tokens(Millis now) {
    refill(now);
    return tokens_;
  }

 private:
  void refill(Millis now) {
    if (started_ && now > last_)
      tokens_ =
          std::min(burst_, tokens_ + rate_ * static_cast<double>((now - last_).count()) / 1000.0);
    if (!started_ || now > last_) last_ = now;
    started_ = true;
  }

  double rate_;
  double burst_;
  double tokens_;
  Millis last_{0};
  bool started_ = false;
};

}  // namespace vigil::native
