#include "commands/tune_cli.hpp"

#include <cstdio>
#include <fstream>

#include <vigil/lab/trace_tune.hpp>
#include "cli/args.hpp"
#include "cli/exit_codes.hpp"
#include "lab/lab_command.hpp"
#include "lab/param_options.hpp"
#include "lab/trace_commands.hpp"

namespace vigil::native {

namespace {

using cli::Args;

const std::vector<Args::Spec>& specs() {
  static const std::vector<Args::Spec> list = {
      {"trace", true, "heartbeat trace: text, CSV or JSON arrival times", "required"},
      {"max-mistakes-per-hour", true, "mistake budget a setting must meet on the trace",
       "required"},
      {"confidence", true,
       "how sure a setting must be to stay within the budget beyond this trace (Poisson upper "
       "bound; 0: the trace's own count)",
       "0.95"},
      {"unit", true, "the trace's time unit: auto|s|ms|us", "auto"},
      {"sender", true, "the sender to tune for, when the trace has several", ""},
      {"nodes", true, "cluster size, for memberlist's log10(n) scaling", "10"},
      {"crashes", true, "crash points drawn on the trace to measure detection", "1000"},
      {"warmup", true, "first heartbeats that only train the detectors", "100"},
      {"seed", true, "PRNG seed of the crash points (mulberry32)", "1"},
      {"format", true, "table|csv|json", "table"},
      {"csv", true, "also write the frontier as CSV to this file, for plotting", ""},
      {"help", false, "show this help", ""}};
  return list;
}

void print_help() {
  std::printf(
      "usage: vigil tune --trace FILE --max-mistakes-per-hour X [options]\n"
      "Replays a recorded heartbeat trace and finds, per detector family (fixed timeout; phi\n"
      "with normal, logistic and exponential tails; phi with a pause margin), the most\n"
      "aggressive setting whose mistake rate stays within the budget (at --confidence, beyond\n"
      "this trace), the detection time it buys, and the memberlist/Serf settings it implies.\n"
      "\noptions:\n%s",
      Args::usage(specs()).c_str());
}

}  // namespace

const std::vector<Args::Spec>& tune_option_specs() {
  return specs();
}

int run_tune(const std::vector<std::string>& argv) {
  auto parsed = Args::parse(argv, specs());
  auto fail = [](const Error& e, int code) {
    std::fprintf(stderr, "vigil tune: %s\n", e.message.c_str());
    return code;
  };
  if (!parsed) return fail(parsed.error(), cli::kUsage);
  const Args& args = *parsed;
  if (args.flag("help")) {
    print_help();
    return cli::kOk;
  }
  if (!args.positional().empty())
    return fail(Error{"unexpected argument '" + args.positional().front() + "'"}, cli::kUsage);
  if (!args.has("trace")) return fail(Error{"missing required option --trace FILE"}, cli::kUsage);
  auto budget = args.required_number("max-mistakes-per-hour");
  if (!budget) return fail(budget.error(), cli::kUsage);
  auto unit = args.choice("unit", {"auto", "s", "ms", "us"}, "auto");
  auto nodes = args.integer_in("nodes", 10, 1, 1'000'000);
  auto crashes = args.integer_in("crashes", 1000, 1, 1'000'000);
  auto warmup = args.integer_in("warmup", 100, 1, 1'000'000);
  auto seed = args.integer_in("seed", 1, 0, 0xFFFFFFFFLL);
  auto format = args.choice("format", {"table", "csv", "json"}, "table");
  for (const Error* e : {unit ? nullptr : &unit.error(), nodes ? nullptr : &nodes.error(),
                         crashes ? nullptr : &crashes.error(), warmup ? nullptr : &warmup.error(),
                         seed ? nullptr : &seed.error(), format ? nullptr : &format.error()})
    if (e) return fail(*e, cli::kUsage);

  lab::TuneOptions options;
  options.max_mistakes_per_hour = *budget;
  ParamReader read(args);
  read(lab::tune_param::confidence, options.confidence);
  if (!read.status()) return fail(read.status().error(), cli::kUsage);
  options.nodes = static_cast<int>(*nodes);
  options.replay.crash_points = static_cast<int>(*crashes);
  options.replay.warmup_heartbeats = static_cast<std::size_t>(*warmup);
  options.replay.seed = static_cast<std::uint32_t>(*seed);
  if (auto s = options.validate(); !s) return fail(s.error(), cli::kUsage);

  bool unreadable = false;
  auto trace =
      read_trace_file(*args.text("trace"), detect::parse_time_unit(*unit).value(), &unreadable);
  if (!trace) return fail(trace.error(), unreadable ? cli::kFailure : cli::kUsage);
  auto sender = detect::pick_sender(*trace, args.text("sender").value_or(""));
  if (!sender) {
    auto e = sender.error();
    if (!args.has("sender")) e.message += " with --sender";
    return fail(e, cli::kUsage);
  }
  auto result = lab::tune_trace(sender->arrivals, options, terminal_progress("tune", "families"));
  if (!result) return fail(result.error(), cli::kUsage);

  if (auto path = args.text("csv")) {
    std::ofstream out(*path, std::ios::binary);
    out << lab::render(lab::tune_frontier_report(*result), lab::Format::csv);
    if (!out) return fail(Error{"cannot write '" + *path + "'"}, cli::kFailure);
  }
  const auto fmt = *format == "json"  ? lab::Format::json
                   : *format == "csv" ? lab::Format::csv
                                      : lab::Format::table;
  std::fputs(lab::render(lab::tune_report(*result, options), fmt).c_str(), stdout);
  return cli::kOk;
}

}  // namespace vigil::native
