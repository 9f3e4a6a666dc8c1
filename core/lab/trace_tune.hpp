#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/time.hpp>
#include <vigil/lab/progress.hpp>
#include <vigil/lab/table.hpp>
#include <vigil/lab/trace_replay.hpp>

namespace vigil::lab {

// Tuning detectors to a recorded trace: per detector family, the most aggressive setting whose
// mistakes on the trace stay within a budget, and the detection time that setting buys.
struct TuneOptions {
  double max_mistakes_per_hour = 1.0;
  int nodes = 10;  // cluster size, for memberlist's log10(n) scaling
  TraceReplayOptions replay;

  Status validate() const;
};

// One setting of one family, replayed on the trace.
struct TunePoint {
  double budget_per_hour = 0.0;  // the budget it was chosen for
  std::size_t allowed_mistakes = 0;
  double parameter = 0.0;  // the timeout in ms, or the phi threshold
  TraceReplayRow replay;
};

struct TuneFamily {
  std::string family;               // "timeout", "phi-normal", ...
  std::string parameter;            // "timeout ms" or "phi threshold"
  std::optional<TunePoint> best;    // at the requested budget; empty if no setting meets it
  std::vector<TunePoint> frontier;  // detection time against mistake rate, one point a budget
};

// memberlist's (and Serf's) knobs implied by the trace, read as ack arrivals at the probe
// interval.
struct MemberlistSettings {
  double probe_interval_ms = 0.0;
  double probe_timeout_ms = 0.0;
  double tolerated_silence_ms = 0.0;  // the timeout family's choice at the budget
  int suspicion_mult = 0;
  double suspicion_timeout_ms = 0.0;  // SuspicionMult * max(1, log10 n) * ProbeInterval
  int nodes = 0;
};

struct TuneResult {
  double interval_ms = 0.0;  // median gap
  double scored_hours = 0.0;
  std::size_t heartbeats = 0;
  std::size_t allowed_mistakes = 0;  // the budget in mistakes over the scored trace
  std::vector<TuneFamily> families;
  std::optional<MemberlistSettings> memberlist;
};

// Phi thresholds below this are not considered: phi 1 is already a 10% chance of such a silence.
inline constexpr double kMinPhiThreshold = 1.0;

Result<TuneResult> tune_trace(std::span<const Millis> arrivals, const TuneOptions& options,
                              const Progress& progress = {});

Report tune_report(const TuneResult& result, const TuneOptions& options);
// The frontier alone, for plotting.
Report tune_frontier_report(const TuneResult& result);

}  // namespace vigil::lab
