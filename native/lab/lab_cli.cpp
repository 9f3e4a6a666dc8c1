#include "lab/lab_cli.hpp"

#include <unistd.h>

#include <cstdio>
#include <functional>
#include <limits>

#include "cli/args.hpp"
#include "cli/exit_codes.hpp"
#include "detect/phi.hpp"
#include "lab/detectors_experiment.hpp"
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
lab::Progress terminal_progress(const std::string& what) {
  if (!stderr_is_terminal()) return {};
  return [what](int done, int total) {
    std::fprintf(stderr, "\r%s: %d/%d runs", what.c_str(), done, total);
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
