#include <vigil/lab/swim_experiments.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <vigil/sim/swim_cluster.hpp>

namespace vigil::lab {

namespace {

// Experiments start measuring once every node has had a few periods to settle its phases.
constexpr int kWarmupPeriods = 5;

}  // namespace

// ------------------------------------------------------------------------------- swim-probe

double probe_failure_formula(double loss, int indirect) {
  const double direct = 1.0 - std::pow(1.0 - loss, 2);  // ping or ack lost
  const double relay = 1.0 - std::pow(1.0 - loss, 4);   // ping-req, ping, ack, ack
  return direct * std::pow(relay, indirect);
}

Status SwimProbeOptions::validate() const {
  namespace p = swim_probe_param;
  if (auto s = p::loss.check(loss); !s) return s;
  if (auto s = p::indirect.check(indirect); !s) return s;
  if (auto s = p::probes.check(static_cast<double>(probes)); !s) return s;
  if (auto s = p::nodes.check(static_cast<double>(nodes)); !s) return s;
  if (nodes < static_cast<std::size_t>(indirect) + 2)
    return Error{"the cluster needs at least indirect + 2 members"};
  return ok_status();
}

Result<SwimProbeResult> run_swim_probe(const SwimProbeOptions& o, const Progress& progress) {
  if (auto s = o.validate(); !s) return s.error();
  sim::ClusterOptions c;
  c.nodes = o.nodes;
  c.seed = o.seed;
  c.config = swim::Config::lan();
  c.config.indirect_checks = o.indirect;
  c.link.loss = o.loss;
  c.event_log_capacity = 0;
  auto cluster = sim::SwimCluster::create(c);
  if (!cluster) return cluster.error();
  const Millis period = c.config.probe_interval;
  cluster->run_for(period * kWarmupPeriods);
  const auto before = cluster->totals();
  // Run whole minutes until enough probes have finished; report progress per minute.
  const std::uint64_t per_minute = 60 * o.nodes;
  const int total_minutes = static_cast<int>((o.probes + per_minute - 1) / per_minute);
  SwimProbeResult r;
  for (int minute = 1;; ++minute) {
    cluster->run_for(period * 60);
    const auto now = cluster->totals();
    r.probes = now.probes - before.probes;
    r.failed = now.probes_failed - before.probes_failed;
    if (progress) progress(std::min(minute, total_minutes), total_minutes);
    if (r.probes >= o.probes) break;
  }
  r.simulated_pct = 100.0 * static_cast<double>(r.failed) / static_cast<double>(r.probes);
  r.formula_pct = 100.0 * probe_failure_formula(o.loss, o.indirect);
  return r;
}

Report swim_probe_report(const SwimProbeResult& r, const SwimProbeOptions& o) {
  Table t;
  t.key = "swim_probe";
  t.title = "Probes of live members failing under " +
            std::to_string(static_cast<int>(std::lround(o.loss * 100))) + "% loss with " +
            std::to_string(o.indirect) + " indirect helper(s), " + std::to_string(o.nodes) +
            " nodes (" + std::to_string(r.probes) + " probes)";
  t.columns = {{"loss", "loss", 2},
               {"indirect", "k", 0},
               {"probes", "probes", 0},
               {"failed", "failed", 0},
               {"simulated_pct", "simulated %", 3},
               {"formula_pct", "formula %", 3}};
  t.rows.push_back({o.loss, std::int64_t{o.indirect}, static_cast<std::int64_t>(r.probes),
                    static_cast<std::int64_t>(r.failed), r.simulated_pct, r.formula_pct});
  Report report;
  report.tables.push_back(std::move(t));
  return report;
}

// -------------------------------------------------------------------------------------- swim

Status SwimRunOptions::validate() const {
  namespace p = swim_param;
  if (auto s = p::nodes.check(static_cast<double>(nodes)); !s) return s;
  if (auto s = p::kill.check(static_cast<double>(kill)); !s) return s;
  if (kill >= nodes) return Error{"--kill must be smaller than --nodes"};
  if (auto s = p::periods.check(periods); !s) return s;
  if (auto s = p::loss.check(loss); !s) return s;
  if (auto s = p::slow.check(static_cast<double>(slow)); !s) return s;
  if (slow + kill > nodes) return Error{"--slow plus --kill cannot exceed --nodes"};
  if (auto s = p::slow_periods.check(slow_periods); !s) return s;
  if (auto p = swim::Config::profile(profile); !p) return p.error();
  return ok_status();
}

Result<SwimRunResult> run_swim(const SwimRunOptions& o, const Progress& progress) {
  if (auto s = o.validate(); !s) return s.error();
  sim::ClusterOptions c;
  c.nodes = o.nodes;
  c.seed = o.seed;
  c.config = swim::Config::profile(o.profile).value();
  if (!o.lifeguard) c.config.lifeguard = swim::Lifeguard{false, false, false};
  c.link.loss = o.loss;
  c.event_log_capacity = 0;
  auto cluster = sim::SwimCluster::create(c);
  if (!cluster) return cluster.error();
  sim::SwimCluster& sim = *cluster;
  const Millis period = c.config.probe_interval;

  // Victims are the last `kill` hosts; the slow ones come right before them.
  std::set<std::size_t> victims, slow;
  for (std::size_t i = 0; i < o.kill; ++i) victims.insert(o.nodes - 1 - i);
  for (std::size_t i = 0; i < o.slow; ++i) slow.insert(o.nodes - 1 - o.kill - i);
  const Millis slowness{static_cast<std::int64_t>(std::llround(o.slow_periods * period.count()))};
  for (std::size_t s : slow) sim.set_slow(s, slowness);

  SwimRunResult r;
  std::map<std::size_t, Millis> first_suspected;
  bool crashed = false;
  Millis crash_at{0};
  sim.on_event([&](const sim::ClusterEvent& e) {
    auto host = sim.host_of(e.event.member);
    if (!host) return;
    const bool victim = crashed && victims.count(*host) > 0;
    if (e.event.kind == swim::EventKind::suspect) {
      if (victim)
        first_suspected.emplace(*host, e.event.at);
      else if (sim.is_up(*host))
        ++r.false_suspicions;
    } else if (e.event.kind == swim::EventKind::dead && !victim && sim.is_up(*host)) {
      ++r.false_deaths;
      if (!slow.count(*host)) ++r.false_deaths_of_healthy;
    }
  });

  sim.run_for(period * kWarmupPeriods);
  const auto before = sim.totals();
  crash_at = sim.now();
  crashed = true;
  for (std::size_t v : victims) sim.kill(v);

  std::optional<Millis> all_dead;
  for (int p = 1; p <= o.periods; ++p) {
    sim.run_for(period);
    if (!all_dead && !victims.empty()) {
      bool done = true;
      for (std::size_t i = 0; i < o.nodes && done; ++i) {
        if (!sim.is_up(i)) continue;
        for (std::size_t v : victims) {
          const auto* m = sim.view(i, v);
          if (m && m->state != swim::MemberState::dead) {
            done = false;
            break;
          }
        }
      }
      if (done) all_dead = sim.now() - crash_at;
    }
    if (progress && (p % 10 == 0 || p == o.periods)) progress(p, o.periods);
  }
  const double per_period = static_cast<double>(period.count());
  if (!first_suspected.empty()) {
    double sum = 0.0;
    for (const auto& [v, at] : first_suspected) sum += static_cast<double>((at - crash_at).count());
    r.first_detection_periods = sum / static_cast<double>(first_suspected.size()) / per_period;
  }
  // all_dead is known to the period; report it as such rather than pretend finer precision.
  if (all_dead) r.all_dead_periods = static_cast<double>(all_dead->count()) / per_period;
  const auto after = sim.totals();
  const double node_periods = static_cast<double>(o.nodes) * o.periods;
  r.msgs_per_node_per_period =
      static_cast<double>(after.datagrams_sent - before.datagrams_sent) / node_periods;
  r.bytes_per_node_per_period =
      static_cast<double>(after.bytes_sent - before.bytes_sent) / node_periods;
  return r;
}

Report swim_report(const SwimRunResult& r, const SwimRunOptions& o) {
  Table t;
  t.key = "swim";
  t.title = "SWIM, " + std::to_string(o.nodes) + " nodes, " + std::to_string(o.kill) +
            " crashed, profile " + o.profile + ", Lifeguard " + (o.lifeguard ? "on" : "off") +
            (o.slow ? ", " + std::to_string(o.slow) + " slow" : "") + ", " +
            std::to_string(o.periods) + " periods";
  t.columns = {{"first_detection_periods", "first detection (periods)", 2},
               {"all_dead_periods", "all agree dead (periods)", 0},
               {"false_suspicions", "false suspicions", 0},
               {"false_deaths", "false deaths", 0},
               {"msgs_per_node_per_period", "msgs/node/period", 2},
               {"bytes_per_node_per_period", "bytes/node/period", 0}};
  t.rows.push_back({r.first_detection_periods ? Cell{*r.first_detection_periods} : Cell{},
                    r.all_dead_periods ? Cell{*r.all_dead_periods} : Cell{},
                    static_cast<std::int64_t>(r.false_suspicions),
                    static_cast<std::int64_t>(r.false_deaths), r.msgs_per_node_per_period,
                    r.bytes_per_node_per_period});
  Report report;
  report.tables.push_back(std::move(t));
  if (o.slow)
    report.facts.push_back(
        {"false_deaths_of_healthy", static_cast<double>(r.false_deaths_of_healthy)});
  return report;
}

// -------------------------------------------------------------------------------------- cost

Status CostOptions::validate() const {
  if (nodes.empty()) return Error{"--nodes needs at least one cluster size"};
  for (std::size_t n : nodes)
    if (n < 2 || n > 5000) return Error{"cluster sizes must be between 2 and 5000"};
  return ok_status();
}

Result<std::vector<CostRow>> run_cost(const CostOptions& o, const Progress& progress) {
  if (auto s = o.validate(); !s) return s.error();
  // The formula's assumptions: one round a second, a 60-byte header, 40 bytes per member entry,
  // gossip sending the full list to one peer, SWIM piggybacking up to 6 updates.
  constexpr double kHeader = 60, kEntry = 40;
  std::vector<CostRow> rows;
  int done = 0;
  for (std::size_t n : o.nodes) {
    const double dn = static_cast<double>(n);
    rows.push_back({n, "all-to-all heartbeat", "formula", dn * (dn - 1), dn - 1,
                    dn * (dn - 1) * (kHeader + kEntry)});
    rows.push_back({n, "gossip (full list)", "formula", dn, 1, dn * (kHeader + kEntry * dn)});
    rows.push_back({n, "SWIM ping+ack", "formula", 2 * dn, 2, 2 * dn * (kHeader + kEntry * 6)});

    // vigil's engine with memberlist's LAN profile, in steady state (no failures).
    sim::ClusterOptions c;
    c.nodes = n;
    c.seed = o.seed;
    c.event_log_capacity = 0;
    auto cluster = sim::SwimCluster::create(c);
    if (!cluster) return cluster.error();
    const Millis period = c.config.probe_interval;
    cluster->run_for(period * kWarmupPeriods * 4);  // let the start-up alive broadcasts settle
    const auto before = cluster->totals();
    constexpr int kPeriods = 60;
    cluster->run_for(period * kPeriods);
    const auto after = cluster->totals();
    const double seconds = static_cast<double>((period * kPeriods).count()) / 1000.0;
    const double msgs = static_cast<double>(after.datagrams_sent - before.datagrams_sent) / seconds;
    const double bytes = static_cast<double>(after.bytes_sent - before.bytes_sent +
                                             after.stream_bytes_sent - before.stream_bytes_sent) /
                         seconds;
    rows.push_back({n, "SWIM (vigil, LAN profile)", "simulated", msgs, msgs / dn, bytes});
    if (progress) progress(++done, static_cast<int>(o.nodes.size()));
  }
  return rows;
}

Report cost_report(const std::vector<CostRow>& rows) {
  Table t;
  t.key = "cost";
  t.title =
      "Failure-detection traffic per second (formula rows: 60-byte header, 40 bytes a member)";
  t.columns = {{"n", "n", 0},
               {"scheme", "scheme", 0},
               {"source", "source", 0},
               {"msgs_per_s", "msgs/s", 0},
               {"msgs_per_node", "per node", 1},
               {"bytes_per_s", "bytes/s", 0}};
  for (const auto& r : rows)
    t.rows.push_back({static_cast<std::int64_t>(r.n), r.scheme, r.source, r.msgs_per_s,
                      r.msgs_per_node, r.bytes_per_s});
  Report report;
  report.tables.push_back(std::move(t));
  report.notes = {
      "simulated rows count every datagram and push-pull stream byte of vigil's engine in steady",
      "state: pings and acks, plus the occasional gossip and anti-entropy exchange."};
  return report;
}

}  // namespace vigil::lab
