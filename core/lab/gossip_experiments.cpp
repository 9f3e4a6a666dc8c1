#include <vigil/lab/gossip_experiments.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <vigil/base/rng.hpp>
#include <vigil/gossip/heartbeat_cluster.hpp>
#include <vigil/gossip/theory.hpp>

namespace vigil::lab {

namespace {

constexpr int kTheoryHorizon = 1'000'000;  // rounds; only loss above 0.9999 needs more

std::string fixed(double x, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

Cell optional_cell(const std::optional<double>& x) {
  return x ? Cell{*x} : Cell{};
}

double nan_if_empty(const std::optional<double>& x) {
  return x ? *x : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

// ------------------------------------------------------------------------------------ gossip

gossip::SpreadOptions GossipOptions::spread_options() const {
  gossip::SpreadOptions s;
  s.nodes = nodes;
  s.fanout = fanout;
  s.mode = mode;
  s.loss = loss;
  s.dead = dead;
  s.max_rounds = max_rounds;
  return s;
}

Status GossipOptions::validate() const {
  if (auto s = gossip::spread_param::trials.check(trials); !s) return s;
  return spread_options().validate();
}

Result<GossipResult> run_gossip(const GossipOptions& o, const Progress& progress) {
  if (auto s = o.validate(); !s) return s.error();
  const gossip::SpreadOptions spread = o.spread_options();
  Rng rng(o.seed);
  GossipResult r;
  r.trials = o.trials;
  std::vector<std::vector<std::uint32_t>> curves;
  std::uint64_t messages = 0;
  double rounds_sum = 0.0;
  for (int t = 0; t < o.trials; ++t) {
    auto run = gossip::spread(spread, rng);
    if (!run) return run.error();
    messages += run->messages;
    if (run->finished) {
      rounds_sum += run->rounds;
      r.rounds_min = r.finished ? std::min(r.rounds_min, run->rounds) : run->rounds;
      r.rounds_max = std::max(r.rounds_max, run->rounds);
      ++r.finished;
    }
    curves.push_back(std::move(run->informed));
    if (progress) progress(t + 1, o.trials);
  }
  if (r.finished) r.rounds_mean = rounds_sum / r.finished;
  r.messages_per_node = static_cast<double>(messages) / o.trials / static_cast<double>(o.nodes);

  std::size_t longest = 0;
  for (const auto& c : curves) longest = std::max(longest, c.size());
  r.informed_by_round.assign(longest, 0.0);
  for (const auto& c : curves)
    for (std::size_t i = 0; i < longest; ++i)
      r.informed_by_round[i] += c[std::min(i, c.size() - 1)];
  for (double& x : r.informed_by_round) x /= o.trials;

  r.theory_by_round = gossip::mean_field_curve(spread, static_cast<int>(longest) - 1);
  r.theory_by_round.resize(longest, r.theory_by_round.back());
  // Not capped like the runs: the expectation is worth knowing exactly when they do not finish.
  r.rounds_theory = gossip::mean_field_rounds(spread, kTheoryHorizon);
  if (o.mode == gossip::Mode::push && o.nodes - o.dead > 1) {
    // The pushes that reach a live member: not lost, and not sent to one of the dead.
    const double live = static_cast<double>(o.nodes - o.dead);
    const double effective =
        o.fanout * (1.0 - o.loss) * (live - 1.0) / static_cast<double>(o.nodes - 1);
    r.rounds_pittel = gossip::pittel_rounds(live, effective);
  }
  return r;
}

Report gossip_report(const GossipResult& r, const GossipOptions& o) {
  Table t;
  t.key = "gossip";
  t.title = std::string(gossip::mode_name(o.mode)) + " gossip of one rumour, " +
            std::to_string(o.nodes) + " members" +
            (o.dead ? " (" + std::to_string(o.dead) + " dead)" : "") + ", fanout " +
            std::to_string(o.fanout) + (o.loss > 0 ? ", loss " + fixed(o.loss, 3) : "") + ", " +
            std::to_string(o.trials) + " trial(s)";
  t.columns = {{"finished", "finished", 0},
               {"rounds_mean", "rounds (avg)", 2},
               {"rounds_min", "min", 0},
               {"rounds_max", "max", 0},
               {"rounds_theory", "mean field", 2},
               {"rounds_pittel", "Pittel", 2},
               {"messages_per_node", "contacts/member", 2}};
  t.rows.push_back({std::to_string(r.finished) + "/" + std::to_string(r.trials),
                    optional_cell(r.rounds_mean),
                    r.finished ? Cell{std::int64_t{r.rounds_min}} : Cell{},
                    r.finished ? Cell{std::int64_t{r.rounds_max}} : Cell{}, r.rounds_theory,
                    optional_cell(r.rounds_pittel), r.messages_per_node});
  Report report;
  report.tables.push_back(std::move(t));
  report.facts = {{"rounds_mean", nan_if_empty(r.rounds_mean)},
                  {"rounds_theory", r.rounds_theory},
                  {"messages_per_node", r.messages_per_node},
                  {"finished_trials", static_cast<double>(r.finished)}};
  if (r.rounds_pittel) report.facts.push_back({"rounds_pittel", *r.rounds_pittel});
  report.series = {{"informed_by_round", r.informed_by_round},
                   {"theory_by_round", r.theory_by_round}};
  report.notes = {
      "informed_by_round: live members informed after each round, averaged over the trials;",
      "theory_by_round: the mean-field expectation. Contacts count each push, question (with its",
      "answer) or push-pull exchange once, lost or sent to a dead member included."};
  if (r.finished < r.trials)
    report.notes.push_back(std::to_string(r.trials - r.finished) +
                           " trial(s) hit the round cap; --max-rounds raises it.");
  return report;
}

// ------------------------------------------------------------------------------ gossip --table

Status GossipTableOptions::validate() const {
  if (nodes.empty() || fanouts.empty()) return Error{"the grid needs node counts and fanouts"};
  namespace p = gossip::spread_param;
  for (std::size_t n : nodes) {
    if (auto s = p::nodes.check(static_cast<double>(n)); !s) return s;
    // Pittel's log2 n + ln n, the column the grid is compared with, needs two members.
    if (n < 2) return Error{"--table needs at least 2 --nodes"};
  }
  for (int f : fanouts)
    if (auto s = p::fanout.check(f); !s) return s;
  return p::trials.check(trials);
}

Result<std::vector<GossipTableRow>> run_gossip_table(const GossipTableOptions& o,
                                                     const Progress& progress) {
  if (auto s = o.validate(); !s) return s.error();
  Rng rng(o.seed);
  std::vector<GossipTableRow> rows;
  const int total = static_cast<int>(o.nodes.size() * o.fanouts.size()) * o.trials;
  int done = 0;
  for (std::size_t n : o.nodes) {
    for (int f : o.fanouts) {
      gossip::SpreadOptions s;
      s.nodes = n;
      s.fanout = f;
      double rounds = 0.0, messages = 0.0;
      for (int t = 0; t < o.trials; ++t) {
        auto run = gossip::spread(s, rng);
        if (!run) return run.error();
        rounds += run->rounds;
        messages += static_cast<double>(run->messages);
        if (progress) progress(++done, total);
      }
      const double dn = static_cast<double>(n);
      rows.push_back({n, f, rounds / o.trials, std::log2(dn), gossip::pittel_rounds(dn, f),
                      messages / o.trials / dn});
    }
  }
  return rows;
}

Report gossip_table_report(const std::vector<GossipTableRow>& rows, const GossipTableOptions& o) {
  Table t;
  t.key = "gossip_table";
  t.title = "Push gossip, " + std::to_string(o.trials) +
            " trials averaged (theory: Pittel, log_(f+1) n + ln(n)/f)";
  t.columns = {{"n", "n", 0},
               {"f", "f", 0},
               {"rounds", "rounds (avg)", 1},
               {"log2_n", "log2(n)", 1},
               {"theory", "theory", 1},
               {"msgs_per_node", "msgs/node", 1}};
  for (const auto& r : rows)
    t.rows.push_back({static_cast<std::int64_t>(r.n), std::int64_t{r.fanout}, r.rounds_mean,
                      r.log2_n, r.theory, r.msgs_per_node});
  Report report;
  report.tables.push_back(std::move(t));
  return report;
}

// -------------------------------------------------------------------------------- membership

Status MembershipOptions::validate() const {
  if (t_fail.empty()) return Error{"--tfail needs at least one value"};
  for (int tf : t_fail) {
    gossip::HeartbeatConfig c;
    c.nodes = nodes;
    c.fanout = fanout;
    c.t_fail = tf;
    c.t_cleanup = t_cleanup;
    c.loss = loss;
    if (auto s = c.validate(); !s) return s;
  }
  if (auto s = gossip::membership_param::trials.check(trials); !s) return s;
  return gossip::membership_param::rounds.check(rounds);
}

Result<std::vector<MembershipRow>> run_membership(const MembershipOptions& o,
                                                  const Progress& progress) {
  if (auto s = o.validate(); !s) return s.error();
  const std::size_t victim = o.nodes - 1;
  const int total = static_cast<int>(o.t_fail.size()) * o.trials;
  int done = 0;
  std::vector<MembershipRow> rows;
  for (int tf : o.t_fail) {
    gossip::HeartbeatConfig c;
    c.nodes = o.nodes;
    c.fanout = o.fanout;
    c.t_fail = tf;
    c.t_cleanup = o.t_cleanup;
    c.loss = o.loss;
    const int cap = tf + gossip::default_max_rounds(o.nodes);

    MembershipRow row;
    row.t_fail = tf;
    row.t_cleanup = c.cleanup_rounds();
    row.false_by_round.assign(static_cast<std::size_t>(o.rounds) + 1, 0.0);
    double agree_sum = 0.0, detect_sum = 0.0;
    std::uint64_t detected = 0, messages = 0;
    for (int trial = 0; trial < o.trials; ++trial) {
      auto cluster = gossip::HeartbeatCluster::create(c);
      if (!cluster) return cluster.error();
      gossip::HeartbeatCluster& hb = *cluster;
      Rng rng = Rng(o.seed).fork(static_cast<std::uint32_t>(trial));
      for (int r = 0; r < o.rounds; ++r) {
        hb.step(rng);
        const std::uint64_t wrong = hb.false_suspicions();
        row.false_suspicion_node_rounds += wrong;
        row.false_by_round[static_cast<std::size_t>(r) + 1] += static_cast<double>(wrong);
      }
      messages += hb.messages_sent();

      hb.crash(victim);
      std::vector<bool> knows(o.nodes, false);
      for (int elapsed = 1; elapsed <= cap; ++elapsed) {
        hb.step(rng);
        for (std::size_t i = 0; i < victim; ++i) {
          if (knows[i] || hb.verdict(i, victim) == gossip::Verdict::alive) continue;
          knows[i] = true;
          detect_sum += elapsed;
          ++detected;
        }
        if (hb.all_hold_failed(victim)) {
          agree_sum += elapsed;
          ++row.agreed;
          break;
        }
      }
      if (progress) progress(++done, total);
    }
    const double pairs = static_cast<double>(o.nodes) * static_cast<double>(o.nodes - 1);
    if (o.rounds > 0) {
      row.false_suspicion_pct = 100.0 * static_cast<double>(row.false_suspicion_node_rounds) /
                                (pairs * o.rounds * o.trials);
      row.messages_per_round = static_cast<double>(messages) / o.rounds / o.trials;
    }
    if (row.agreed) row.agree_dead_rounds_mean = agree_sum / row.agreed;
    if (detected) row.detect_rounds_mean = detect_sum / static_cast<double>(detected);
    rows.push_back(std::move(row));
  }
  return rows;
}

Report membership_report(const std::vector<MembershipRow>& rows, const MembershipOptions& o) {
  Table t;
  t.key = "membership";
  t.title = "Heartbeat-counter gossip (van Renesse et al. 1998), " + std::to_string(o.nodes) +
            " members, fanout " + std::to_string(o.fanout) +
            (o.loss > 0 ? ", loss " + fixed(o.loss, 3) : "") + ", " + std::to_string(o.trials) +
            " trial(s): " + std::to_string(o.rounds) + " rounds watched, then one crash";
  t.columns = {{"tfail", "T_fail", 0},
               {"tcleanup", "T_cleanup", 0},
               {"false_suspicion_node_rounds", "false node-rounds", 0},
               {"false_suspicion_pct", "false %", 3},
               {"agree_dead_rounds_mean", "all agree dead (rounds)", 2},
               {"detect_rounds_mean", "each detects (rounds)", 2},
               {"messages_per_round", "msgs/round", 1}};
  for (const auto& r : rows)
    t.rows.push_back({std::int64_t{r.t_fail}, std::int64_t{r.t_cleanup},
                      static_cast<std::int64_t>(r.false_suspicion_node_rounds),
                      r.false_suspicion_pct, optional_cell(r.agree_dead_rounds_mean),
                      optional_cell(r.detect_rounds_mean), r.messages_per_round});
  Report report;
  report.tables.push_back(std::move(t));
  if (rows.size() == 1) {
    const auto& r = rows.front();
    report.facts = {
        {"false_suspicion_node_rounds", static_cast<double>(r.false_suspicion_node_rounds)},
        {"agree_dead_rounds_mean", nan_if_empty(r.agree_dead_rounds_mean)},
        {"detect_rounds_mean", nan_if_empty(r.detect_rounds_mean)},
        {"messages_per_round", r.messages_per_round}};
  } else if (!rows.empty()) {
    report.facts = {{"messages_per_round", rows.front().messages_per_round}};
  }
  for (const auto& r : rows)
    report.series.push_back({"false_by_round_tfail_" + std::to_string(r.t_fail), r.false_by_round});
  report.notes = {
      "Every list starts at counter 0 grown at round 0, so the first rounds include the start-up:",
      "a member's first bumps need a few rounds to reach far observers (false_by_round shows it).",
      "all agree dead: crash -> every live member holds it failed; each detects: crash -> each",
      "member's own detection, averaged over members."};
  for (const auto& r : rows)
    if (r.agreed < o.trials)
      report.notes.push_back("T_fail " + std::to_string(r.t_fail) + ": " +
                             std::to_string(o.trials - r.agreed) +
                             " trial(s) never agreed within the round cap.");
  return report;
}

// -------------------------------------------------------------------------------- heartbeats

Status HeartbeatCostOptions::validate() const {
  namespace p = gossip::heartbeat_cost_param;
  if (auto s = p::nodes.check(static_cast<double>(nodes)); !s) return s;
  if (auto s = p::fanout.check(fanout); !s) return s;
  if (static_cast<std::size_t>(fanout) >= nodes)
    return Error{"--fanout must be between 1 and --nodes - 1"};
  return ok_status();
}

Result<std::vector<HeartbeatCostRow>> run_heartbeat_costs(const HeartbeatCostOptions& o) {
  if (auto s = o.validate(); !s) return s.error();
  const std::uint64_t n = o.nodes, f = static_cast<std::uint64_t>(o.fanout);
  return std::vector<HeartbeatCostRow>{
      {"all-to-all heartbeat", n * (n - 1), static_cast<double>(n - 1), n * (n - 1)},
      {"gossip (full list)", n * f, static_cast<double>(f), n * f * n},
  };
}

Report heartbeat_costs_report(const std::vector<HeartbeatCostRow>& rows,
                              const HeartbeatCostOptions& o) {
  Table t;
  t.key = "heartbeats";
  t.title = "Messages per heartbeat interval, " + std::to_string(o.nodes) +
            " members, gossip fanout " + std::to_string(o.fanout);
  t.columns = {{"scheme", "scheme", 0},
               {"messages", "msgs/interval", 0},
               {"per_member", "per member", 1},
               {"entries", "entries carried", 0}};
  for (const auto& r : rows)
    t.rows.push_back({r.scheme, static_cast<std::int64_t>(r.messages), r.per_member,
                      static_cast<std::int64_t>(r.entries)});
  Report report;
  report.tables.push_back(std::move(t));
  report.notes = {
      "Gossip sends n x fanout messages, every live member to fanout peers. A JavaScript "
      "simulation",
      "of this count printed 194 (291 at fanout 3): 194 = 97 x 2 and 291 = 97 x 3, as if 97 of its "
      "100",
      "members were sending when it counted; with all 100 up it is 200 (300).",
      "Each gossip message carries the whole list, so the entries (bytes) still grow as n^2."};
  return report;
}

}  // namespace vigil::lab
