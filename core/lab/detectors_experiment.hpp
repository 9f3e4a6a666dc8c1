// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/detect/detector.hpp>
#include <vigil/lab/progress.hpp>
#include <vigil/lab/table.hpp>
#include <vigil/sim/heartbeat_stream.hpp>

namespace vigil::lab {

// Timeouts against phi in virtual time: one heartbeat stream (every 100 ms), five detectors fed
// the same arrivals, four network/sender scenarios, each run ending with the sender crashing
// right after a heartbeat.
struct DetectorsOptions {
  std::vector<std::string> scenarios = {"stable", "jitter", "pause", "pause-jitter"};
  int runs = 3;
  int seconds = 20;
  std::uint32_t seed = 1;

  Status validate() const;
};

struct DetectorsRow {
  std::string scenario;
  std::string detector;
  double false_alarms_per_min = 0.0;
  double false_suspicion_ms = 0.0;     // total wrongly-suspected time over all runs
  std::optional<double> detection_ms;  // mean over runs of crash -> permanent suspicion
  std::vector<double> detection_ms_by_run;
  // Silence (ms since the last heartbeat) at which each false alarm fired, in order: a
  // JavaScript simulation of this experiment on mulberry32 fires phi at 155, 420 and 415 ms.
  std::vector<double> alarm_silences_ms;
};

// Before scoring, the detectors hear one window's worth of heartbeats (100 gaps), so the table
// describes phi in steady state rather than its bootstrap guess.
inline constexpr Millis kDetectorsWarmup{10000};

const std::vector<std::string>& detector_scenario_names();

// The stream for one scenario (interval, delay, loss, pauses after the warm-up), crash excluded.
Result<sim::HeartbeatConfig> detector_scenario(const std::string& name, int seconds);

// The five detectors: timeout-300ms, timeout-1s, timeout-3s, phi-8, phi-12.
std::vector<std::unique_ptr<detect::Detector>> experiment_detectors();

Result<std::vector<DetectorsRow>> run_detectors(const DetectorsOptions& options,
                                                const Progress& progress = {});

Report detectors_report(const std::vector<DetectorsRow>& rows, const DetectorsOptions& options);

}  // namespace vigil::lab
