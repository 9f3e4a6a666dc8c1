// `vigil lab phi|detectors|timeouts`: heartbeats, timeouts and phi accrual.

#include <vigil/detect/params.hpp>
#include <vigil/detect/phi.hpp>
#include <vigil/lab/detectors_experiment.hpp>
#include <vigil/lab/timeouts_experiment.hpp>
#include "lab/lab_command.hpp"
#include "lab/param_options.hpp"
#include "lab/trace_commands.hpp"

namespace vigil::native {

namespace {

using cli::Args;

Result<lab::Report> run_phi(const Args& args, std::uint32_t) {
  namespace p = detect::phi_param;
  auto mean = args.required_number(std::string(p::mean.flag));
  if (!mean) return mean.error();
  auto silence = args.required_number(std::string(p::silence.flag));
  if (!silence) return silence.error();
  auto model = args.choice("model", {"normal", "logistic", "exponential"}, "normal");
  if (!model) return model.error();
  // The exponential model has no spread: --std is neither needed nor read there.
  const bool needs_std = *model != "exponential";
  const std::string std_flag(p::std_dev.flag);
  if (needs_std && !args.has(std_flag)) return Error{"missing required option --" + std_flag};
  double std_dev = p::std_dev.def, pause = p::pause.def;
  ParamReader read(args);
  if (needs_std) read(p::std_dev, std_dev);
  read(p::pause, pause);
  if (!read.status()) return read.status().error();
  // detect::phi checks --mean and --silence against the same table.
  auto value =
      detect::phi(*silence, *mean, std_dev, pause, detect::parse_tail_model(*model).value());
  if (!value) return value.error();
  lab::Report report;
  report.facts = {{"phi", *value}};
  return report;
}

Result<lab::Report> run_detectors(const Args& args, std::uint32_t seed) {
  if (args.has("trace")) return run_trace_detectors(args, seed);
  if (auto s = reject_trace_options(args); !s) return s.error();
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

// --mean, --silence and (but for the exponential model) --std have no default.
std::vector<cli::Args::Spec> phi_options() {
  namespace p = detect::phi_param;
  auto specs = options(p::all);
  for (auto& o : specs)
    if (o.name != p::pause.flag) o.default_text = "required";
  specs.push_back({"model", true, "normal|logistic|exponential", "normal"});
  return specs;
}

}  // namespace

std::vector<LabCommand> detector_commands() {
  return {
      {"phi", "phi of one silence under a fitted distribution (Hayashibara et al. 2004)",
       phi_options(), "0", run_phi},
      {"detectors",
       "five detectors (three timeouts, phi > 8, phi > 12) on one simulated heartbeat stream",
       {{"scenario", true, "stable|jitter|pause|pause-jitter|all", "all"},
        {"runs", true, "runs per scenario", "3"},
        {"seconds", true, "seconds per run before the sender crashes", "20"},
        {"trace", true, "replay a recorded heartbeat trace (text, CSV or JSON) instead", ""},
        {"unit", true, "the trace's time unit: auto|s|ms|us", "auto"},
        {"sender", true, "replay only this sender of the trace", "every sender"},
        {"crashes", true, "crash points drawn on the trace to measure detection", "1000"},
        {"warmup", true, "first heartbeats of the trace that only train the detectors", "100"},
        {"phi-threshold", true,
         "with --trace, also replay phi (normal tail) > this threshold, e.g. one vigil tune chose",
         "none"}},
       "1",
       run_detectors},
      {"timeouts",
       "an hour of heartbeats with pauses: fixed timeouts and phi by tail model",
       {{"gaps", true, "number of gaps (3600 = one hour at 1 s)", "3600"},
        {"window", true, "gaps phi is fitted on", "1000"}},
       "7",
       run_timeouts},
  };
}

}  // namespace vigil::native
