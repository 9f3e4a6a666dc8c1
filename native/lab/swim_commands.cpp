// `vigil lab swim-probe|swim|cost`: the SWIM engine on the simulated network.
#include <vigil/lab/swim_experiments.hpp>
#include <vigil/lab/swim_params.hpp>
#include <vigil/swim/config.hpp>
#include "lab/lab_command.hpp"
#include "lab/param_options.hpp"

namespace vigil::native {

namespace {

using cli::Args;

Result<lab::Report> run_swim_probe(const Args& args, std::uint32_t seed) {
  namespace p = lab::swim_probe_param;
  lab::SwimProbeOptions o;
  o.seed = seed;
  auto loss = args.required_number(std::string(p::loss.flag));
  if (!loss) return loss.error();
  o.loss = *loss;
  ParamReader read(args);
  read(p::indirect, o.indirect);
  read(p::probes, o.probes);
  read(p::nodes, o.nodes);
  if (!read.status()) return read.status().error();
  auto r = lab::run_swim_probe(o, terminal_progress("swim-probe", "simulated minutes"));
  if (!r) return r.error();
  return lab::swim_probe_report(*r, o);
}

Result<lab::Report> run_swim(const Args& args, std::uint32_t seed) {
  namespace p = lab::swim_param;
  lab::SwimRunOptions o;
  o.seed = seed;
  auto profile = args.choice("profile", swim::Config::profile_names(), o.profile);
  if (!profile) return profile.error();
  auto lifeguard = on_off(args, "lifeguard", o.lifeguard);
  if (!lifeguard) return lifeguard.error();
  o.profile = *profile;
  o.lifeguard = *lifeguard;
  ParamReader read(args);
  read(p::nodes, o.nodes);
  read(p::kill, o.kill);
  read(p::periods, o.periods);
  read(p::loss, o.loss);
  read(p::slow, o.slow);
  read(p::slow_periods, o.slow_periods);
  if (!read.status()) return read.status().error();
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
  auto probe = options(lab::swim_probe_param::all);
  // The command line asks for the loss every time.
  for (auto& o : probe)
    if (o.name == lab::swim_probe_param::loss.flag) o.default_text = "required";
  auto swim = options(lab::swim_param::all);
  const lab::SwimRunOptions defaults;
  swim.insert(swim.begin() + 4, {{"profile", true, "lan|wan|local|teaching", defaults.profile},
                                 {"lifeguard", true, "on|off", defaults.lifeguard ? "on" : "off"}});
  return {
      {"swim-probe",
       "how often a SWIM probe of a live member fails under loss: simulation against formula",
       probe, lab::swim_probe_param::seed.default_text(), run_swim_probe},
      {"swim", "crash members of a simulated SWIM cluster: detection, mistakes, cost", swim,
       lab::swim_param::seed.default_text(), run_swim},
      {"cost",
       "traffic per scheme: messages and bytes per second, formula and simulated",
       {{"nodes", true, "comma-separated cluster sizes", "10,100,1000"}},
       "1",
       run_cost},
  };
}

}  // namespace vigil::native
