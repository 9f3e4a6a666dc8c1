// `vigil lab retry chain|hysteresis|fleet|server`: retry storms.
#include <algorithm>

#include "lab/lab_command.hpp"
#include <vigil/lab/retry_experiments.hpp>
#include <vigil/retry/backoff.hpp>

namespace vigil::native {

namespace {

using cli::Args;

// Returns the first error among option reads, if any.
template <typename... R>
const Error* first_error(const R&... results) {
  const Error* e = nullptr;
  ((e = (e || results.ok()) ? e : &results.error()), ...);
  return e;
}

Result<lab::Report> run_chain(const Args& args, std::uint32_t) {
  if (args.flag("table")) {
    for (const char* name : {"depth", "retries", "fail"})
      if (args.has(name))
        return Error{std::string("--table prints the fixed reference table; drop --") + name};
    return lab::chain_table_report(lab::reference_chain_rows());
  }
  retry::Chain c;
  auto depth = args.integer("depth", c.depth);
  auto tries = args.integer("retries", c.tries);
  auto fail = args.required_number("fail");
  if (const Error* e = first_error(depth, tries, fail)) return *e;
  // Out-of-range integers are clamped just past the limits so validate() names the option.
  c.depth = static_cast<int>(std::clamp<std::int64_t>(*depth, -1, 1000));
  c.tries = static_cast<int>(std::clamp<std::int64_t>(*tries, -1, 1000));
  c.fail = *fail;
  auto a = retry::amplify(c);
  if (!a) return a.error();
  return lab::chain_report(c, *a);
}

Result<lab::Report> run_hysteresis(const Args& args, std::uint32_t) {
  lab::HysteresisOptions o;
  retry::HysteresisModel& m = o.model;
  auto lambda_min = args.number("lambda-min", o.lambda_min);
  auto lambda_max = args.number("lambda-max", o.lambda_max);
  auto step = args.number("step", o.step);
  auto timeout = args.number("timeout", m.timeout_ms);
  auto mu_max = args.number("mu-max", m.mu_max);
  auto l0 = args.number("l0", m.l0_ms);
  auto alpha = args.number("alpha", m.alpha);
  auto beta = args.number("beta", m.beta);
  auto gamma = args.number("gamma", m.gamma);
  auto kappa = args.number("kappa", m.kappa);
  auto eta = args.number("eta", m.eta);
  auto max_latency = args.number("max-latency", m.max_latency_ms);
  if (const Error* e = first_error(lambda_min, lambda_max, step, timeout, mu_max, l0, alpha, beta,
                                   gamma, kappa, eta, max_latency))
    return *e;
  o.lambda_min = *lambda_min;
  o.lambda_max = *lambda_max;
  o.step = *step;
  m.timeout_ms = *timeout;
  m.mu_max = *mu_max;
  m.l0_ms = *l0;
  m.alpha = *alpha;
  m.beta = *beta;
  m.gamma = *gamma;
  m.kappa = *kappa;
  m.eta = *eta;
  m.max_latency_ms = *max_latency;
  if (args.has("equilibria")) {
    auto lambda0 = args.number("equilibria", 0.0);
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
  retry::FleetOptions o;
  o.seed = seed;
  auto strategy = args.choice("strategy", retry::backoff_names(), "full-jitter");
  auto clients = args.integer_in("clients", o.clients, 1, 1'000'000);
  auto seconds = args.integer_in("seconds", o.seconds, 1, 3600);
  auto base = args.number("base", o.backoff.base_s);
  auto cap = args.number("cap", o.backoff.cap_s);
  auto capacity = args.number("capacity", o.capacity_rps);
  if (const Error* e = first_error(strategy, clients, seconds, base, cap, capacity)) return *e;
  o.backoff.strategy = retry::parse_backoff(*strategy).value();
  o.clients = static_cast<int>(*clients);
  o.seconds = static_cast<int>(*seconds);
  o.backoff.base_s = *base;
  o.backoff.cap_s = *cap;
  o.capacity_rps = *capacity;
  auto r = lab::run_fleet(o, terminal_progress("retry fleet", "seconds"));
  if (!r) return r.error();
  return lab::fleet_report(*r, o);
}

Result<lab::Report> run_server(const Args& args, std::uint32_t seed) {
  retry::ServerOptions o;
  o.seed = seed;
  auto mitigation = args.text("mitigation");
  auto trigger_seconds = args.number("trigger-seconds", o.trigger_seconds);
  auto trigger_capacity = args.number("trigger-capacity", o.trigger_capacity);
  auto trigger_load = args.number("trigger-load", o.trigger_load);
  auto arrival = args.number("arrival", o.arrival_rps);
  auto capacity = args.number("capacity", o.capacity_rps);
  auto timeout = args.number("timeout", o.timeout_ms);
  auto tries = args.integer_in("tries", o.tries, 1, 10);
  auto seconds = args.integer_in("seconds", o.seconds, 3, 600);
  auto ratio = args.number("budget-ratio", o.budget.ratio);
  if (const Error* e = first_error(trigger_seconds, trigger_capacity, trigger_load, arrival,
                                   capacity, timeout, tries, seconds, ratio))
    return *e;
  if (mitigation) {
    auto m = retry::parse_mitigations(*mitigation);
    if (!m) return m.error();
    o.mitigations = *m;
  }
  o.trigger_seconds = *trigger_seconds;
  o.trigger_capacity = *trigger_capacity;
  o.trigger_load = *trigger_load;
  o.arrival_rps = *arrival;
  o.capacity_rps = *capacity;
  o.timeout_ms = *timeout;
  o.tries = static_cast<int>(*tries);
  o.seconds = static_cast<int>(*seconds);
  o.budget.ratio = *ratio;
  auto r = lab::run_server(o, terminal_progress("retry server", "simulated seconds"));
  if (!r) return r.error();
  return lab::server_report(*r, o);
}

}  // namespace

std::vector<LabCommand> retry_commands() {
  const retry::HysteresisModel m;
  const retry::ServerOptions s;
  auto num = [](double x) {
    std::string t = std::to_string(x);
    t.erase(t.find_last_not_of('0') + 1);
    if (!t.empty() && t.back() == '.') t.pop_back();
    return t;
  };
  return {
      {"retry chain",
       "retry amplification through a chain of services",
       {{"depth", true, "services in the chain, N", "5"},
        {"retries", true, "attempts per hop, k (the first call included)", "3"},
        {"fail", true, "failure probability of calls to the last service, p", "required"},
        {"table", false, "print the reference table (k = 3, six depths and failure rates) instead", ""}},
       "2",
       run_chain},
      {"retry hysteresis",
       "a fluid model of a retry storm: load swept up and down, collapse and recovery loads",
       {{"lambda-min", true, "lowest load, req/s", "100"},
        {"lambda-max", true, "highest load, req/s", "1350"},
        {"step", true, "load step, req/s", "25"},
        {"timeout", true, "client timeout, ms", num(m.timeout_ms)},
        {"mu-max", true, "server capacity, req/s", num(m.mu_max)},
        {"l0", true, "base latency, ms", num(m.l0_ms)},
        {"alpha", true, "capacity degradation with latency", num(m.alpha)},
        {"beta", true, "degradation exponent", num(m.beta)},
        {"gamma", true, "retry amplification (load x 1 + gamma in a storm)", num(m.gamma)},
        {"kappa", true, "sharpness of the retry onset, per ms", num(m.kappa)},
        {"eta", true, "ms of latency per req/s of excess load per second", num(m.eta)},
        {"max-latency", true, "queue limit, ms", num(m.max_latency_ms)},
        {"equilibria", true, "print the equilibria at this load instead, req/s", ""}},
       "2",
       run_hysteresis},
      {"retry fleet",
       "clients retrying after an outage, per backoff strategy",
       {{"strategy", true, "none|fixed|exponential|full-jitter|equal-jitter|decorrelated",
         "full-jitter"},
        {"clients", true, "clients that failed at t = 0", "4000"},
        {"seconds", true, "seconds simulated", "35"},
        {"base", true, "backoff base, s", "1"},
        {"cap", true, "backoff cap, s", "20"},
        {"capacity", true, "server capacity, req/s", "1000"}},
       "2",
       run_fleet},
      {"retry server",
       "an overloaded queue with timeouts and retries: metastable failure and mitigations",
       {{"mitigation", true, "none|all or a comma list of budget,quota,deadline,shed", "none"},
        {"trigger-seconds", true, "how long the trigger lasts, s", num(s.trigger_seconds)},
        {"trigger-capacity", true, "share of capacity left during the trigger",
         num(s.trigger_capacity)},
        {"trigger-load", true, "load multiplier during the trigger", num(s.trigger_load)},
        {"arrival", true, "first attempts per second (Poisson)", num(s.arrival_rps)},
        {"capacity", true, "service rate, req/s (exponential service)", num(s.capacity_rps)},
        {"timeout", true, "client timeout per attempt, ms", num(s.timeout_ms)},
        {"tries", true, "attempts per request, the first included", std::to_string(s.tries)},
        {"seconds", true, "seconds simulated (trigger at 10 s)", std::to_string(s.seconds)},
        {"budget-ratio", true, "retry budget: retries per first attempt", num(s.budget.ratio)}},
       "2",
       run_server},
  };
}

}  // namespace vigil::native
