#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/lab/progress.hpp>
#include <vigil/lab/table.hpp>
#include "cli/args.hpp"

namespace vigil::native {

// One `vigil lab <name>` experiment: its options (besides the common --seed, --format, --help)
// and how to run it into a report.
struct LabCommand {
  std::string name;
  std::string summary;
  std::vector<cli::Args::Spec> specs;
  std::string default_seed;
  std::function<Result<lab::Report>(const cli::Args&, std::uint32_t seed)> run;
};

// The experiments, one group per core area.
std::vector<LabCommand> detector_commands();
std::vector<LabCommand> swim_commands();
std::vector<LabCommand> gossip_commands();
std::vector<LabCommand> retry_commands();

// Progress on stderr when it is a terminal, nothing otherwise (pipes and CI logs stay clean).
lab::Progress terminal_progress(const std::string& what, const char* unit = "runs");

// "10,100,1000" -> {10, 100, 1000}: positive whole numbers, comma separated.
Result<std::vector<std::size_t>> size_list(const cli::Args& args, const std::string& name,
                                           std::vector<std::size_t> fallback);

// An on|off option.
Result<bool> on_off(const cli::Args& args, const std::string& name, bool fallback);

}  // namespace vigil::native
