#include "lab/lab_cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>

#include "cli/args.hpp"
#include "cli/exit_codes.hpp"
#include "detect/phi.hpp"
#include "lab/detectors_experiment.hpp"
#include "lab/swim_experiments.hpp"
#include "lab/table.hpp"
#include "lab/timeouts_experiment.hpp"

namespace vigil::native {

namespace {

using cli::Args;

struct LabCommand {
  std::string name;
  std::string summary;
  std::vector<Args::Spec> specs;  // besides the common --seed, --format, --help
  std::string default_seed;
  std::function<Result<lab::Report>(const Args&, std::uint32_t seed)> run;
};

bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

// Long runs report progress on a terminal only, so pipes and CI logs stay clean.
lab::Progress terminal_progress(const std::string& what, const char* unit = "runs") {
  if (!stderr_is_terminal()) return {};
  return [what, unit](int done, int total) {
    std::fprintf(stderr, "\r%s: %d/%d %s", what.c_str(), done, total, unit);
    if (done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  };
}

Result<lab::Report> run_phi(const Args& args, std::uint32_t) {
  auto mean = args.required_number("mean");
  if (!mean) return mean.error();
  auto silence = args.required_number("silence");
  if (!silence) return silence.error();
  auto model = args.choice("model", {"normal", "logistic", "exponential"}, "normal");
  if (!model) return model.error();
  const bool needs_std = *model != "exponential";
  if (needs_std && !args.has("std")) return Error{"missing required option --std"};
  auto std_dev = args.number("std", std::numeric_limits<double>::quiet_NaN());
  if (!std_dev) return std_dev.error();
  auto pause = args.number("pause", 0.0);
  if (!pause) return pause.error();
  auto value = detect::phi(*silence, *mean, needs_std ? *std_dev : 1.0, *pause,
                           detect::parse_tail_model(*model).value());
  if (!value) return value.error();
  lab::Report report;
  report.facts = {{"phi", *value}};
  return report;
}

Result<lab::Report> run_detectors(const Args& args, std::uint32_t seed) {
  lab::DetectorsOptions options;
  options.seed = seed;
  auto scenario =
      args.choice("scenario", {"stable", "jitter", "pause", "pause-jitter", "all"}, "all");
  if (!scenario) return scenario.error();
  if (*scenario != "all") options.scenarios = {*scenario};
  auto runs = args.integer("runs", options.runs);
  if (!runs) return runs.error();
  auto seconds = args.integer("seconds", options.seconds);
  if (!seconds) return seconds.error();
  if (*runs < 1 || *runs > 1000) return Error{"--runs must be between 1 and 1000"};
  if (*seconds < 4 || *seconds > 3600) return Error{"--seconds must be between 4 and 3600"};
  options.runs = static_cast<int>(*runs);
  options.seconds = static_cast<int>(*seconds);
  auto rows = lab::run_detectors(options, terminal_progress("detectors"));
  if (!rows) return rows.error();
  return lab::detectors_report(*rows, options);
}

Result<lab::Report> run_timeouts(const Args& args, std::uint32_t seed) {
  lab::TimeoutsOptions options;
  options.seed = seed;
  auto gaps = args.integer("gaps", options.gaps);
  if (!gaps) return gaps.error();
  auto window = args.integer("window", options.window);
  if (!window) return window.error();
  if (*gaps < 2 || *gaps > 10'000'000) return Error{"--gaps must be between 2 and 10000000"};
  if (*window < 2 || *window > 10'000'000) return Error{"--window must be between 2 and 10000000"};
  options.gaps = static_cast<int>(*gaps);
  options.window = static_cast<int>(*window);
  auto result = lab::run_timeouts(options);
  if (!result) return result.error();
  return lab::timeouts_report(*result, options);
}

// "10,100,1000" -> sizes; every element a whole number in range.
Result<std::vector<std::size_t>> size_list(const Args& args, const std::string& name,
                                           std::vector<std::size_t> fallback) {
  auto text = args.text(name);
  if (!text) return fallback;
  std::vector<std::size_t> out;
  std::size_t start = 0;
  while (start <= text->size()) {
    const std::size_t comma = std::min(text->find(',', start), text->size());
    const std::string item = text->substr(start, comma - start);
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || end != item.c_str() + item.size() || v < 1)
      return Error{"--" + name + " expects positive whole numbers separated by commas, got '" +
                   *text + "'"};
    out.push_back(static_cast<std::size_t>(v));
    start = comma + 1;
  }
  return out;
}

Result<bool> on_off(const Args& args, const std::string& name, bool fallback) {
  auto v = args.choice(name, {"on", "off"}, fallback ? "on" : "off");
  if (!v) return v.error();
  return *v == "on";
}

Result<lab::Report> run_swim_probe(const Args& args, std::uint32_t seed) {
  lab::SwimProbeOptions o;
  o.seed = seed;
  auto loss = args.required_number("loss");
  if (!loss) return loss.error();
  auto indirect = args.integer("indirect", o.indirect);
  if (!indirect) return indirect.error();
  auto probes = args.integer("probes", static_cast<std::int64_t>(o.probes));
  if (!probes) return probes.error();
  auto nodes = args.integer("nodes", static_cast<std::int64_t>(o.nodes));
  if (!nodes) return nodes.error();
  if (*indirect < 0 || *indirect > 16) return Error{"--indirect must be between 0 and 16"};
  if (*probes < 1 || *probes > 100'000'000)
    return Error{"--probes must be between 1 and 100000000"};
  if (*nodes < 2 || *nodes > 1000) return Error{"--nodes must be between 2 and 1000"};
  o.loss = *loss;
  o.indirect = static_cast<int>(*indirect);
  o.probes = static_cast<std::uint64_t>(*probes);
  o.nodes = static_cast<std::size_t>(*nodes);
  auto r = lab::run_swim_probe(o, terminal_progress("swim-probe", "simulated minutes"));
  if (!r) return r.error();
  lab::Report report = lab::swim_probe_report(*r, o);
  return report;
}

Result<lab::Report> run_swim(const Args& args, std::uint32_t seed) {
  lab::SwimRunOptions o;
  o.seed = seed;
  auto nodes = args.integer("nodes", static_cast<std::int64_t>(o.nodes));
  if (!nodes) return nodes.error();
  auto kill = args.integer("kill", static_cast<std::int64_t>(o.kill));
  if (!kill) return kill.error();
  auto periods = args.integer("periods", o.periods);
  if (!periods) return periods.error();
  auto loss = args.number("loss", o.loss);
  if (!loss) return loss.error();
  auto profile = args.choice("profile", {"lan", "wan", "local", "teaching"}, o.profile);
  if (!profile) return profile.error();
  auto lifeguard = on_off(args, "lifeguard", o.lifeguard);
  if (!lifeguard) return lifeguard.error();
  auto slow = args.integer("slow", static_cast<std::int64_t>(o.slow));
  if (!slow) return slow.error();
  auto slow_periods = args.number("slow-periods", o.slow_periods);
  if (!slow_periods) return slow_periods.error();
  if (*nodes < 2 || *nodes > 5000) return Error{"--nodes must be between 2 and 5000"};
  if (*kill < 0 || *kill >= *nodes) return Error{"--kill must be between 0 and --nodes - 1"};
  if (*periods < 1 || *periods > 100000) return Error{"--periods must be between 1 and 100000"};
  if (*slow < 0) return Error{"--slow must be >= 0"};
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

const std::vector<LabCommand>& commands() {
  static const std::vector<LabCommand> list = {
      {"phi",
       "phi of one silence under a fitted distribution (seed 001's function)",
       {{"mean", true, "mean inter-arrival time, ms", "required"},
        {"std", true, "standard deviation, ms (normal and logistic)", "required"},
        {"silence", true, "time since the last heartbeat, ms", "required"},
        {"pause", true, "pause margin added to the mean, ms", "0"},
        {"model", true, "normal|logistic|exponential", "normal"}},
       "0",
       run_phi},
      {"detectors",
       "seed 000's five detectors on one simulated heartbeat stream",
       {{"scenario", true, "stable|jitter|pause|pause-jitter|all", "all"},
        {"runs", true, "runs per scenario", "3"},
        {"seconds", true, "seconds per run before the sender crashes", "20"}},
       "1",
       run_detectors},
      {"timeouts",
       "seed 004's hour of heartbeats: fixed timeouts and phi by tail model",
       {{"gaps", true, "number of gaps (3600 = one hour at 1 s)", "3600"},
        {"window", true, "gaps phi is fitted on", "1000"}},
       "7",
       run_timeouts},
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
       "seed 004's cost table: messages and bytes per second, formula and simulated",
       {{"nodes", true, "comma-separated cluster sizes", "10,100,1000"}},
       "1",
       run_cost},
  };
  return list;
}

std::vector<Args::Spec> common_specs(const LabCommand& c) {
  std::vector<Args::Spec> specs = c.specs;
  specs.push_back({"seed", true, "PRNG seed (mulberry32)", c.default_seed});
  specs.push_back({"format", true, "table|csv|json", "table"});
  specs.push_back({"help", false, "show this help", ""});
  return specs;
}

void print_lab_help() {
  std::printf("usage: vigil lab <experiment> [options]\n\nexperiments:\n");
  for (const auto& c : commands()) std::printf("  %-12s %s\n", c.name.c_str(), c.summary.c_str());
  std::printf(
      "\nevery experiment takes --seed N and --format table|csv|json; "
      "`vigil lab <experiment> --help` lists its options.\n");
}

}  // namespace

int run_lab(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_lab_help();
    return args.empty() ? cli::kUsage : cli::kOk;
  }
  const LabCommand* command = nullptr;
  for (const auto& c : commands())
    if (c.name == args[0]) command = &c;
  if (!command) {
    std::fprintf(stderr, "vigil lab: unknown experiment '%s'\n\n", args[0].c_str());
    print_lab_help();
    return cli::kUsage;
  }
  const auto specs = common_specs(*command);
  auto parsed = Args::parse({args.begin() + 1, args.end()}, specs);
  if (!parsed) {
    std::fprintf(stderr, "vigil lab %s: %s\n", command->name.c_str(),
                 parsed.error().message.c_str());
    return cli::kUsage;
  }
  if (parsed->flag("help")) {
    std::printf("usage: vigil lab %s [options]\n%s\n\noptions:\n%s", command->name.c_str(),
                command->summary.c_str(), Args::usage(specs).c_str());
    return cli::kOk;
  }
  if (!parsed->positional().empty()) {
    std::fprintf(stderr, "vigil lab %s: unexpected argument '%s'\n", command->name.c_str(),
                 parsed->positional().front().c_str());
    return cli::kUsage;
  }
  auto fail = [&](const Error& e) {
    std::fprintf(stderr, "vigil lab %s: %s\n", command->name.c_str(), e.message.c_str());
    return cli::kUsage;
  };
  auto seed = parsed->integer("seed", std::stoll(command->default_seed));
  if (!seed) return fail(seed.error());
  if (*seed < 0 || *seed > 0xFFFFFFFFLL) return fail(Error{"--seed must be in [0, 4294967295]"});
  auto format = parsed->choice("format", {"table", "csv", "json"}, "table");
  if (!format) return fail(format.error());
  auto report = command->run(*parsed, static_cast<std::uint32_t>(*seed));
  if (!report) return fail(report.error());
  const auto fmt = *format == "json"  ? lab::Format::json
                   : *format == "csv" ? lab::Format::csv
                                      : lab::Format::table;
  std::fputs(lab::render(*report, fmt).c_str(), stdout);
  return cli::kOk;
}

}  // namespace vigil::native
