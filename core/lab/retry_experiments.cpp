#include <vigil/lab/retry_experiments.hpp>

#include <cmath>
#include <cstdio>
#include <limits>

namespace vigil::lab {

namespace {

double or_nan(const std::optional<double>& x) {
  return x ? *x : std::numeric_limits<double>::quiet_NaN();
}

std::string shortest(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

// ------------------------------------------------------------------------------------ chain

Report chain_report(const retry::Chain& chain, const retry::ChainAmplification& a) {
  Report report;
  report.facts = {{"calls_per_request", a.calls_per_request},
                  {"amplification", a.amplification},
                  {"worst_case", a.worst_case},
                  {"success", a.success}};
  report.notes = {"N = " + std::to_string(chain.depth) +
                      " services, k = " + std::to_string(chain.tries) +
                      " attempts per hop, last hop fails with p = " + shortest(chain.fail) + ".",
                  "calls_per_request = (1 - p^k) / (1 - p) per hop; amplification = that^(N-1) at "
                  "the last service; success = (1 - p^k)^N."};
  return report;
}

std::vector<ChainRow> reference_chain_rows() {
  std::vector<ChainRow> rows;
  for (auto [depth, fail] : {std::pair{3, 0.05}, std::pair{3, 0.20}, std::pair{5, 0.10},
                             std::pair{5, 0.30}, std::pair{5, 0.70}, std::pair{5, 1.00}}) {
    retry::Chain c{depth, 3, fail};
    rows.push_back({c, retry::amplify(c).value()});
  }
  return rows;
}

Report chain_table_report(const std::vector<ChainRow>& rows) {
  Table t;
  t.key = "chain";
  t.title = "Retry amplification through a chain of services (k attempts per hop)";
  t.columns = {{"depth", "N", 0},
               {"tries", "k", 0},
               {"fail", "p", 2},
               {"calls_per_request", "E[C]", 2},
               {"amplification", "amplification", 2},
               {"worst_case", "worst case k^(N-1)", 0},
               {"success_pct", "success %", 2}};
  for (const auto& r : rows)
    t.rows.push_back({std::int64_t{r.chain.depth}, std::int64_t{r.chain.tries}, r.chain.fail,
                      r.result.calls_per_request, r.result.amplification, r.result.worst_case,
                      100.0 * r.result.success});
  Report report;
  report.tables.push_back(std::move(t));
  return report;
}

// ------------------------------------------------------------------------------- hysteresis

Status HysteresisOptions::validate() const {
  if (auto s = model.validate(); !s) return s;
  namespace p = retry::hysteresis_param;
  if (auto s = p::lambda_min.check(lambda_min); !s) return s;
  if (auto s = p::lambda_max.check(lambda_max); !s) return s;
  if (!(lambda_max >= lambda_min)) return Error{"--lambda-max must be at least --lambda-min"};
  if (auto s = p::step.check(step); !s) return s;
  if ((lambda_max - lambda_min) / step > 10000)
    return Error{"--step is too small: at most 10000 loads per direction"};
  if (!(settle_seconds > 0.0 && settle_seconds <= 100000.0))
    return Error{"the settle time must be between 0 and 100000 s"};
  return ok_status();
}

Result<HysteresisResult> run_hysteresis(const HysteresisOptions& o, const Progress& progress) {
  if (auto s = o.validate(); !s) return s.error();
  const auto n = static_cast<int>(std::floor((o.lambda_max - o.lambda_min) / o.step + 1e-9));
  std::vector<double> loads;
  for (int i = 0; i <= n; ++i) loads.push_back(o.lambda_min + i * o.step);
  const int total = 2 * static_cast<int>(loads.size()) - 1;
  HysteresisResult r;
  double latency = o.model.l0_ms;
  auto visit = [&](double lambda0, bool up) {
    const auto s = retry::settle(o.model, lambda0, latency, o.settle_seconds);
    latency = s.latency_ms;
    r.sweep.push_back({up, lambda0, latency, o.model.offered(latency, lambda0),
                       o.model.carried(latency), o.model.goodput(latency), s.converged});
    if (progress) progress(static_cast<int>(r.sweep.size()), total);
  };
  for (double lambda0 : loads) visit(lambda0, true);
  // Back down from the top, which the upward sweep has just settled.
  for (int i = n - 1; i >= 0; --i) visit(loads[static_cast<std::size_t>(i)], false);

  const double timeout = o.model.timeout_ms;
  bool high = false;
  for (const auto& row : r.sweep) {
    if (row.up && !r.collapse_load && row.latency_ms > timeout) r.collapse_load = row.lambda0;
    if (!row.up && high && !r.recovery_load && row.latency_ms < timeout)
      r.recovery_load = row.lambda0;
    high = row.latency_ms > timeout;
  }
  return r;
}

Report hysteresis_report(const HysteresisResult& r, const HysteresisOptions& o) {
  Table t;
  t.key = "sweep";
  t.title = "Load swept up and back down (fluid model): where latency settles";
  t.columns = {{"direction", "direction", 0},   {"lambda0", "lambda0 req/s", 0},
               {"latency_ms", "latency ms", 1}, {"offered", "offered req/s", 0},
               {"carried", "carried req/s", 0}, {"goodput", "goodput req/s", 0}};
  bool all_settled = true;
  for (const auto& row : r.sweep) {
    t.rows.push_back({std::string(row.up ? "up" : "down"), row.lambda0, row.latency_ms, row.offered,
                      row.carried, row.goodput});
    all_settled = all_settled && row.settled;
  }
  Report report;
  report.tables.push_back(std::move(t));
  report.facts = {{"collapse_load", or_nan(r.collapse_load)},
                  {"recovery_load", or_nan(r.recovery_load)}};
  report.notes = {
      "latency balances the offered load (retries switch on around the " +
          shortest(o.model.timeout_ms) +
          " ms timeout) against the load the queue carries at that latency (M/M/1);",
      "a storm's latency is held at the queue limit (--max-latency); goodput counts replies "
      "within the timeout."};
  if (!all_settled)
    report.notes.push_back("some loads had not settled when their time ran out (near a fold)");
  return report;
}

Result<std::vector<retry::Equilibrium>> run_equilibria(const retry::HysteresisModel& model,
                                                       double lambda0) {
  if (auto s = model.validate(); !s) return s.error();
  // A load as the sweep's loads are.
  if (!retry::hysteresis_param::lambda_min.contains(lambda0))
    return Error{"--equilibria must be a load in " +
                 retry::hysteresis_param::lambda_min.range_text() + ", got " +
                 number_text(lambda0)};
  return retry::equilibria(model, lambda0);
}

Report equilibria_report(const std::vector<retry::Equilibrium>& roots,
                         const retry::HysteresisModel& model, double lambda0) {
  Table t;
  t.key = "equilibria";
  t.title = "Equilibria at lambda0 = " + shortest(lambda0) + " req/s: offered(L) = carried(L)";
  t.columns = {{"latency_ms", "latency ms", 2},
               {"stability", "stability", 0},
               {"kind", "kind", 0},
               {"offered", "offered req/s", 0},
               {"goodput", "goodput req/s", 0}};
  for (const auto& e : roots)
    t.rows.push_back({e.latency_ms, std::string(e.stable ? "stable" : "unstable"),
                      std::string(e.at_limit ? "queue limit" : "root"),
                      model.offered(e.latency_ms, lambda0), model.goodput(e.latency_ms)});
  Report report;
  report.tables.push_back(std::move(t));
  report.facts = {{"lambda0", lambda0}, {"count", static_cast<double>(roots.size())}};
  return report;
}

}  // namespace vigil::lab
