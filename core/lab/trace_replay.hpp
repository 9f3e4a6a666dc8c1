// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/detect/detector.hpp>
#include <vigil/detect/phi_accrual.hpp>
#include <vigil/detect/trace.hpp>
#include <vigil/lab/progress.hpp>
#include <vigil/lab/table.hpp>

namespace vigil::lab {

// Replaying a recorded heartbeat trace through failure detectors. The sender never crashed
// while the trace was recorded, so every suspicion is a mistake; detection time is measured by
// cutting the stream at instants drawn from the seed: the detector then suspects for good after
// the silence it needs following the last heartbeat before the cut.
struct TraceReplayOptions {
  std::size_t warmup_heartbeats = 100;  // train the detectors, unscored (the lab's phi window)
  int crash_points = 1000;
  std::uint32_t seed = 1;

  Status validate() const;
};

struct TraceReplayRow {
  std::string detector;
  std::size_t mistakes = 0;
  double observed_ms = 0.0;  // from the first scored heartbeat to the last one
  double mistake_ms = 0.0;   // total time wrongly suspected
  double max_mistake_ms = 0.0;
  std::size_t crashes = 0;         // crash points tried
  std::size_t undetected = 0;      // crash points after which the detector never suspects
  double detection_mean_ms = 0.0;  // silence from the last heartbeat to permanent suspicion
  double detection_max_ms = 0.0;

  double mistakes_per_hour() const;
  double mean_mistake_ms() const;
  double query_accuracy() const;  // P_A of Chen, Toueg and Aguilera
};

// The typical gap between heartbeats: the median, robust to the pauses a trace is replayed for.
double median_gap_ms(std::span<const Millis> arrivals);

// Phi as the lab configures it (window of 100 gaps, minimum deviation a tenth of the interval,
// bootstrap estimate one interval), for a stream every `interval_ms`.
detect::PhiAccrualConfig trace_phi_config(double interval_ms, detect::TailModel model,
                                          double pause_margin_ms = 0.0);

// The lab's detectors scaled to the trace's interval (at 100 ms they are exactly the lab's
// timeout-300ms, timeout-1s, timeout-3s, phi-8 and phi-12), plus phi > 8 under the logistic and
// exponential tails and with a pause margin of three intervals (Akka's ratio).
std::vector<std::unique_ptr<detect::Detector>> trace_detectors(double interval_ms);

// Checks that `arrivals` (sorted, distinct) are long enough for `options`.
Status check_replayable(std::span<const Millis> arrivals, const TraceReplayOptions& options);

// The heartbeat indices the stream is cut after, sorted: for each crash point drawn uniformly
// over the scored part of the trace, the last heartbeat at or before it.
std::vector<std::size_t> crash_cuts(std::span<const Millis> arrivals,
                                    const TraceReplayOptions& options);

// Each detector over the whole trace: its mistakes after the warm-up and its detection time at
// the seeded crash points. Deterministic. Phi detectors that share a window configuration are
// replayed together on one window (their own state is left untouched); others are fed the trace.
Result<std::vector<TraceReplayRow>> replay_trace(
    std::span<const Millis> arrivals, std::vector<std::unique_ptr<detect::Detector>>& detectors,
    const TraceReplayOptions& options, const Progress& progress = {});

// One sender's replay, for the report.
struct SenderReplay {
  detect::SenderTrace trace;
  double interval_ms = 0.0;
  std::vector<TraceReplayRow> rows;
};

Report trace_replay_report(const std::vector<SenderReplay>& senders, detect::TimeUnit unit,
                           const TraceReplayOptions& options);

}  // namespace vigil::lab
