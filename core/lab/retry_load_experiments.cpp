// `retry fleet` and `retry server`: the two retry-storm simulations driven by random events.
#include <cstdio>

#include <vigil/lab/retry_experiments.hpp>

namespace vigil::lab {

namespace {

std::string shortest(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

// ------------------------------------------------------------------------------------ fleet

Result<FleetResult> run_fleet(const retry::FleetOptions& options, const Progress& progress) {
  auto fleet = retry::Fleet::create(options);
  if (!fleet) return fleet.error();
  while (!fleet->finished()) {
    fleet->run_second();
    if (progress) progress(fleet->elapsed(), options.seconds);
  }
  FleetResult r;
  r.per_second = fleet->per_second();
  r.peak_rps = fleet->peak_rps();
  r.peak_second = fleet->peak_second();
  r.total_calls = fleet->total_calls();
  r.unfinished = fleet->unfinished();
  return r;
}

Report fleet_report(const FleetResult& r, const retry::FleetOptions& o) {
  Table t;
  t.key = "per_second";
  t.title = std::to_string(o.clients) + " clients retrying after an outage at t = 0, " +
            retry::backoff_name(o.backoff.strategy) + " backoff (base " +
            shortest(o.backoff.base_s) + " s), server capacity " + shortest(o.capacity_rps) +
            " req/s";
  t.columns = {{"second", "second", 0},
               {"offered", "offered", 0},
               {"successes", "served", 0},
               {"peak_rps", "peak req/s (100 ms)", 0},
               {"waiting", "still waiting", 0}};
  for (const auto& s : r.per_second)
    t.rows.push_back({std::int64_t{s.second}, s.offered, s.successes, s.peak_rps, s.waiting});
  Report report;
  report.tables.push_back(std::move(t));
  report.facts = {{"peak_rps", r.peak_rps},
                  {"peak_second", static_cast<double>(r.peak_second)},
                  {"total_calls", static_cast<double>(r.total_calls)},
                  {"unfinished", static_cast<double>(r.unfinished)}};
  report.notes = {
      "offered counts retries per second (the calls that failed at t = 0 are not counted);",
      "peak_rps is the busiest 100 ms as a rate; the server has room for capacity x 10 ms per "
      "10 ms tick."};
  return report;
}

// ----------------------------------------------------------------------------------- server

Result<ServerResult> run_server(const retry::ServerOptions& options, const Progress& progress) {
  auto server = retry::OverloadServer::create(options);
  if (!server) return server.error();
  while (!server->finished()) {
    server->run_second();
    if (progress) progress(server->elapsed(), options.seconds);
  }
  return ServerResult{server->per_second(), server->summary(), server->first_attempts(),
                      server->retries()};
}

Report server_report(const ServerResult& r, const retry::ServerOptions& o) {
  Table t;
  t.key = "series";
  t.title = "Overloaded server, mitigation " + retry::mitigations_name(o.mitigations) +
            ": capacity x" + shortest(o.trigger_capacity) + ", load x" + shortest(o.trigger_load) +
            " from " + shortest(o.trigger_at_s) + " s for " + shortest(o.trigger_seconds) + " s";
  t.columns = {{"second", "s", 0},        {"offered", "offered", 0},
               {"retries", "retries", 0}, {"throughput", "throughput", 0},
               {"goodput", "goodput", 0}, {"queue", "queue", 0},
               {"p50_ms", "p50 ms", 1},   {"p99_ms", "p99 ms", 1},
               {"dropped", "dropped", 0}, {"rejected", "rejected", 0},
               {"denied", "denied", 0},   {"failed", "failed", 0}};
  for (const auto& s : r.series)
    t.rows.push_back({std::int64_t{s.second}, s.offered, s.retries, s.completed, s.goodput, s.queue,
                      s.p50_ms, s.p99_ms, s.dropped, s.rejected, s.denied, s.failed});
  Report report;
  report.tables.push_back(std::move(t));
  const auto& s = r.summary;
  report.facts = {
      {"goodput_before", s.goodput_before},     {"goodput_during", s.goodput_during},
      {"goodput_after", s.goodput_after},       {"throughput_before", s.throughput_before},
      {"throughput_after", s.throughput_after}, {"retry_share", s.retry_share},
      {"wasted_share", s.wasted_share}};
  report.flags = {{"recovered", s.recovered}};
  report.notes = {
      "per second: throughput = requests served, goodput = of which answered in time; "
      "latency is the server's, arrival to completion;",
      "before = [1 s, trigger), after = from " + shortest(o.trigger_end_s() + o.settle_seconds) +
          " s to the end; recovered = goodput after >= 90% of before."};
  return report;
}

}  // namespace vigil::lab
