#include "lab/trace_commands.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include <vigil/detect/phi_threshold.hpp>
#include <vigil/lab/trace_replay.hpp>
#include <vigil/lab/trace_tune.hpp>
#include "lab/lab_command.hpp"

namespace vigil::native {

Result<detect::Trace> read_trace_file(const std::string& path, detect::TimeUnit unit,
                                      bool* unreadable) {
  if (unreadable) *unreadable = false;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (unreadable) *unreadable = true;
    return Error{"cannot read trace '" + path + "': " + std::strerror(errno)};
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto trace = detect::parse_trace(text.str(), unit);
  if (!trace) return Error{path + ": " + trace.error().message};
  return trace;
}

namespace {

// Phi under the normal tail, configured as tune's phi-normal family is, so that a threshold
// `vigil tune` recommends replays here exactly as it did there.
void add_phi_detector(std::vector<std::unique_ptr<detect::Detector>>& detectors, double interval_ms,
                      double threshold) {
  char name[48];
  std::snprintf(name, sizeof name, "phi-%.6g", threshold);
  for (const auto& d : detectors)
    if (d->name() == name) return;  // one of the standard thresholds already
  detectors.push_back(std::make_unique<detect::PhiThreshold>(
      detect::PhiThreshold::create(lab::trace_phi_config(interval_ms, detect::TailModel::normal),
                                   threshold, name)
          .value()));
}

}  // namespace

Result<lab::Report> run_trace_detectors(const cli::Args& args, std::uint32_t seed) {
  for (const char* simulated : {"scenario", "runs", "seconds"})
    if (args.has(simulated))
      return Error{"--" + std::string(simulated) +
                   " describes the simulated stream; it does not "
                   "apply with --trace"};
  auto unit_text = args.choice("unit", {"auto", "s", "ms", "us"}, "auto");
  if (!unit_text) return unit_text.error();
  auto crashes = args.integer_in("crashes", 1000, 1, 1'000'000);
  if (!crashes) return crashes.error();
  auto warmup = args.integer_in("warmup", 100, 1, 1'000'000);
  if (!warmup) return warmup.error();
  // A threshold chosen elsewhere (by `vigil tune` on another trace) checked on this one.
  std::optional<double> phi_threshold;
  if (args.has("phi-threshold")) {
    auto t = args.number_in("phi-threshold", 8.0, lab::kMinPhiThreshold, 1e6);
    if (!t) return t.error();
    phi_threshold = *t;
  }
  auto trace = read_trace_file(*args.text("trace"), detect::parse_time_unit(*unit_text).value());
  if (!trace) return trace.error();

  std::vector<detect::SenderTrace> chosen;
  if (auto name = args.text("sender")) {
    auto one = detect::pick_sender(*trace, *name);
    if (!one) return one.error();
    chosen.push_back(*one);
  } else {
    chosen = trace->senders;
  }
  lab::TraceReplayOptions options;
  options.seed = seed;
  options.crash_points = static_cast<int>(*crashes);
  options.warmup_heartbeats = static_cast<std::size_t>(*warmup);
  std::vector<lab::SenderReplay> replays;
  for (auto& sender : chosen) {
    if (auto s = lab::check_replayable(sender.arrivals, options); !s)
      return Error{(sender.sender.empty() ? "" : "sender '" + sender.sender + "': ") +
                   s.error().message};
    lab::SenderReplay r;
    r.interval_ms = lab::median_gap_ms(sender.arrivals);
    auto detectors = lab::trace_detectors(r.interval_ms);
    if (phi_threshold) add_phi_detector(detectors, r.interval_ms, *phi_threshold);
    auto rows = lab::replay_trace(sender.arrivals, detectors, options,
                                  terminal_progress("replay " + sender.sender, "detectors"));
    if (!rows) return rows.error();
    r.rows = std::move(*rows);
    r.trace = std::move(sender);
    replays.push_back(std::move(r));
  }
  return lab::trace_replay_report(replays, trace->unit, options);
}

Status reject_trace_options(const cli::Args& args) {
  for (const char* name : {"unit", "sender", "crashes", "warmup", "phi-threshold"})
    if (args.has(name)) return Error{"--" + std::string(name) + " needs --trace FILE"};
  return ok_status();
}

}  // namespace vigil::native
