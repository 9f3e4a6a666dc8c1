#include <vigil/swim/suspicion.hpp>

#include <algorithm>
#include <cmath>

namespace vigil::swim {

Millis suspicion_min_timeout(int suspicion_mult, std::size_t cluster_size, Millis probe_interval) {
  const double scale = std::max(1.0, std::log10(std::max(1.0, static_cast<double>(cluster_size))));
  // memberlist keeps three decimals of the scale before multiplying.
  const auto milli_scale = static_cast<std::int64_t>(scale * 1000.0);
  return Millis{suspicion_mult * milli_scale * probe_interval.count() / 1000};
}

Suspicion::Suspicion(const std::string& from, int k, Millis min, Millis max, Millis start)
    : k_(k), min_(min), max_(max), start_(start) {
  confirmed_.insert(from);  // the accuser does not confirm itself
  deadline_ = start + (k < 1 ? min : max);
}

bool Suspicion::confirm(const std::string& from) {
  if (n_ >= k_) return false;
  if (!confirmed_.insert(from).second) return false;
  ++n_;
  const double fraction = std::log(n_ + 1.0) / std::log(k_ + 1.0);
  const double raw_ms =
      static_cast<double>(max_.count()) - fraction * static_cast<double>((max_ - min_).count());
  const Millis timeout = std::max(min_, Millis{static_cast<std::int64_t>(std::floor(raw_ms))});
  deadline_ = start_ + timeout;
  return true;
}

}  // namespace vigil::swim
