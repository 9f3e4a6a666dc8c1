// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/lab/table.hpp>

namespace vigil::lab {

// An hour of heartbeats: 3,600 gaps of 1000 ms with a bell-shaped spread of ±450 ms
// (an Irwin-Hall sum of three uniforms, standard deviation 150 ms), 1% of them stretched by a
// pause of 0-4000 ms. With seed 7, mulberry32 draws what a JavaScript simulation on it draws.
struct TimeoutsOptions {
  std::uint32_t seed = 7;
  int gaps = 3600;
  int window = 1000;  // phi is fitted on the last `window` gaps
  double interval_ms = 1000.0;
  std::vector<int> timeouts_ms = {1200, 1500, 2000, 3000, 5000};
  std::vector<int> silences_ms = {1000, 1500, 2000, 2500, 3000};
  int crash_samples = 1000;  // random crash instants averaged per timeout

  Status validate() const;
};

struct TimeoutRow {
  int timeout_ms = 0;
  int false_alarms_per_hour = 0;  // gaps longer than the timeout
  double detect_avg_ms = 0.0;     // crash at a uniform moment after the last heartbeat
  double detect_max_ms = 0.0;
};

struct PhiRow {
  int silence_ms = 0;
  double phi_normal = 0.0;    // exact tail, 0.5*erfc
  double phi_logistic = 0.0;  // Akka's approximation (often presented as the normal tail)
  double phi_exponential = 0.0;
  double phi_empirical = 0.0;
};

struct TimeoutsResult {
  std::vector<double> gaps_ms;
  std::vector<TimeoutRow> timeouts;
  double window_mean_ms = 0.0;
  double window_std_ms = 0.0;
  std::vector<PhiRow> phi;
};

Result<TimeoutsResult> run_timeouts(const TimeoutsOptions& options);

Report timeouts_report(const TimeoutsResult& result, const TimeoutsOptions& options);

}  // namespace vigil::lab
