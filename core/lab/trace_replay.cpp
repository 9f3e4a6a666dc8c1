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

// One detector's figures, accumulated as the replay goes.
class Scorer {
 public:
  Scorer(std::string name, double observed_ms) {
    row_.detector = std::move(name);
    row_.observed_ms = observed_ms;
  }
  // The gap from `last` to `next`, with the detector firing `delay` after `last`. The same rule
  // as detect::evaluate: a suspicion that starts, after the warm-up, before the next heartbeat.
  void gap(double last, double next, double delay, double from) {
    const double onset = last + delay;
    if (onset < next && onset >= from) {
      ++row_.mistakes;
      row_.mistake_ms += next - onset;
      row_.max_mistake_ms = std::max(row_.max_mistake_ms, next - onset);
    }
  }
  // The stream cut after a heartbeat, the detector then firing `delay` after it.
  void cut(double delay) {
    ++row_.crashes;
    if (!std::isfinite(delay)) {
      ++row_.undetected;
      return;
    }
    detection_sum_ += delay;
    row_.detection_max_ms = std::max(row_.detection_max_ms, delay);
  }
  TraceReplayRow finish() {
    const std::size_t detected = row_.crashes - row_.undetected;
    row_.detection_mean_ms = detected > 0 ? detection_sum_ / static_cast<double>(detected) : 0.0;
    return row_;
  }

 private:
  TraceReplayRow row_;
  double detection_sum_ = 0.0;
};

TraceReplayRow replay_one(detect::Detector& detector, std::span<const Millis> arrivals,
                          const std::vector<std::size_t>& cuts, double from) {
  Scorer scorer(detector.name(), static_cast<double>(arrivals.back().count()) - from);
  std::size_t cut = 0;
  detector.heartbeat(arrivals.front());
  for (std::size_t i = 1; i < arrivals.size(); ++i) {
    const double last = static_cast<double>(arrivals[i - 1].count());
    const double next = static_cast<double>(arrivals[i].count());
    scorer.gap(last, next, detector.suspicion_delay_ms(), from);
    detector.heartbeat(arrivals[i]);
    for (; cut < cuts.size() && cuts[cut] == i; ++cut) scorer.cut(detector.suspicion_delay_ms());
  }
  return scorer.finish();
}

// Phi detectors that differ only in tail model, pause margin and threshold see the same window
// of gaps: one window serves them all, which is most of the cost of a replay.
bool same_window(const detect::PhiAccrualConfig& a, const detect::PhiAccrualConfig& b) {
  return a.window == b.window && a.min_stddev_ms == b.min_stddev_ms &&
         a.first_heartbeat_estimate_ms == b.first_heartbeat_estimate_ms && a.min_gaps == b.min_gaps;
}

// Phi of one member of a group after `silence_ms`, from the shared window: what its own
// PhiAccrual::phi_after computes.
double member_phi(const detect::PhiAccrual& shared, const detect::PhiAccrualConfig& member,
                  double silence_ms) {
  if (shared.warming_up()) return 0.0;
  const double mean = shared.mean_ms();
  const double spread = shared.effective_stddev_ms();
  switch (member.model) {
    case detect::TailModel::normal:
      return detect::phi_normal(silence_ms, mean, spread, member.pause_margin_ms);
    case detect::TailModel::logistic:
      return detect::phi_logistic(silence_ms, mean, spread, member.pause_margin_ms);
    case detect::TailModel::exponential:
      return detect::phi_exponential(silence_ms, mean, member.pause_margin_ms);
    case detect::TailModel::empirical:
      return detect::phi_empirical(silence_ms, shared.window().unordered(), member.pause_margin_ms);
  }
  return 0.0;
}

// The member's firing silence: PhiAccrual::silence_to_reach's search, step for step, so that a
// grouped replay gives exactly the figures of a detector replayed alone.
double member_silence_to_reach(const detect::PhiAccrual& shared,
                               const detect::PhiAccrualConfig& member, double threshold) {
  if (shared.warming_up()) return std::numeric_limits<double>::infinity();
  auto phi = [&](double s) { return member_phi(shared, member, s); };
  if (phi(0.0) >= threshold) return 0.0;
  double hi = std::max(1.0, shared.mean_ms() + member.pause_margin_ms);
  constexpr double kNever = 1e12;
  while (phi(hi) < threshold) {
    hi *= 2.0;
    if (hi > kNever) return std::numeric_limits<double>::infinity();
  }
  double lo = 0.0;
  for (int i = 0; i < 80 && hi - lo > 1e-6; ++i) {
    const double mid = 0.5 * (lo + hi);
    (phi(mid) >= threshold ? hi : lo) = mid;
  }
  return hi;
}

// A cheap test that a member's phi is below its threshold: every model but the empirical one is
// a non-decreasing function of one standardised silence y, so each threshold has a largest y
// whose phi is still below it, found once. A gap at or under that y holds no suspicion; only the
// others pay for the tail function.
class BelowThreshold {
 public:
  BelowThreshold(const detect::PhiAccrualConfig& config, double threshold)
      : config_(config), model_(config.model) {
    if (model_ == detect::TailModel::empirical) return;
    auto phi = [&](double y) { return phi_of_y(y); };
    double lo = -1.0, hi = 1.0;
    while (phi(lo) >= threshold && lo > -1e6) lo *= 2.0;
    while (phi(hi) < threshold && hi < 1e300) hi *= 2.0;
    if (phi(lo) >= threshold) return;  // fires at any silence: no shortcut
    for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, std::fabs(lo)); ++i) {
      const double mid = 0.5 * (lo + hi);
      (phi(mid) >= threshold ? hi : lo) = mid;
    }
    y_below_ = lo;
    usable_ = true;
  }
  // True when phi after `silence_ms` is surely under the threshold (false: compute it).
  bool surely(const detect::PhiAccrual& shared, double silence_ms) const {
    if (!usable_) return false;
    const double t = silence_ms - config_.pause_margin_ms;
    const double y = model_ == detect::TailModel::exponential
                         ? t / shared.mean_ms()
                         : (t - shared.mean_ms()) / shared.effective_stddev_ms();
    return y <= y_below_;
  }

 private:
  double phi_of_y(double y) const {
    switch (model_) {
      case detect::TailModel::normal:
        return detect::phi_normal(y, 0.0, 1.0, 0.0);
      case detect::TailModel::logistic:
        return detect::phi_logistic(y, 0.0, 1.0, 0.0);
      case detect::TailModel::exponential:
        return detect::phi_exponential(y, 1.0, 0.0);
      case detect::TailModel::empirical:
        break;
    }
    return 0.0;
  }
  detect::PhiAccrualConfig config_;
  detect::TailModel model_;
  double y_below_ = 0.0;
  bool usable_ = false;
};

std::vector<TraceReplayRow> replay_phi_group(
    const std::vector<const detect::PhiThreshold*>& members, std::span<const Millis> arrivals,
    const std::vector<std::size_t>& cuts, double from) {
  auto shared = detect::PhiAccrual::create(members.front()->accrual().config()).value();
  std::vector<Scorer> scorers;
  for (const auto* m : members)
    scorers.emplace_back(m->name(), static_cast<double>(arrivals.back().count()) - from);
  std::vector<BelowThreshold> below;
  for (const auto* m : members) below.emplace_back(m->accrual().config(), m->threshold());
  std::size_t cut = 0;
  shared.heartbeat(arrivals.front());
  for (std::size_t i = 1; i < arrivals.size(); ++i) {
    const double last = static_cast<double>(arrivals[i - 1].count());
    const double next = static_cast<double>(arrivals[i].count());
    for (std::size_t j = 0; j < members.size(); ++j) {
      // While warming up phi is 0 and accuses no one.
      if (shared.warming_up() || below[j].surely(shared, next - last)) continue;
      const auto& config = members[j]->accrual().config();
      // Phi never falls as the silence grows: a gap whose end phi stays under the threshold
      // holds no suspicion, and needs no search for the firing silence.
      if (member_phi(shared, config, next - last) < members[j]->threshold()) continue;
      scorers[j].gap(last, next, member_silence_to_reach(shared, config, members[j]->threshold()),
                     from);
    }
    shared.heartbeat(arrivals[i]);
    for (; cut < cuts.size() && cuts[cut] == i; ++cut)
      for (std::size_t j = 0; j < members.size(); ++j)
        scorers[j].cut(member_silence_to_reach(shared, members[j]->accrual().config(),
                                               members[j]->threshold()));
  }
  std::vector<TraceReplayRow> rows;
  for (auto& s : scorers) rows.push_back(s.finish());
  return rows;
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
  std::vector<TraceReplayRow> rows(detectors.size());
  std::vector<bool> replayed(detectors.size(), false);
  const int total = static_cast<int>(detectors.size());
  int done = 0;
  for (std::size_t i = 0; i < detectors.size(); ++i) {
    if (replayed[i]) continue;
    const auto* phi = dynamic_cast<const detect::PhiThreshold*>(detectors[i].get());
    if (!phi) {
      rows[i] = replay_one(*detectors[i], arrivals, cuts, from);
      replayed[i] = true;
      if (progress) progress(++done, total);
      continue;
    }
    std::vector<std::size_t> group;
    std::vector<const detect::PhiThreshold*> members;
    for (std::size_t j = i; j < detectors.size(); ++j) {
      const auto* other = dynamic_cast<const detect::PhiThreshold*>(detectors[j].get());
      if (!replayed[j] && other &&
          same_window(other->accrual().config(), phi->accrual().config())) {
        group.push_back(j);
        members.push_back(other);
      }
    }
    auto group_rows = replay_phi_group(members, arrivals, cuts, from);
    for (std::size_t k = 0; k < group.size(); ++k) {
      rows[group[k]] = std::move(group_rows[k]);
      replayed[group[k]] = true;
    }
    done += static_cast<int>(group.size());
    if (progress) progress(done, total);
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
          std::to_string(options.warmup_heartbeats) + " heartbeats only train the detectors.",
      "Timeouts are 3, 10 and 30 median gaps; phi fits the last 100 gaps (min std-dev a tenth of",
      "the gap). Times are rounded to whole ms; same-ms duplicates are dropped, out-of-order",
      "records sorted."};
  return report;
}

}  // namespace vigil::lab
