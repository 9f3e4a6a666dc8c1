// `vigil lab gossip|membership|heartbeats`: epidemic spread and heartbeat-counter membership.
#include <vigil/gossip/spread.hpp>
#include <vigil/lab/gossip_experiments.hpp>
#include "lab/lab_command.hpp"

namespace vigil::native {

namespace {

using cli::Args;

Result<lab::Report> run_gossip_table(const Args& args, std::uint32_t seed) {
  // The grid is push without loss, as in the table it reproduces; options that would change that
  // are refused rather than silently ignored.
  for (const char* name : {"loss", "dead", "max-rounds"})
    if (args.has(name))
      return Error{
          std::string(
              "--table runs the lossless push grid (n x fanout, trials averaged); drop --") +
          name};
  if (auto mode = args.text("mode"); mode && *mode != "push")
    return Error{"--table runs push gossip only; drop --mode " + *mode};
  lab::GossipTableOptions o;
  o.seed = seed;
  auto nodes = size_list(args, "nodes", o.nodes);
  if (!nodes) return nodes.error();
  auto fanouts = size_list(args, "fanout", {1, 3});
  if (!fanouts) return fanouts.error();
  auto trials = args.integer_in("trials", o.trials, 1, 10000);
  if (!trials) return trials.error();
  o.nodes = *nodes;
  o.fanouts.clear();
  for (std::size_t f : *fanouts) {
    if (f > 1000) return Error{"--fanout must be between 1 and 1000"};
    o.fanouts.push_back(static_cast<int>(f));
  }
  o.trials = static_cast<int>(*trials);
  auto rows = lab::run_gossip_table(o, terminal_progress("gossip --table", "trials"));
  if (!rows) return rows.error();
  return lab::gossip_table_report(*rows, o);
}

Result<lab::Report> run_gossip(const Args& args, std::uint32_t seed) {
  if (args.flag("table")) return run_gossip_table(args, seed);
  lab::GossipOptions o;
  o.seed = seed;
  auto nodes = args.integer_in("nodes", static_cast<std::int64_t>(o.nodes), 1, 10'000'000);
  auto fanout = args.integer_in("fanout", o.fanout, 1, 1000);
  auto mode = args.choice("mode", {"push", "pull", "pushpull"}, "push");
  auto trials = args.integer_in("trials", o.trials, 1, 10000);
  auto loss = args.number("loss", o.loss);
  auto dead = args.integer_in("dead", 0, 0, 10'000'000);
  auto max_rounds = args.integer_in("max-rounds", 0, 0, 1'000'000);
  for (const Error* e : {nodes ? nullptr : &nodes.error(), fanout ? nullptr : &fanout.error(),
                         mode ? nullptr : &mode.error(), trials ? nullptr : &trials.error(),
                         loss ? nullptr : &loss.error(), dead ? nullptr : &dead.error(),
                         max_rounds ? nullptr : &max_rounds.error()})
    if (e) return *e;
  o.nodes = static_cast<std::size_t>(*nodes);
  o.fanout = static_cast<int>(*fanout);
  o.mode = gossip::parse_mode(*mode).value();
  o.trials = static_cast<int>(*trials);
  o.loss = *loss;
  o.dead = static_cast<std::size_t>(*dead);
  o.max_rounds = static_cast<int>(*max_rounds);
  auto r = lab::run_gossip(o, terminal_progress("gossip", "trials"));
  if (!r) return r.error();
  return lab::gossip_report(*r, o);
}

Result<lab::Report> run_membership(const Args& args, std::uint32_t seed) {
  lab::MembershipOptions o;
  o.seed = seed;
  auto nodes = args.integer_in("nodes", static_cast<std::int64_t>(o.nodes), 2, 2000);
  auto fanout = args.integer_in("fanout", o.fanout, 1, 100);
  auto tfail = size_list(args, "tfail", {3, 10});
  auto tcleanup = args.integer_in("tcleanup", o.t_cleanup, 0, 100000);
  auto trials = args.integer_in("trials", o.trials, 1, 1000);
  auto rounds = args.integer_in("rounds", o.rounds, 0, 100000);
  auto loss = args.number("loss", o.loss);
  for (const Error* e : {nodes ? nullptr : &nodes.error(), fanout ? nullptr : &fanout.error(),
                         tfail ? nullptr : &tfail.error(), tcleanup ? nullptr : &tcleanup.error(),
                         trials ? nullptr : &trials.error(), rounds ? nullptr : &rounds.error(),
                         loss ? nullptr : &loss.error()})
    if (e) return *e;
  o.nodes = static_cast<std::size_t>(*nodes);
  o.fanout = static_cast<int>(*fanout);
  o.t_fail.clear();
  for (std::size_t t : *tfail) {
    if (t > 100000) return Error{"--tfail must be between 1 and 100000"};
    o.t_fail.push_back(static_cast<int>(t));
  }
  o.t_cleanup = static_cast<int>(*tcleanup);
  o.trials = static_cast<int>(*trials);
  o.rounds = static_cast<int>(*rounds);
  o.loss = *loss;
  auto rows = lab::run_membership(o, terminal_progress("membership", "trials"));
  if (!rows) return rows.error();
  return lab::membership_report(*rows, o);
}

Result<lab::Report> run_heartbeats(const Args& args, std::uint32_t) {
  lab::HeartbeatCostOptions o;
  auto nodes = args.integer_in("nodes", static_cast<std::int64_t>(o.nodes), 2, 1'000'000);
  auto fanout = args.integer_in("fanout", o.fanout, 1, 1'000'000);
  for (const Error* e : {nodes ? nullptr : &nodes.error(), fanout ? nullptr : &fanout.error()})
    if (e) return *e;
  o.nodes = static_cast<std::size_t>(*nodes);
  o.fanout = static_cast<int>(*fanout);
  auto rows = lab::run_heartbeat_costs(o);
  if (!rows) return rows.error();
  return lab::heartbeat_costs_report(*rows, o);
}

}  // namespace

std::vector<LabCommand> gossip_commands() {
  return {
      {"gossip",
       "one rumour by push, pull or push-pull gossip: rounds, contacts, the informed curve",
       {{"nodes", true, "members (with --table: comma-separated list)", "1000 (100,1000,10000)"},
        {"fanout", true, "contacts per member per round (with --table: list)", "1 (1,3)"},
        {"mode", true, "push|pull|pushpull", "push"},
        {"trials", true, "runs averaged", "5"},
        {"loss", true, "independent loss probability per message", "0"},
        {"dead", true, "crashed members (the last ones): never informed, never answer", "0"},
        {"max-rounds", true, "round cap per run; 0 for 10 x (log2 n + 10)", "0"},
        {"table", false, "the push grid: n x fanout, trials averaged (mulberry32, seed 44)", ""}},
       "44",
       run_gossip},
      {"membership",
       "heartbeat-counter gossip (van Renesse 1998): false suspicions and crash agreement by "
       "T_fail",
       {{"nodes", true, "members", "100"},
        {"fanout", true, "peers each member sends its list to per round", "2"},
        {"tfail", true, "rounds without growth before failed; a comma list runs a sweep", "3,10"},
        {"tcleanup", true, "rounds without growth before the entry is dropped; 0 for 2 x tfail",
         "0"},
        {"trials", true, "independent clusters per T_fail", "30"},
        {"rounds", true, "rounds watched for false suspicions before the crash", "40"},
        {"loss", true, "independent loss probability per gossip message", "0"}},
       "1998",
       run_membership},
      {"heartbeats",
       "messages per interval: all-to-all heartbeats n(n-1) against gossip n x fanout",
       {{"nodes", true, "members", "100"}, {"fanout", true, "gossip fanout", "2"}},
       "1",
       run_heartbeats},
  };
}

}  // namespace vigil::native
