// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <vigil/base/param_spec.hpp>
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
  // How sure the recommendation must be that its mistake rate stays within the budget beyond
  // this trace: a setting with m mistakes over the trace's H hours passes only if the one-sided
  // Poisson upper bound of its rate at this confidence is within the budget. 0 takes the trace's
  // count as the rate (m <= budget * H), which fits the trace and nothing more.
  double confidence = 0.95;
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

// What memberlist's default LAN timings (ProbeInterval 1 s, ProbeTimeout 500 ms, SuspicionMult 4,
// SuspicionMaxTimeoutMult 6) do on the trace, read as one observer's acks: a silence past
// interval + timeout is a suspicion; past that plus the suspicion timeout, a death. The timeout is
// SuspicionMult * max(1, log10 n) * ProbeInterval once enough members confirm, and Lifeguard
// starts it SuspicionMaxTimeoutMult times longer.
struct MemberlistDefaultRow {
  std::string what;  // "suspect", "dead (confirmed)", "dead (unconfirmed)"
  double silence_ms = 0.0;
  TraceReplayRow replay;
};

struct TuneResult {
  double interval_ms = 0.0;  // median gap
  double scored_hours = 0.0;
  std::size_t heartbeats = 0;
  // The budget in mistakes over the scored trace; empty when the trace is too short for any
  // count to show the budget at the requested confidence.
  std::optional<std::size_t> allowed_mistakes;
  std::vector<TuneFamily> families;
  std::optional<MemberlistSettings> memberlist;
  std::vector<MemberlistDefaultRow> memberlist_defaults;
};

// The most mistakes a setting may make over `hours` of trace for its rate to be within
// `budget_per_hour` at `confidence`: the largest m with P(Poisson(budget * hours) <= m) <= 1 -
// confidence, i.e. whose exact one-sided upper bound on the mean is within the budget. Empty when
// even m = 0 is not enough (hours < -ln(1 - confidence) / budget). Confidence 0: floor(budget *
// hours).
std::optional<std::size_t> allowed_mistakes(double budget_per_hour, double hours,
                                            double confidence);

// The shortest scored trace on which `budget_per_hour` can be shown at `confidence` (0 mistakes).
double hours_needed(double budget_per_hour, double confidence);

// The tuning inputs as `vigil tune` reads them and the phi demo's trace view shows them.
namespace tune_param {
// The CLI requires a budget; the page opens at ten mistakes an hour.
inline constexpr ParamSpec budget{.flag = "max-mistakes-per-hour",
                                  .key = "budget",
                                  .label = "budget /h",
                                  .unit = "per hour",
                                  .help = "mistake budget a setting must meet on the trace",
                                  .def = 10,
                                  .min = 0,
                                  .max = 1e6,
                                  .view_min = 0.1,
                                  .view_max = 1000,
                                  .log = true,
                                  .digits = 1};
inline constexpr ParamSpec confidence{
    .flag = "confidence",
    .label = "confidence (%)",
    .help =
        "how sure a setting must be to stay within the budget beyond this trace (Poisson "
        "upper bound; 0: the trace's own count)",
    .def = 0.95,
    .min = 0,
    .max = 0.999,
    .view_min = 0,
    .view_max = 0.999,
    .digits = 1,
    .percent = true};
}  // namespace tune_param

// Phi thresholds below this are not considered: phi 1 is already a 10% chance of such a silence.
inline constexpr double kMinPhiThreshold = 1.0;

Result<TuneResult> tune_trace(std::span<const Millis> arrivals, const TuneOptions& options,
                              const Progress& progress = {});

Report tune_report(const TuneResult& result, const TuneOptions& options);
// The frontier alone, for plotting.
Report tune_frontier_report(const TuneResult& result);

}  // namespace vigil::lab
