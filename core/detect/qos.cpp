#include <vigil/detect/qos.hpp>

#include <algorithm>

namespace vigil::detect {

double QosReport::mistake_time_ms() const {
  double total = 0.0;
  for (const auto& m : mistakes) total += m.duration_ms();
  return total;
}

double QosReport::mistake_rate_per_min() const {
  return observed_ms > 0.0 ? static_cast<double>(mistakes.size()) * 60000.0 / observed_ms : 0.0;
}

double QosReport::mean_mistake_duration_ms() const {
  return mistakes.empty() ? 0.0 : mistake_time_ms() / static_cast<double>(mistakes.size());
}

double QosReport::query_accuracy() const {
  return observed_ms > 0.0 ? 1.0 - mistake_time_ms() / observed_ms : 1.0;
}

QosReport evaluate(Detector& detector, std::span<const Millis> arrivals,
                   std::optional<Millis> crash_at, Millis end, Millis observe_from) {
  QosReport report;
  report.crashed = crash_at.has_value();
  if (arrivals.empty()) return report;

  const double up_until = static_cast<double>((crash_at ? std::min(*crash_at, end) : end).count());
  const double from = std::max(static_cast<double>(arrivals.front().count()),
                               static_cast<double>(observe_from.count()));
  report.observed_ms = std::max(0.0, up_until - from);

  // Suspicion during [onset, until) is wrong for the part that precedes the crash; suspicions
  // that began during the warm-up are not scored.
  auto record = [&](double onset, double until) {
    const double wrong_until = std::min(until, up_until);
    if (onset >= from && onset < wrong_until) report.mistakes.push_back({onset, wrong_until});
  };

  detector.heartbeat(arrivals.front());
  for (std::size_t i = 1; i < arrivals.size(); ++i) {
    const double last = static_cast<double>(arrivals[i - 1].count());
    const double next = static_cast<double>(arrivals[i].count());
    const double onset = last + detector.suspicion_delay_ms();
    if (onset < next) record(onset, next);
    detector.heartbeat(arrivals[i]);
  }

  const double last = static_cast<double>(arrivals.back().count());
  const double onset = last + detector.suspicion_delay_ms();
  const double end_ms = static_cast<double>(end.count());
  if (crash_at) {
    const double crash = static_cast<double>(crash_at->count());
    record(onset, crash);
    if (onset <= end_ms) report.detection_ms = std::max(0.0, onset - crash);
  } else {
    record(onset, end_ms);
  }
  return report;
}

}  // namespace vigil::detect
