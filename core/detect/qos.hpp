// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <span>
#include <vector>

#include <vigil/base/time.hpp>
#include <vigil/detect/detector.hpp>

namespace vigil::detect {

// A span of time during which a detector suspected a sender that was in fact up.
struct Mistake {
  double start_ms = 0.0;
  double end_ms = 0.0;
  double duration_ms() const { return end_ms - start_ms; }
};

// Quality-of-service of a failure detector over one trace, after Chen, Toueg and Aguilera
// ("On the quality of service of failure detectors", 2002).
struct QosReport {
  std::vector<Mistake> mistakes;
  double observed_ms = 0.0;            // time the sender was up, from the first heartbeat
  std::optional<double> detection_ms;  // T_D: crash -> start of permanent suspicion
  bool crashed = false;

  std::size_t mistake_count() const { return mistakes.size(); }
  double mistake_time_ms() const;           // total time wrongly suspected
  double mistake_rate_per_min() const;      // lambda_M
  double mean_mistake_duration_ms() const;  // T_M (0 with no mistakes)
  double query_accuracy() const;            // P_A: chance a random query while up gets "trust"
};

// Replays heartbeat arrival times (sorted) through `detector` and measures it. The sender is up
// until `crash_at` (if any); suspicions that start before the crash are mistakes, and the
// detection time is how long after the crash the final, permanent suspicion began (0 if it had
// already begun). Observation stops at `end`; a crash not detected by then has no detection time.
// Heartbeats before `observe_from` train the detector without being scored (a warm-up), so the
// report describes the steady state rather than the bootstrap.
QosReport evaluate(Detector& detector, std::span<const Millis> arrivals,
                   std::optional<Millis> crash_at, Millis end, Millis observe_from = Millis{0});

}  // namespace vigil::detect
