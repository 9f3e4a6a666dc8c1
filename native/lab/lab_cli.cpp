#include "lab/lab_cli.hpp"

#include <algorithm>
#include <cstdio>

#include "cli/args.hpp"
#include "cli/exit_codes.hpp"
#include "lab/fencing_commands.hpp"
#include "lab/lab_command.hpp"

namespace vigil::native {

namespace {

using cli::Args;

const std::vector<LabCommand>& commands() {
  static const std::vector<LabCommand> list = [] {
    std::vector<LabCommand> all;
    for (auto group :
         {detector_commands, swim_commands, gossip_commands, retry_commands, fencing_commands})
      for (auto& c : group()) all.push_back(std::move(c));
    return all;
  }();
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
  int width = 12;
  for (const auto& c : commands()) width = std::max(width, static_cast<int>(c.name.size()));
  for (const auto& c : commands())
    std::printf("  %-*s %s\n", width, c.name.c_str(), c.summary.c_str());
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
  // Names are one word ("swim") or a group and a word ("retry chain").
  const LabCommand* command = nullptr;
  std::size_t words = 1;
  for (const auto& c : commands()) {
    if (c.name == args[0]) command = &c;
    if (args.size() > 1 && c.name == args[0] + " " + args[1]) {
      command = &c;
      words = 2;
      break;
    }
  }
  if (!command) {
    std::string group;
    for (const auto& c : commands())
      if (c.name.rfind(args[0] + " ", 0) == 0)
        group += (group.empty() ? "" : "|") + c.name.substr(args[0].size() + 1);
    if (!group.empty())
      std::fprintf(stderr, "vigil lab %s: expected one of %s\n\n", args[0].c_str(), group.c_str());
    else
      std::fprintf(stderr, "vigil lab: unknown experiment '%s'\n\n", args[0].c_str());
    print_lab_help();
    return cli::kUsage;
  }
  const auto specs = common_specs(*command);
  auto parsed = Args::parse({args.begin() + static_cast<std::ptrdiff_t>(words), args.end()}, specs);
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
