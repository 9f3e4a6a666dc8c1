#include <vigil/lab/timeouts_experiment.hpp>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include <vigil/base/rng.hpp>
#include <vigil/detect/phi.hpp>

namespace vigil::lab {

Status TimeoutsOptions::validate() const {
  if (gaps < 2 || gaps > 10'000'000) return Error{"--gaps must be between 2 and 10000000"};
  if (window < 2) return Error{"--window must be at least 2"};
  if (!(interval_ms > 0.0)) return Error{"--interval must be > 0 ms"};
  if (crash_samples < 1) return Error{"crash samples must be >= 1"};
  for (int t : timeouts_ms)
    if (t <= 0) return Error{"timeouts must be > 0 ms, got " + std::to_string(t)};
  for (int s : silences_ms)
    if (s < 0) return Error{"silences must be >= 0 ms, got " + std::to_string(s)};
  return ok_status();
}

Result<TimeoutsResult> run_timeouts(const TimeoutsOptions& options) {
  if (auto s = options.validate(); !s) return s.error();
  Rng rng(options.seed);
  TimeoutsResult result;
  const double spread = 0.15 * options.interval_ms;  // 150 ms at the default 1 s interval
  result.gaps_ms.reserve(static_cast<std::size_t>(options.gaps));
  for (int i = 0; i < options.gaps; ++i) {
    // The draw order of a JavaScript simulation: three uniforms for the bell, one for "pause?",
    // one for its length. (u1+u2+u3-1.5)*2 has standard deviation 1 and range ±3.
    // (C++ leaves the order of operands of + unspecified, so the draws are sequenced by hand.)
    const double u1 = rng.uniform();
    const double u2 = rng.uniform();
    const double u3 = rng.uniform();
    const double bell = (u1 + u2 + u3 - 1.5) * 2.0;
    const double g = options.interval_ms + spread * bell;
    result.gaps_ms.push_back(rng.uniform() < 0.01 ? g + 4.0 * options.interval_ms * rng.uniform()
                                                  : g);
  }

  for (int t : options.timeouts_ms) {
    TimeoutRow row;
    row.timeout_ms = t;
    row.false_alarms_per_hour = static_cast<int>(std::count_if(
        result.gaps_ms.begin(), result.gaps_ms.end(), [t](double g) { return g > t; }));
    double sum = 0.0;
    for (int i = 0; i < options.crash_samples; ++i) {
      // The crash falls uniformly within the interval after the last heartbeat, so the timer
      // has already run for that long when the sender dies.
      const double d = t - options.interval_ms * rng.uniform();
      sum += d;
      row.detect_max_ms = std::max(row.detect_max_ms, d);
    }
    row.detect_avg_ms = sum / options.crash_samples;
    result.timeouts.push_back(row);
  }

  const auto window_len =
      std::min<std::size_t>(static_cast<std::size_t>(options.window), result.gaps_ms.size());
  const std::span<const double> window(result.gaps_ms.data() + result.gaps_ms.size() - window_len,
                                       window_len);
  double sum = 0.0;
  for (double g : window) sum += g;
  result.window_mean_ms = sum / static_cast<double>(window.size());
  double squares = 0.0;
  for (double g : window) squares += (g - result.window_mean_ms) * (g - result.window_mean_ms);
  result.window_std_ms = std::sqrt(squares / static_cast<double>(window.size()));

  for (int s : options.silences_ms) {
    const double t = s;
    result.phi.push_back({s, detect::phi_normal(t, result.window_mean_ms, result.window_std_ms, 0),
                          detect::phi_logistic(t, result.window_mean_ms, result.window_std_ms, 0),
                          detect::phi_exponential(t, result.window_mean_ms, 0),
                          detect::phi_empirical(t, window, 0)});
  }
  return result;
}

Report timeouts_report(const TimeoutsResult& result, const TimeoutsOptions& options) {
  Report report;
  Table timeouts;
  timeouts.key = "timeouts";
  timeouts.title = "An hour of heartbeats (" + std::to_string(options.gaps) + " gaps, seed " +
                   std::to_string(options.seed) + "): fixed timeouts";
  timeouts.columns = {{"timeout_ms", "timeout ms", 0},
                      {"false_alarms_per_hour", "false alarms/hour", 0},
                      {"detect_avg_ms", "detect avg ms", 0},
                      {"detect_max_ms", "detect max ms", 0}};
  for (const auto& r : result.timeouts)
    timeouts.rows.push_back({std::int64_t{r.timeout_ms}, std::int64_t{r.false_alarms_per_hour},
                             r.detect_avg_ms, r.detect_max_ms});
  Table phi;
  phi.key = "phi";
  phi.title = "phi after a silence, fitted on the last " + std::to_string(options.window) + " gaps";
  phi.columns = {{"silence_ms", "silent for ms", 0},
                 {"phi_normal", "phi normal", 2},
                 {"phi_logistic", "phi logistic", 2},
                 {"phi_exponential", "phi exponential", 2},
                 {"phi_empirical", "phi empirical", 2}};
  for (const auto& r : result.phi)
    phi.rows.push_back({std::int64_t{r.silence_ms}, r.phi_normal, r.phi_logistic, r.phi_exponential,
                        r.phi_empirical});
  report.tables = {std::move(timeouts), std::move(phi)};
  report.facts = {{"window_mean_ms", result.window_mean_ms},
                  {"window_std_ms", result.window_std_ms}};
  report.notes = {
      "phi normal uses the exact tail 0.5*erfc(z/sqrt 2); phi logistic is Akka's approximation,",
      "which overstates phi far in the tail. Empirical is -log10 of the share of longer gaps."};
  return report;
}

}  // namespace vigil::lab
