// `vigil lab swim-probe|swim|cost`: the SWIM engine on the simulated network.
#include <vigil/lab/swim_experiments.hpp>
#include <vigil/swim/config.hpp>
#include "lab/lab_command.hpp"

namespace vigil::native {

namespace {

using cli::Args;

// Option values are range-checked here only as far as their C++ types need; the experiments'
// own validate() gives the domain errors.
Result<lab::Report> run_swim_probe(const Args& args, std::uint32_t seed) {
  lab::SwimProbeOptions o;
  o.seed = seed;
  auto loss = args.required_number("loss");
  auto indirect = args.integer_in("indirect", o.indirect, 0, 16);
  auto probes = args.integer_in("probes", static_cast<std::int64_t>(o.probes), 1, 100'000'000);
  auto nodes = args.integer_in("nodes", static_cast<std::int64_t>(o.nodes), 2, 1000);
  for (const Error* e : {loss ? nullptr : &loss.error(), indirect ? nullptr : &indirect.error(),
                         probes ? nullptr : &probes.error(), nodes ? nullptr : &nodes.error()})
    if (e) return *e;
  o.loss = *loss;
  o.indirect = static_cast<int>(*indirect);
  o.probes = static_cast<std::uint64_t>(*probes);
  o.nodes = static_cast<std::size_t>(*nodes);
  auto r = lab::run_swim_probe(o, terminal_progress("swim-probe", "simulated minutes"));
  if (!r) return r.error();
  return lab::swim_probe_report(*r, o);
}

Result<lab::Report> run_swim(const Args& args, std::uint32_t seed) {
  lab::SwimRunOptions o;
  o.seed = seed;
  auto nodes = args.integer_in("nodes", static_cast<std::int64_t>(o.nodes), 2, 5000);
  auto kill = args.integer_in("kill", static_cast<std::int64_t>(o.kill), 0, 5000);
  auto periods = args.integer_in("periods", o.periods, 1, 100000);
  auto loss = args.number("loss", o.loss);
  auto profile = args.choice("profile", swim::Config::profile_names(), o.profile);
  auto lifeguard = on_off(args, "lifeguard", o.lifeguard);
  auto slow = args.integer_in("slow", static_cast<std::int64_t>(o.slow), 0, 5000);
  auto slow_periods = args.number("slow-periods", o.slow_periods);
  for (const Error* e :
       {nodes ? nullptr : &nodes.error(), kill ? nullptr : &kill.error(),
        periods ? nullptr : &periods.error(), loss ? nullptr : &loss.error(),
        profile ? nullptr : &profile.error(), lifeguard ? nullptr : &lifeguard.error(),
        slow ? nullptr : &slow.error(), slow_periods ? nullptr : &slow_periods.error()})
    if (e) return *e;
  o.nodes = static_cast<std::size_t>(*nodes);
  o.kill = static_cast<std::size_t>(*kill);
  o.periods = static_cast<int>(*periods);
  o.loss = *loss;
  o.profile = *profile;
  o.lifeguard = *lifeguard;
  o.slow = static_cast<std::size_t>(*slow);
  o.slow_periods = *slow_periods;
  auto r = lab::run_swim(o, terminal_progress("swim", "periods"));
  if (!r) return r.error();
  return lab::swim_report(*r, o);
}

Result<lab::Report> run_cost(const Args& args, std::uint32_t seed) {
  lab::CostOptions o;
  o.seed = seed;
  auto nodes = size_list(args, "nodes", o.nodes);
  if (!nodes) return nodes.error();
  o.nodes = *nodes;
  auto rows = lab::run_cost(o, terminal_progress("cost", "cluster sizes"));
  if (!rows) return rows.error();
  return lab::cost_report(*rows);
}

}  // namespace

std::vector<LabCommand> swim_commands() {
  return {
      {"swim-probe",
       "how often a SWIM probe of a live member fails under loss: simulation against formula",
       {{"loss", true, "independent loss probability per message", "required"},
        {"indirect", true, "indirect helpers asked (IndirectChecks)", "3"},
        {"probes", true, "probes to simulate", "200000"},
        {"nodes", true, "cluster size", "20"}},
       "2002",
       run_swim_probe},
      {"swim",
       "crash members of a simulated SWIM cluster: detection, mistakes, cost",
       {{"nodes", true, "cluster size", "100"},
        {"kill", true, "members crashed after warm-up", "1"},
        {"periods", true, "probe periods observed after the crash", "60"},
        {"loss", true, "independent loss probability per datagram", "0"},
        {"profile", true, "lan|wan|local|teaching", "lan"},
        {"lifeguard", true, "on|off", "on"},
        {"slow", true, "members that read incoming datagrams late", "0"},
        {"slow-periods", true, "how late the slow members read, in probe periods", "5"}},
       "1",
       run_swim},
      {"cost",
       "traffic per scheme: messages and bytes per second, formula and simulated",
       {{"nodes", true, "comma-separated cluster sizes", "10,100,1000"}},
       "1",
       run_cost},
  };
}

}  // namespace vigil::native
