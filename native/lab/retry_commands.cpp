// `vigil lab retry chain|hysteresis|fleet|server`: retry storms.
#include <vigil/lab/retry_experiments.hpp>
#include <vigil/retry/backoff.hpp>
#include <vigil/retry/params.hpp>
#include "lab/lab_command.hpp"
#include "lab/param_options.hpp"

namespace vigil::native {

namespace {

using cli::Args;

Result<lab::Report> run_chain(const Args& args, std::uint32_t) {
  namespace p = retry::chain_param;
  if (args.flag("table")) {
    for (const auto& spec : p::all)
      if (args.has(std::string(spec.flag)))
        return Error{"--table prints the fixed reference table; drop --" + std::string(spec.flag)};
    return lab::chain_table_report(lab::reference_chain_rows());
  }
  retry::Chain c;
  ParamReader read(args);
  read(p::depth, c.depth);
  read(p::tries, c.tries);
  if (!read.status()) return read.status().error();
  auto fail = args.required_number(std::string(p::fail.flag));
  if (!fail) return fail.error();
  c.fail = *fail;
  auto a = retry::amplify(c);
  if (!a) return a.error();
  return lab::chain_report(c, *a);
}

Result<lab::Report> run_hysteresis(const Args& args, std::uint32_t) {
  namespace p = retry::hysteresis_param;
  lab::HysteresisOptions o;
  retry::HysteresisModel& m = o.model;
  ParamReader read(args);
  read(p::lambda_min, o.lambda_min);
  read(p::lambda_max, o.lambda_max);
  read(p::step, o.step);
  read(p::timeout, m.timeout_ms);
  read(p::mu_max, m.mu_max);
  read(p::l0, m.l0_ms);
  read(p::alpha, m.alpha);
  read(p::beta, m.beta);
  read(p::gamma, m.gamma);
  read(p::kappa, m.kappa);
  read(p::eta, m.eta);
  read(p::max_latency, m.max_latency_ms);
  if (!read.status()) return read.status().error();
  if (args.has("equilibria")) {
    auto lambda0 = args.required_number("equilibria");
    if (!lambda0) return lambda0.error();
    auto roots = lab::run_equilibria(m, *lambda0);
    if (!roots) return roots.error();
    return lab::equilibria_report(*roots, m, *lambda0);
  }
  auto r = lab::run_hysteresis(o, terminal_progress("retry hysteresis", "loads"));
  if (!r) return r.error();
  return lab::hysteresis_report(*r, o);
}

Result<lab::Report> run_fleet(const Args& args, std::uint32_t seed) {
  namespace p = retry::fleet_param;
  retry::FleetOptions o;
  o.seed = seed;
  auto strategy =
      args.choice("strategy", retry::backoff_names(), retry::backoff_name(o.backoff.strategy));
  if (!strategy) return strategy.error();
  o.backoff.strategy = retry::parse_backoff(*strategy).value();
  ParamReader read(args);
  read(p::clients, o.clients);
  read(p::seconds, o.seconds);
  read(p::base, o.backoff.base_s);
  read(p::cap, o.backoff.cap_s);
  read(p::capacity, o.capacity_rps);
  if (!read.status()) return read.status().error();
  auto r = lab::run_fleet(o, terminal_progress("retry fleet", "seconds"));
  if (!r) return r.error();
  return lab::fleet_report(*r, o);
}

Result<lab::Report> run_server(const Args& args, std::uint32_t seed) {
  namespace p = retry::server_param;
  retry::ServerOptions o;
  o.seed = seed;
  if (auto mitigation = args.text("mitigation")) {
    auto m = retry::parse_mitigations(*mitigation);
    if (!m) return m.error();
    o.mitigations = *m;
  }
  ParamReader read(args);
  read(p::trigger_at, o.trigger_at_s);
  read(p::trigger_seconds, o.trigger_seconds);
  read(p::trigger_capacity, o.trigger_capacity);
  read(p::trigger_load, o.trigger_load);
  read(p::arrival, o.arrival_rps);
  read(p::capacity, o.capacity_rps);
  read(p::timeout, o.timeout_ms);
  read(p::tries, o.tries);
  read(p::seconds, o.seconds);
  read(p::budget_ratio, o.budget.ratio);
  if (!read.status()) return read.status().error();
  auto r = lab::run_server(o, terminal_progress("retry server", "simulated seconds"));
  if (!r) return r.error();
  return lab::server_report(*r, o);
}

}  // namespace

std::vector<LabCommand> retry_commands() {
  const std::string seed = retry::kSeedParam.default_text();
  auto chain = options(retry::chain_param::all);
  // The command line asks for p every time; the web demo opens at the default.
  for (auto& o : chain)
    if (o.name == retry::chain_param::fail.flag) o.default_text = "required";
  chain.push_back({"table", false,
                   "print the reference table (k = 3, six depths and failure rates) instead", ""});
  auto hysteresis = options(retry::hysteresis_param::sweep);
  for (const auto& o : options(retry::hysteresis_param::model)) hysteresis.push_back(o);
  hysteresis.push_back(
      {"equilibria", true, "print the equilibria at this load instead, req/s", ""});
  auto fleet = options(retry::fleet_param::all);
  fleet.insert(fleet.begin(),
               {"strategy", true, "none|fixed|exponential|full-jitter|equal-jitter|decorrelated",
                retry::backoff_name(retry::Backoff{}.strategy)});
  auto server = options(retry::server_param::all);
  server.insert(server.begin(), {"mitigation", true,
                                 "none|all or a comma list of budget,quota,deadline,shed", "none"});
  return {
      {"retry chain", "retry amplification through a chain of services", chain, seed, run_chain},
      {"retry hysteresis",
       "a fluid model of a retry storm: load swept up and down, collapse and recovery loads",
       hysteresis, seed, run_hysteresis},
      {"retry fleet", "clients retrying after an outage, per backoff strategy", fleet, seed,
       run_fleet},
      {"retry server",
       "an overloaded queue with timeouts and retries: metastable failure and mitigations", server,
       seed, run_server},
  };
}

}  // namespace vigil::native
