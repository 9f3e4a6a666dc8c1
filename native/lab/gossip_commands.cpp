// `vigil lab gossip|membership|heartbeats`: epidemic spread and heartbeat-counter membership.
#include <string>
#include <vector>

#include <vigil/gossip/params.hpp>
#include <vigil/gossip/spread.hpp>
#include <vigil/lab/gossip_experiments.hpp>
#include "lab/lab_command.hpp"
#include "lab/param_options.hpp"

namespace vigil::native {

namespace {

using cli::Args;

Result<lab::Report> run_gossip_table(const Args& args, std::uint32_t seed) {
  namespace p = gossip::spread_param;
  // The grid is push without loss, as in the table it reproduces; options that would change that
  // are refused rather than silently ignored.
  for (const auto& spec : {p::loss, p::dead, p::max_rounds})
    if (args.has(std::string(spec.flag)))
      return Error{"--table runs the lossless push grid (n x fanout, trials averaged); drop --" +
                   std::string(spec.flag)};
  if (auto mode = args.text("mode"); mode && *mode != "push")
    return Error{"--table runs push gossip only; drop --mode " + *mode};
  lab::GossipTableOptions o;
  o.seed = seed;
  auto nodes = size_list(args, std::string(p::nodes.flag), o.nodes);
  if (!nodes) return nodes.error();
  auto fanouts = size_list(args, std::string(p::fanout.flag),
                           std::vector<std::size_t>(o.fanouts.begin(), o.fanouts.end()));
  if (!fanouts) return fanouts.error();
  ParamReader read(args);
  read(p::trials, o.trials);
  if (!read.status()) return read.status().error();
  o.nodes = *nodes;
  o.fanouts.clear();
  for (std::size_t f : *fanouts) {
    // Checked before the narrowing to int; validate() checks the rest.
    if (auto s = p::fanout.check(static_cast<double>(f)); !s) return s.error();
    o.fanouts.push_back(static_cast<int>(f));
  }
  auto rows = lab::run_gossip_table(o, terminal_progress("gossip --table", "trials"));
  if (!rows) return rows.error();
  return lab::gossip_table_report(*rows, o);
}

Result<lab::Report> run_gossip(const Args& args, std::uint32_t seed) {
  namespace p = gossip::spread_param;
  if (args.flag("table")) return run_gossip_table(args, seed);
  lab::GossipOptions o;
  o.seed = seed;
  auto mode = args.choice("mode", {"push", "pull", "pushpull"}, gossip::mode_name(o.mode));
  if (!mode) return mode.error();
  o.mode = gossip::parse_mode(*mode).value();
  ParamReader read(args);
  read(p::nodes, o.nodes);
  read(p::fanout, o.fanout);
  read(p::trials, o.trials);
  read(p::loss, o.loss);
  read(p::dead, o.dead);
  read(p::max_rounds, o.max_rounds);
  if (!read.status()) return read.status().error();
  auto r = lab::run_gossip(o, terminal_progress("gossip", "trials"));
  if (!r) return r.error();
  return lab::gossip_report(*r, o);
}

Result<lab::Report> run_membership(const Args& args, std::uint32_t seed) {
  namespace p = gossip::membership_param;
  lab::MembershipOptions o;
  o.seed = seed;
  auto tfail = size_list(args, std::string(p::t_fail.flag),
                         std::vector<std::size_t>(o.t_fail.begin(), o.t_fail.end()));
  if (!tfail) return tfail.error();
  o.t_fail.clear();
  for (std::size_t t : *tfail) {
    // Checked before the narrowing to int; validate() checks the rest.
    if (auto s = p::t_fail.check(static_cast<double>(t)); !s) return s.error();
    o.t_fail.push_back(static_cast<int>(t));
  }
  ParamReader read(args);
  read(p::nodes, o.nodes);
  read(p::fanout, o.fanout);
  read(p::t_cleanup, o.t_cleanup);
  read(p::trials, o.trials);
  read(p::rounds, o.rounds);
  read(p::loss, o.loss);
  if (!read.status()) return read.status().error();
  auto rows = lab::run_membership(o, terminal_progress("membership", "trials"));
  if (!rows) return rows.error();
  return lab::membership_report(*rows, o);
}

Result<lab::Report> run_heartbeats(const Args& args, std::uint32_t) {
  namespace p = gossip::heartbeat_cost_param;
  lab::HeartbeatCostOptions o;
  ParamReader read(args);
  read(p::nodes, o.nodes);
  read(p::fanout, o.fanout);
  if (!read.status()) return read.status().error();
  auto rows = lab::run_heartbeat_costs(o);
  if (!rows) return rows.error();
  return lab::heartbeat_costs_report(*rows, o);
}

// "1,3": a list option's default as the command line reads it.
template <class T>
std::string list_text(const std::vector<T>& values) {
  std::string out;
  for (const T& v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

std::vector<cli::Args::Spec> gossip_options() {
  namespace p = gossip::spread_param;
  const lab::GossipTableOptions table;
  auto specs = options(p::all);
  // --nodes and --fanout also take the grid's lists.
  for (auto& s : specs) {
    if (s.name == p::nodes.flag) {
      s.help += " (with --table: comma-separated list)";
      s.default_text += " (" + list_text(table.nodes) + ")";
    } else if (s.name == p::fanout.flag) {
      s.help += " (with --table: list)";
      s.default_text += " (" + list_text(table.fanouts) + ")";
    }
  }
  specs.insert(specs.begin() + 2,
               {"mode", true, "push|pull|pushpull", gossip::mode_name(lab::GossipOptions{}.mode)});
  specs.push_back(
      {"table", false, "the push grid: n x fanout, trials averaged (mulberry32, seed 44)", ""});
  return specs;
}

std::vector<cli::Args::Spec> membership_options() {
  namespace p = gossip::membership_param;
  auto specs = options(p::all);
  for (auto& s : specs)
    if (s.name == p::t_fail.flag) {
      s.help = std::string(p::t_fail.help) + ", each in " + p::t_fail.range_text() +
               "; a comma list runs a sweep";
      s.default_text = list_text(lab::MembershipOptions{}.t_fail);
    }
  return specs;
}

}  // namespace

std::vector<LabCommand> gossip_commands() {
  return {
      {"gossip",
       "one rumour by push, pull or push-pull gossip: rounds, contacts, the informed curve",
       gossip_options(), gossip::spread_param::seed.default_text(), run_gossip},
      {"membership",
       "heartbeat-counter gossip (van Renesse 1998): false suspicions and crash agreement by "
       "T_fail",
       membership_options(), gossip::membership_param::seed.default_text(), run_membership},
      {"heartbeats",
       "messages per interval: all-to-all heartbeats n(n-1) against gossip n x fanout",
       options(gossip::heartbeat_cost_param::all), "1", run_heartbeats},
  };
}

}  // namespace vigil::native
