#include "agent/fault_injector.hpp"

#include <cmath>
#include <string>

#include <vigil/sim/heartbeat_stream.hpp>

namespace vigil::native {

Status FaultSettings::validate() const {
  if (!(loss >= 0.0 && loss <= 1.0)) return Error{"loss must be within [0, 1]"};
  if (!(delay_ms >= 0.0 && delay_ms <= 60000.0)) return Error{"delay_ms must be within [0, 60000]"};
  if (!(jitter_ms >= 0.0 && jitter_ms <= 60000.0))
    return Error{"jitter_ms must be within [0, 60000]"};
  return ok_status();
}

Status FaultInjector::configure(const FaultSettings& settings) {
  if (auto s = settings.validate(); !s) return s;
  settings_ = settings;
  return ok_status();
}

std::optional<Millis> FaultInjector::apply(bool direction_enabled) {
  if (!direction_enabled) return Millis{0};
  if (settings_.loss > 0.0 && rng_.chance(settings_.loss)) return std::nullopt;
  if (settings_.delay_ms <= 0.0 && settings_.jitter_ms <= 0.0) return Millis{0};
  const double ms = sim::DelayModel::normal(settings_.delay_ms, settings_.jitter_ms).sample(rng_);
  return Millis{std::llround(ms)};
}

std::optional<Millis> FaultInjector::outgoing(const swim::Address& to) {
  if (blocked_.count(to)) return std::nullopt;
  return apply(settings_.on_send);
}

std::optional<Millis> FaultInjector::incoming() {
  return apply(settings_.on_receive);
}

}  // namespace vigil::native
