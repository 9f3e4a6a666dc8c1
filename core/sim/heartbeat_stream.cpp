#include <vigil/sim/heartbeat_stream.hpp>

#include <cmath>
#include <string>

#include <vigil/sim/heartbeat_params.hpp>

namespace vigil::sim {

Status DelayModel::validate() const {
  if (!(mean_ms >= 0.0) || !std::isfinite(mean_ms))
    return Error{"delay mean must be a finite number of milliseconds >= 0, got " +
                 std::to_string(mean_ms)};
  if (!(stddev_ms >= 0.0) || !std::isfinite(stddev_ms))
    return Error{"delay standard deviation must be a finite number of milliseconds >= 0, got " +
                 std::to_string(stddev_ms)};
  return ok_status();
}

double DelayModel::sample(Rng& rng) const {
  if (kind == Kind::constant || stddev_ms == 0.0) return mean_ms;
  // With mean >= 0 at least half the mass is non-negative, so this ends quickly.
  for (;;) {
    const double d = rng.normal(mean_ms, stddev_ms);
    if (d >= 0.0) return d;
  }
}

Status HeartbeatConfig::validate() const {
  if (auto s = heartbeat_param::interval.check(static_cast<double>(interval.count())); !s) return s;
  if (auto s = heartbeat_param::loss.check(loss); !s) return s;
  if (auto s = heartbeat_param::delay.check(delay.mean_ms); !s) return s;
  if (auto s = heartbeat_param::jitter.check(delay.stddev_ms); !s) return s;
  for (const auto& p : pauses)
    if (p.at < Millis{0} || p.duration < Millis{0})
      return Error{"a sender pause needs a start >= 0 and a duration >= 0"};
  if (crash_at && *crash_at < Millis{0}) return Error{"crash time must be >= 0"};
  return ok_status();
}

Result<HeartbeatStream> HeartbeatStream::create(HeartbeatConfig config, Rng rng) {
  if (auto s = config.validate(); !s) return s.error();
  return HeartbeatStream(std::move(config), rng);
}

const SenderPause* HeartbeatStream::pause_covering(Millis t) const {
  for (const auto& p : config_.pauses)
    if (t >= p.at && t < p.end()) return &p;
  return nullptr;
}

std::vector<Heartbeat> HeartbeatStream::advance(Millis now) {
  while (!stopped_ && next_send_ <= now) {
    if (crashed_by(next_send_)) {
      stopped_ = true;
      break;
    }
    if (const SenderPause* p = pause_covering(next_send_)) {
      next_send_ = p->end();
      continue;
    }
    const Millis sent = next_send_;
    last_sent_ = sent;
    const std::uint64_t seq = sent_++;
    if (rng_.chance(config_.loss)) {
      ++lost_;
    } else {
      const auto delay = Millis{std::llround(config_.delay.sample(rng_))};
      in_flight_.push(sent + delay, Heartbeat{seq, sent, sent + delay});
    }
    next_send_ = (sent / config_.interval + 1) * config_.interval;
  }
  std::vector<Heartbeat> arrived;
  while (!in_flight_.empty() && in_flight_.next_time() <= now)
    arrived.push_back(in_flight_.pop().event);
  return arrived;
}

void HeartbeatStream::pause(Millis at, Millis duration) {
  if (at < Millis{0} || duration <= Millis{0}) return;
  config_.pauses.push_back(SenderPause{at, duration});
}

Status HeartbeatStream::reconfigure(Millis interval, DelayModel delay, double loss) {
  HeartbeatConfig next = config_;
  next.interval = interval;
  next.delay = delay;
  next.loss = loss;
  if (auto s = next.validate(); !s) return s;
  config_ = std::move(next);
  // Follow the new cadence from the last send on (a pause still defers it in advance()).
  if (sent_ > 0) next_send_ = (last_sent_ / interval + 1) * interval;
  return ok_status();
}

void HeartbeatStream::crash(Millis at) {
  if (!config_.crash_at || at < *config_.crash_at) config_.crash_at = at;
}

}  // namespace vigil::sim
