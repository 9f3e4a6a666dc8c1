#include <vigil/lab/trace_tune.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>

#include <vigil/detect/fixed_timeout.hpp>
#include <vigil/detect/phi_threshold.hpp>

namespace vigil::lab {

namespace {

constexpr double kMsPerHour = 3'600'000.0;

// Budgets (mistakes per hour) the frontier is drawn at, besides the requested one.
constexpr double kFrontierBudgets[] = {0, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};

struct Family {
  std::string name;
  std::string parameter;
  // The value of the family's parameter at the end of each gap that may be scored (its
  // "score": a gap is a mistake only if it exceeds the setting), in one pass.
  std::function<std::vector<double>(std::span<const Millis>, std::size_t first_gap)> scores;
  double floor;  // the lowest setting considered
  // The setting nudged up when a replay finds more mistakes than allowed (boundary rounding).
  std::function<double(double)> bump;
  std::function<std::unique_ptr<detect::Detector>(double)> make;
};

std::vector<Family> families(double interval_ms) {
  std::vector<Family> out;
  out.push_back({"timeout", "timeout ms",
                 [](std::span<const Millis> a, std::size_t first) {
                   std::vector<double> gaps;
                   for (std::size_t i = first; i < a.size(); ++i)
                     gaps.push_back(static_cast<double>((a[i] - a[i - 1]).count()));
                   return gaps;
                 },
                 1.0, [](double t) { return t + 1.0; },
                 [](double t) -> std::unique_ptr<detect::Detector> {
                   return std::make_unique<detect::FixedTimeout>(
                       detect::FixedTimeout::create(Millis{std::llround(t)}).value());
                 }});
  struct PhiFamily {
    const char* name;
    detect::TailModel model;
    double margin;
  };
  for (auto f : {PhiFamily{"phi-normal", detect::TailModel::normal, 0.0},
                 PhiFamily{"phi-logistic", detect::TailModel::logistic, 0.0},
                 PhiFamily{"phi-exponential", detect::TailModel::exponential, 0.0},
                 PhiFamily{"phi-normal-pause", detect::TailModel::normal, 3.0 * interval_ms}}) {
    const auto config = trace_phi_config(interval_ms, f.model, f.margin);
    out.push_back({f.name, "phi threshold",
                   [config](std::span<const Millis> a, std::size_t first) {
                     auto accrual = detect::PhiAccrual::create(config).value();
                     std::vector<double> phis;
                     accrual.heartbeat(a[0]);
                     for (std::size_t i = 1; i < a.size(); ++i) {
                       if (i >= first)
                         phis.push_back(
                             accrual.phi_after(static_cast<double>((a[i] - a[i - 1]).count())));
                       accrual.heartbeat(a[i]);
                     }
                     return phis;
                   },
                   kMinPhiThreshold, [](double th) { return th * 1.0001 + 1e-9; },
                   [config](double th) -> std::unique_ptr<detect::Detector> {
                     return std::make_unique<detect::PhiThreshold>(
                         detect::PhiThreshold::create(config, th).value());
                   }});
  }
  return out;
}

// The lowest setting that leaves at most `allowed` scores above it (+infinity if phi itself
// overflowed there: the tail underflowed and no threshold helps).
double initial_setting(const Family& family, const std::vector<double>& sorted_desc,
                       std::size_t allowed) {
  const double setting = allowed < sorted_desc.size() ? sorted_desc[allowed] : family.floor;
  return std::max(setting, family.floor);
}

TunePoint make_point(const Family& family, double setting, TraceReplayRow row, double budget,
                     std::size_t allowed) {
  TunePoint p;
  p.budget_per_hour = budget;
  p.allowed_mistakes = allowed;
  p.parameter = setting;
  p.replay = std::move(row);
  p.replay.detector = family.name;
  return p;
}

// Replays one setting, nudging it up until the allowed mistakes hold (a few steps at most: the
// setting already sits on the boundary, up to rounding in the firing silence).
std::optional<TunePoint> bumped_point(const Family& family, std::span<const Millis> arrivals,
                                      double setting, std::size_t allowed, double budget,
                                      const TraceReplayOptions& options) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    setting = family.bump(setting);
    std::vector<std::unique_ptr<detect::Detector>> one;
    one.push_back(family.make(setting));
    auto rows = replay_trace(arrivals, one, options);
    if (!rows) return std::nullopt;
    if (rows->front().mistakes <= allowed)
      return make_point(family, setting, rows->front(), budget, allowed);
  }
  return std::nullopt;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  const auto k = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

MemberlistSettings memberlist_settings(std::span<const Millis> arrivals, double interval_ms,
                                       double tolerated_silence_ms, int nodes) {
  MemberlistSettings m;
  m.nodes = nodes;
  m.probe_interval_ms = interval_ms;
  // Lateness of acks that did arrive (gaps up to two intervals): how long a probe must wait.
  std::vector<double> late;
  for (std::size_t i = 1; i < arrivals.size(); ++i) {
    const double gap = static_cast<double>((arrivals[i] - arrivals[i - 1]).count());
    if (gap <= 2.0 * interval_ms) late.push_back(std::max(0.0, gap - interval_ms));
  }
  m.probe_timeout_ms = std::clamp(std::ceil(quantile(late, 0.99)), 1.0, interval_ms);
  m.tolerated_silence_ms = tolerated_silence_ms;
  const double scale = std::max(1.0, std::log10(static_cast<double>(nodes)));
  m.suspicion_mult =
      std::max(1, static_cast<int>(std::ceil(tolerated_silence_ms / (scale * interval_ms) - 1e-9)));
  m.suspicion_timeout_ms = m.suspicion_mult * scale * interval_ms;
  return m;
}

// memberlist's DefaultLANConfig.
constexpr double kLanProbeIntervalMs = 1000, kLanProbeTimeoutMs = 500;
constexpr int kLanSuspicionMult = 4, kLanSuspicionMaxTimeoutMult = 6;

std::vector<MemberlistDefaultRow> memberlist_defaults(std::span<const Millis> arrivals,
                                                      const TuneOptions& options) {
  const double suspect = kLanProbeIntervalMs + kLanProbeTimeoutMs;
  const double timeout = kLanSuspicionMult *
                         std::max(1.0, std::log10(static_cast<double>(options.nodes))) *
                         kLanProbeIntervalMs;
  std::vector<MemberlistDefaultRow> rows = {
      {"suspect", suspect, {}},
      {"dead (confirmed)", suspect + timeout, {}},
      {"dead (unconfirmed)", suspect + kLanSuspicionMaxTimeoutMult * timeout, {}}};
  std::vector<std::unique_ptr<detect::Detector>> detectors;
  for (const auto& r : rows)
    detectors.push_back(std::make_unique<detect::FixedTimeout>(
        detect::FixedTimeout::create(Millis{std::llround(r.silence_ms)}, r.what).value()));
  // tune_trace checked the trace and the options: the replay cannot fail.
  auto replayed = replay_trace(arrivals, detectors, options.replay).value();
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].replay = std::move(replayed[i]);
  return rows;
}

std::string fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::optional<std::size_t> allowed_mistakes(double budget_per_hour, double hours,
                                            double confidence) {
  const double mean = budget_per_hour * hours;
  if (confidence <= 0.0) return static_cast<std::size_t>(std::floor(mean + 1e-9));
  // Walk the Poisson(mean) distribution up from 0 until its CDF passes 1 - confidence; the
  // terms are computed in logs so that a mean of many thousands neither under- nor overflows.
  const double tail = 1.0 - confidence;
  double cdf = 0.0;
  std::optional<std::size_t> allowed;
  for (std::size_t k = 0;; ++k) {
    const double kd = static_cast<double>(k);
    cdf += mean > 0.0 ? std::exp(kd * std::log(mean) - mean - std::lgamma(kd + 1.0))
                      : (k == 0 ? 1.0 : 0.0);
    if (cdf > tail + 1e-12) return allowed;
    allowed = k;
  }
}

double hours_needed(double budget_per_hour, double confidence) {
  if (!(budget_per_hour > 0.0)) return std::numeric_limits<double>::infinity();
  return confidence <= 0.0 ? 0.0 : -std::log1p(-confidence) / budget_per_hour;
}

Status TuneOptions::validate() const {
  if (!std::isfinite(max_mistakes_per_hour) || max_mistakes_per_hour < 0.0)
    return Error{"--max-mistakes-per-hour must be a number >= 0"};
  if (auto s = tune_param::confidence.check(confidence); !s) return s;
  if (nodes < 1 || nodes > 1'000'000) return Error{"--nodes must be between 1 and 1000000"};
  return replay.validate();
}

Result<TuneResult> tune_trace(std::span<const Millis> arrivals, const TuneOptions& options,
                              const Progress& progress) {
  if (auto s = options.validate(); !s) return s.error();
  if (auto s = check_replayable(arrivals, options.replay); !s) return s.error();
  TuneResult result;
  result.heartbeats = arrivals.size();
  result.interval_ms = median_gap_ms(arrivals);
  const std::size_t first_gap = std::max<std::size_t>(1, options.replay.warmup_heartbeats);
  result.scored_hours =
      static_cast<double>((arrivals.back() - arrivals[options.replay.warmup_heartbeats]).count()) /
      kMsPerHour;
  auto allowed_for = [&](double budget) {
    return allowed_mistakes(budget, result.scored_hours, options.confidence);
  };
  result.allowed_mistakes = allowed_for(options.max_mistakes_per_hour);

  std::vector<double> budgets(std::begin(kFrontierBudgets), std::end(kFrontierBudgets));
  budgets.push_back(options.max_mistakes_per_hour);
  std::sort(budgets.begin(), budgets.end());
  budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());

  const auto all = families(result.interval_ms);
  const int total = static_cast<int>(all.size());
  int done = 0;
  for (const auto& family : all) {
    TuneFamily out;
    out.family = family.name;
    out.parameter = family.parameter;
    auto scores = family.scores(arrivals, first_gap);
    std::sort(scores.begin(), scores.end(), std::greater<>());
    // Every budget's setting in one replay: phi detectors of one family share their window.
    std::vector<double> settings;
    std::vector<std::unique_ptr<detect::Detector>> batch;
    std::vector<std::optional<std::size_t>> batch_index;
    for (double budget : budgets) {
      const auto allowed = allowed_for(budget);
      settings.push_back(allowed ? initial_setting(family, scores, *allowed)
                                 : std::numeric_limits<double>::infinity());
      batch_index.emplace_back();
      if (std::isfinite(settings.back())) {
        batch_index.back() = batch.size();
        batch.push_back(family.make(settings.back()));
      }
    }
    auto rows = replay_trace(arrivals, batch, options.replay);
    if (!rows) return rows.error();
    std::vector<std::size_t> seen;
    for (std::size_t b = 0; b < budgets.size(); ++b) {
      const auto allowed_at = allowed_for(budgets[b]);
      if (!allowed_at) continue;  // too short a trace to show this budget
      const std::size_t allowed = *allowed_at;
      std::optional<TunePoint> point;
      if (batch_index[b]) {
        const auto& row = (*rows)[*batch_index[b]];
        point = row.mistakes <= allowed ? make_point(family, settings[b], row, budgets[b], allowed)
                                        : bumped_point(family, arrivals, settings[b], allowed,
                                                       budgets[b], options.replay);
      }
      if (budgets[b] == options.max_mistakes_per_hour) out.best = point;
      // A looser budget that buys no lower setting (the floor) adds no point to the frontier.
      if (point && std::find(seen.begin(), seen.end(), allowed) == seen.end() &&
          (out.frontier.empty() || point->parameter != out.frontier.back().parameter))
        out.frontier.push_back(*point);
      seen.push_back(allowed);
    }
    result.families.push_back(std::move(out));
    if (progress) progress(++done, total);
  }
  const auto& timeout = result.families.front();
  if (timeout.best)
    result.memberlist =
        memberlist_settings(arrivals, result.interval_ms, timeout.best->parameter, options.nodes);
  result.memberlist_defaults = memberlist_defaults(arrivals, options);
  return result;
}

namespace {

Table frontier_table(const TuneResult& result) {
  Table t;
  t.key = "frontier";
  t.title = "Frontier: detection time against mistake rate";
  t.columns = {{"family", "family", 0},
               {"budget_per_hour", "budget/hour", 1},
               {"setting", "setting", 3},
               {"mistakes", "mistakes", 0},
               {"mistakes_per_hour", "mistakes/hour", 2},
               {"mean_mistake_ms", "mean mistake ms", 0},
               {"query_accuracy", "query accuracy", 6},
               {"detection_mean_ms", "detection mean ms", 0},
               {"detection_max_ms", "detection max ms", 0}};
  for (const auto& f : result.families)
    for (const auto& p : f.frontier)
      t.rows.push_back({f.family, p.budget_per_hour, p.parameter,
                        static_cast<std::int64_t>(p.replay.mistakes), p.replay.mistakes_per_hour(),
                        p.replay.mean_mistake_ms(), p.replay.query_accuracy(),
                        p.replay.detection_mean_ms, p.replay.detection_max_ms});
  return t;
}

}  // namespace

Report tune_frontier_report(const TuneResult& result) {
  Report r;
  r.tables.push_back(frontier_table(result));
  return r;
}

Report tune_report(const TuneResult& result, const TuneOptions& options) {
  Table best;
  best.key = "best";
  const std::string sure = options.confidence > 0.0
                               ? ", at " + fmt(100.0 * options.confidence, 1) + " % confidence"
                               : "";
  best.title = "Most aggressive setting per family within " +
               fmt(options.max_mistakes_per_hour, 2) + " mistakes/hour" + sure + " (" +
               (result.allowed_mistakes
                    ? "at most " + std::to_string(*result.allowed_mistakes) + " mistake(s) over "
                    : "no count is low enough over ") +
               fmt(result.scored_hours, 3) + " scored hours)";
  best.columns = {{"family", "family", 0},
                  {"parameter", "parameter", 0},
                  {"setting", "setting", 3},
                  {"mistakes", "mistakes", 0},
                  {"mistakes_per_hour", "mistakes/hour", 2},
                  {"detection_mean_ms", "detection mean ms", 0},
                  {"detection_max_ms", "detection max ms", 0}};
  for (const auto& f : result.families) {
    if (f.best)
      best.rows.push_back({f.family, f.parameter, f.best->parameter,
                           static_cast<std::int64_t>(f.best->replay.mistakes),
                           f.best->replay.mistakes_per_hour(), f.best->replay.detection_mean_ms,
                           f.best->replay.detection_max_ms});
    else
      best.rows.push_back({f.family, f.parameter, Cell{}, Cell{}, Cell{}, Cell{}, Cell{}});
  }
  Report report;
  report.tables = {std::move(best), frontier_table(result)};
  report.facts = {{"interval_ms", result.interval_ms},
                  {"scored_hours", result.scored_hours},
                  {"heartbeats", static_cast<double>(result.heartbeats)},
                  {"confidence", options.confidence}};
  if (result.allowed_mistakes)
    report.facts.push_back({"allowed_mistakes", static_cast<double>(*result.allowed_mistakes)});
  if (const auto& m = result.memberlist) {
    Table ml;
    ml.key = "memberlist";
    ml.title =
        "memberlist / Serf settings implied by the trace (n = " + std::to_string(m->nodes) + ")";
    ml.columns = {{"setting", "setting", 0}, {"value", "value", 0}, {"basis", "basis", 0}};
    ml.rows = {{std::string("ProbeInterval"), m->probe_interval_ms,
                std::string("median gap between acks, ms")},
               {std::string("ProbeTimeout"), m->probe_timeout_ms,
                std::string("99th percentile of ack lateness, ms")},
               {std::string("SuspicionMult"), std::int64_t{m->suspicion_mult},
                "covers the tolerated silence of " + fmt(m->tolerated_silence_ms, 0) + " ms"},
               {std::string("suspicion timeout"), m->suspicion_timeout_ms,
                std::string("SuspicionMult * max(1, log10 n) * ProbeInterval, ms")}};
    report.tables.push_back(std::move(ml));
  }
  if (!result.memberlist_defaults.empty()) {
    Table d;
    d.key = "memberlist_defaults";
    d.title =
        "memberlist's default LAN timings on this trace (n = " + std::to_string(options.nodes) +
        ")";
    d.columns = {{"what", "what", 0},
                 {"silence_ms", "after a silence of ms", 0},
                 {"mistakes", "mistakes", 0},
                 {"mistakes_per_hour", "mistakes/hour", 2}};
    for (const auto& r : result.memberlist_defaults)
      d.rows.push_back({r.what, r.silence_ms, static_cast<std::int64_t>(r.replay.mistakes),
                        r.replay.mistakes_per_hour()});
    report.tables.push_back(std::move(d));
  }
  const std::string worst_before_dead =
      result.memberlist
          ? fmt(result.memberlist->probe_interval_ms + result.memberlist->probe_timeout_ms +
                    result.memberlist->suspicion_timeout_ms,
                0)
          : "-";
  report.notes = {
      "The sender was up throughout the trace, so every suspicion is a mistake. A setting passes",
      "only if, at the confidence asked (--confidence; 0 takes the trace's count as the rate), the",
      "Poisson upper bound of its mistake rate is within the budget: a trace needs at least",
      "-ln(1 - confidence) / budget hours before any setting can pass. Record hours, busy ones "
      "too."};
  if (!result.allowed_mistakes)
    report.notes.push_back("This trace is too short for the budget: " +
                           fmt(result.scored_hours, 3) + " scored hours, " +
                           fmt(hours_needed(options.max_mistakes_per_hour, options.confidence), 3) +
                           " needed. Record longer, raise the budget or lower --confidence.");
  report.notes.insert(
      report.notes.end(),
      {"Detection is the silence after the last heartbeat before a seeded crash point until the",
       "detector suspects for good. phi fits the last 100 gaps; the pause family adds three",
       "intervals to the mean; thresholds below 1 are not considered.",
       "memberlist: the trace is read as acks arriving once per probe interval, and every missing",
       "ack as a suspicion (indirect probes that would rescue it are ignored). The suspicion",
       "timeout alone covers the tolerated silence; a crash is then declared after about",
       "ProbeInterval + ProbeTimeout + suspicion timeout = " + worst_before_dead +
           " ms. Lifeguard starts the timeout at",
       "SuspicionMaxTimeoutMult times that and shrinks it as other members confirm. The defaults'",
       "rows read the trace with memberlist's own LAN timings (1 s probes, 500 ms timeout,",
       "SuspicionMult 4, SuspicionMaxTimeoutMult 6): a false \"dead\" there is a healthy member",
       "declared dead if nobody refuted for it, confirmed by others or not."});
  return report;
}

}  // namespace vigil::lab
