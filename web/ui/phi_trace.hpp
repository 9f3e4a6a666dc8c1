#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/time.hpp>
#include <vigil/detect/phi.hpp>
#include <vigil/detect/trace.hpp>
#include <vigil/lab/trace_replay.hpp>
#include <vigil/lab/trace_tune.hpp>

namespace vigil::web {

// What a reader's trace may make the page hold and compute. The file is read whole into memory,
// and tuning replays every detector family over it (about a second per 100,000 heartbeats in
// the browser); larger traces belong to `vigil tune` on the command line.
inline constexpr std::size_t kMaxTraceBytes = std::size_t{32} << 20;
inline constexpr std::size_t kMaxTraceHeartbeats = 100'000;

// The phi demo's five detectors as they run on a trace: timeouts of 3, 10 and 30 median gaps
// (the lab's 300 ms, 1 s and 3 s at a 100 ms cadence), then phi under the chosen tail above
// thresholds A and B, configured as `vigil lab detectors --trace` configures phi.
struct TraceDetectors {
  detect::TailModel model = detect::TailModel::normal;
  double threshold_a = 8.0;
  double threshold_b = 12.0;

  friend bool operator==(const TraceDetectors&, const TraceDetectors&) = default;
};
inline constexpr double kTraceTimeoutGaps[] = {3.0, 10.0, 30.0};

// A heartbeat trace loaded into the phi demo, with the figures the demo shows for the whole of
// it: each detector's replay, the tuning frontier, and where threshold A sits on it. Every figure
// is computed by the same core functions as `vigil lab detectors --trace` and `vigil tune`, and
// cached until its inputs change.
class PhiTrace {
 public:
  // Parses `text` (any format parse_trace reads). With several senders and no `sender`, the one
  // with the most heartbeats is shown. Refuses traces over the limits above, or too short to
  // replay, with the reason.
  static Result<PhiTrace> load(std::string name, std::string_view text, std::string_view sender,
                               detect::TimeUnit unit);

  const std::string& name() const { return name_; }
  const detect::Trace& parsed() const { return parsed_; }
  const detect::SenderTrace& sender() const { return parsed_.senders[sender_]; }
  std::size_t sender_index() const { return sender_; }
  // Shows another sender of the same file.
  Status choose_sender(std::size_t index);

  // The sender's arrivals, shifted so that the first is at 0: the demo's time axis.
  std::span<const Millis> arrivals() const { return arrivals_; }
  Millis duration() const { return arrivals_.back(); }
  double interval_ms() const { return interval_ms_; }
  double timeout_ms(std::size_t i) const;  // timeout i of kTraceTimeoutGaps, whole ms

  // Detector names as the demo labels them ("timeout 3.0 s", "phi(normal) > 8.0").
  std::string detector_name(const TraceDetectors& d, std::size_t i) const;
  // The five detectors replayed over the whole trace (warm-up and crash points as the CLI's).
  const std::vector<lab::TraceReplayRow>& replay(const TraceDetectors& d);

  // Tuning at a budget (mistakes per hour) and confidence, as `vigil tune` does.
  const lab::TuneResult& tune(double budget_per_hour, double confidence);
  // The frontier family that matches the demo's tail model, if tuning covers it.
  static std::string_view family_of(detect::TailModel model);

 private:
  PhiTrace() = default;
  void select(std::size_t index);

  std::string name_;
  detect::Trace parsed_;
  std::size_t sender_ = 0;
  std::vector<Millis> arrivals_;
  double interval_ms_ = 0.0;

  std::optional<TraceDetectors> replayed_for_;
  std::vector<lab::TraceReplayRow> replay_;
  std::optional<std::pair<double, double>> tuned_for_;
  lab::TuneResult tune_;
};

}  // namespace vigil::web
