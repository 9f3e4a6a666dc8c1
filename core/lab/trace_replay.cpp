#include <vigil/lab/trace_replay.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <vigil/base/rng.hpp>
#include <vigil/detect/fixed_timeout.hpp>
#include <vigil/detect/phi_threshold.hpp>

namespace vigil::lab {

namespace {

constexpr double kMsPerHour = 3'600'000.0;

std::string timeout_name(std::int64_t ms) {
  return ms % 1000 == 0 ? "timeout-" + std::to_string(ms / 1000) + "s"
                        : "timeout-" + std::to_string(ms) + "ms";
}

}  // namespace

std::vector<std::size_t> crash_cuts(std::span<const Millis> arrivals,
                                    const TraceReplayOptions& options) {
  Rng rng(options.seed);
  const double from = static_cast<double>(arrivals[options.warmup_heartbeats].count());
  const double to = static_cast<double>(arrivals.back().count());
  std::vector<std::size_t> out;
  out.reserve(static_cast<std::size_t>(options.crash_points));
  for (int i = 0; i < options.crash_points; ++i) {
    const double t = from + rng.uniform() * (to - from);
    const auto it = std::upper_bound(arrivals.begin(), arrivals.end(), t, [](double v, Millis a) {
      return v < static_cast<double>(a.count());
    });
    out.push_back(static_cast<std::size_t>(it - arrivals.begin()) - 1);
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

TraceReplayRow replay_one(detect::Detector& detector, std::span<const Millis> arrivals,
                          const std::vector<std::size_t>& cuts, double from) {
  TraceReplayRow row;
  row.detector = detector.name();
  row.observed_ms = static_cast<double>(arrivals.back().count()) - from;
  // A phi detector's bisection for its firing silence is the costly step; phi is
  // non-decreasing in the silence, so a gap whose end phi stays under the threshold cannot
  // hold a suspicion and needs no bisection.
  const auto* phi = dynamic_cast<const detect::PhiThreshold*>(&detector);
  std::size_t cut = 0;
  double detection_sum = 0.0;
  detector.heartbeat(arrivals.front());
  for (std::size_t i = 1; i < arrivals.size(); ++i) {
    const double last = static_cast<double>(arrivals[i - 1].count());
    const double next = static_cast<double>(arrivals[i].count());
    if (!phi || phi->accrual().phi_after(next - last) >= phi->threshold()) {
      // The same rule as detect::evaluate: a suspicion that starts before the next heartbeat.
      const double onset = last + detector.suspicion_delay_ms();
      if (onset < next && onset >= from) {
        ++row.mistakes;
        row.mistake_ms += next - onset;
        row.max_mistake_ms = std::max(row.max_mistake_ms, next - onset);
      }
    }
    detector.heartbeat(arrivals[i]);
    for (; cut < cuts.size() && cuts[cut] == i; ++cut) {
      ++row.crashes;
      const double delay = detector.suspicion_delay_ms();
      if (!std::isfinite(delay)) {
        ++row.undetected;
        continue;
      }
      detection_sum += delay;
      row.detection_max_ms = std::max(row.detection_max_ms, delay);
    }
  }
  const std::size_t detected = row.crashes - row.undetected;
  row.detection_mean_ms = detected > 0 ? detection_sum / static_cast<double>(detected) : 0.0;
  return row;
}

}  // namespace

Status TraceReplayOptions::validate() const {
  if (crash_points < 1 || crash_points > 1'000'000)
    return Error{"crash points must be between 1 and 1000000"};
  if (warmup_heartbeats < 1) return Error{"the warm-up must be at least 1 heartbeat"};
  return ok_status();
}

double TraceReplayRow::mistakes_per_hour() const {
  return observed_ms > 0.0 ? static_cast<double>(mistakes) * kMsPerHour / observed_ms : 0.0;
}

double TraceReplayRow::mean_mistake_ms() const {
  return mistakes > 0 ? mistake_ms / static_cast<double>(mistakes) : 0.0;
}

double TraceReplayRow::query_accuracy() const {
  return observed_ms > 0.0 ? 1.0 - mistake_ms / observed_ms : 1.0;
}

double median_gap_ms(std::span<const Millis> arrivals) {
  if (arrivals.size() < 2) return 0.0;
  std::vector<double> gaps;
  gaps.reserve(arrivals.size() - 1);
  for (std::size_t i = 1; i < arrivals.size(); ++i)
    gaps.push_back(static_cast<double>((arrivals[i] - arrivals[i - 1]).count()));
  const auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), mid, gaps.end());
  return *mid;
}

detect::PhiAccrualConfig trace_phi_config(double interval_ms, detect::TailModel model,
                                          double pause_margin_ms) {
  detect::PhiAccrualConfig c;
  c.model = model;
  c.window = 100;
  c.min_stddev_ms = std::max(interval_ms / 10.0, 1.0);
  c.first_heartbeat_estimate_ms = std::max(interval_ms, 1.0);
  c.pause_margin_ms = pause_margin_ms;
  return c;
}

std::vector<std::unique_ptr<detect::Detector>> trace_detectors(double interval_ms) {
  std::vector<std::unique_ptr<detect::Detector>> out;
  for (double times : {3.0, 10.0, 30.0}) {
    const auto ms = std::max<std::int64_t>(1, std::llround(times * interval_ms));
    out.push_back(std::make_unique<detect::FixedTimeout>(
        detect::FixedTimeout::create(Millis{ms}, timeout_name(ms)).value()));
  }
  using detect::TailModel;
  auto phi = [&](TailModel model, double threshold, double margin, std::string name) {
    out.push_back(std::make_unique<detect::PhiThreshold>(
        detect::PhiThreshold::create(trace_phi_config(interval_ms, model, margin), threshold,
                                     std::move(name))
            .value()));
  };
  phi(TailModel::normal, 8.0, 0.0, "phi-8");
  phi(TailModel::normal, 12.0, 0.0, "phi-12");
  phi(TailModel::logistic, 8.0, 0.0, "phi-8-logistic");
  phi(TailModel::exponential, 8.0, 0.0, "phi-8-exponential");
  phi(TailModel::normal, 8.0, 3.0 * interval_ms, "phi-8-pause");
  return out;
}

Status check_replayable(std::span<const Millis> arrivals, const TraceReplayOptions& options) {
  if (auto s = options.validate(); !s) return s;
  if (arrivals.size() < options.warmup_heartbeats + 2)
    return Error{"the trace has " + std::to_string(arrivals.size()) + " heartbeats; at least " +
                 std::to_string(options.warmup_heartbeats + 2) + " are needed (the first " +
                 std::to_string(options.warmup_heartbeats) + " only train the detectors)"};
  return ok_status();
}

Result<std::vector<TraceReplayRow>> replay_trace(
    std::span<const Millis> arrivals, std::vector<std::unique_ptr<detect::Detector>>& detectors,
    const TraceReplayOptions& options, const Progress& progress) {
  if (auto s = check_replayable(arrivals, options); !s) return s.error();
  const auto cuts = crash_cuts(arrivals, options);
  const double from = static_cast<double>(arrivals[options.warmup_heartbeats].count());
  std::vector<TraceReplayRow> rows;
  int done = 0;
  for (auto& d : detectors) {
    rows.push_back(replay_one(*d, arrivals, cuts, from));
    if (progress) progress(++done, static_cast<int>(detectors.size()));
  }
  return rows;
}

Report trace_replay_report(const std::vector<SenderReplay>& senders, detect::TimeUnit unit,
                           const TraceReplayOptions& options) {
  Table t;
  t.key = "detectors";
  t.title = "Detectors replayed on the trace (" + std::to_string(options.crash_points) +
            " crash points, seed " + std::to_string(options.seed) + ")";
  t.columns = {{"sender", "sender", 0},
               {"detector", "detector", 0},
               {"mistakes", "mistakes", 0},
               {"mistakes_per_hour", "mistakes/hour", 2},
               {"mean_mistake_ms", "mean mistake ms", 0},
               {"max_mistake_ms", "max mistake ms", 0},
               {"query_accuracy", "query accuracy", 6},
               {"detection_mean_ms", "detection mean ms", 0},
               {"detection_max_ms", "detection max ms", 0},
               {"undetected", "undetected", 0}};
  Table s;
  s.key = "senders";
  s.title = "The trace (times in " + std::string(detect::to_string(unit)) + ")";
  s.columns = {{"sender", "sender", 0},
               {"records", "records", 0},
               {"heartbeats", "heartbeats", 0},
               {"duplicates", "duplicates", 0},
               {"out_of_order", "out of order", 0},
               {"interval_ms", "median gap ms", 0},
               {"max_gap_ms", "max gap ms", 0},
               {"scored_hours", "scored hours", 3}};
  for (const auto& sr : senders) {
    const std::string name = sr.trace.sender.empty() ? "-" : sr.trace.sender;
    for (const auto& r : sr.rows)
      t.rows.push_back({name, r.detector, static_cast<std::int64_t>(r.mistakes),
                        r.mistakes_per_hour(), r.mean_mistake_ms(), r.max_mistake_ms,
                        r.query_accuracy(),
                        r.crashes > r.undetected ? Cell{r.detection_mean_ms} : Cell{},
                        r.crashes > r.undetected ? Cell{r.detection_max_ms} : Cell{},
                        static_cast<std::int64_t>(r.undetected)});
    double max_gap = 0.0;
    const auto& a = sr.trace.arrivals;
    for (std::size_t i = 1; i < a.size(); ++i)
      max_gap = std::max(max_gap, static_cast<double>((a[i] - a[i - 1]).count()));
    s.rows.push_back({name, static_cast<std::int64_t>(sr.trace.records),
                      static_cast<std::int64_t>(a.size()),
                      static_cast<std::int64_t>(sr.trace.duplicates),
                      static_cast<std::int64_t>(sr.trace.out_of_order), sr.interval_ms, max_gap,
                      sr.rows.empty() ? 0.0 : sr.rows.front().observed_ms / kMsPerHour});
  }
  Report report;
  report.tables = {std::move(t), std::move(s)};
  report.notes = {
      "Every suspicion on a recorded trace is a mistake: the sender was up. Detection: the stream",
      "is cut at seeded instants; the time is the silence after the last heartbeat before the cut",
      "until the detector suspects for good. The first " +
          std::to_string(options.warmup_heartbeats) +
          " heartbeats train the detectors unscored; timeouts",
      "are 3, 10 and 30 median gaps, phi fits the last 100 gaps (min std-dev a tenth of the gap).",
      "Times are rounded to whole ms; same-ms duplicates are dropped, out-of-order ones sorted."};
  return report;
}

}  // namespace vigil::lab
