#include "commands/lab_cli.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "cli/args.hpp"
#include "cli/exit_codes.hpp"
#include "lab/fencing_commands.hpp"
#include "lab/lab_command.hpp"
#include "lab/param_table.hpp"

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
  std::printf("  %-*s %s\n", width, "params",
              "every experiment's model parameters: option, default, range, meaning");
  std::printf(
      "\nevery experiment takes --seed N and --format table|csv|json; "
      "`vigil lab <experiment> --help` lists its options.\n");
}

// A command named by one word ("swim") or a group and a word ("retry chain"), and how many
// words named it; null when none matches.
std::pair<const LabCommand*, std::size_t> find_command(const std::vector<std::string>& args) {
  const LabCommand* command = nullptr;
  std::size_t words = 1;
  if (args.empty()) return {nullptr, 0};
  for (const auto& c : commands()) {
    if (c.name == args[0]) command = &c;
    if (args.size() > 1 && c.name == args[0] + " " + args[1]) return {&c, 2};
  }
  return {command, words};
}

// `vigil lab params [--format text|markdown|json] [EXPERIMENT]`: the ParamSpec tables behind
// the experiments' options, for the reference pages (scripts/gen_docs.sh).
int run_params(const std::vector<std::string>& args) {
  const std::vector<Args::Spec> specs = {{"format", true, "text|markdown|json", "text"},
                                         {"help", false, "show this help", ""}};
  auto parsed = Args::parse(args, specs);
  if (!parsed) {
    std::fprintf(stderr, "vigil lab params: %s\n", parsed.error().message.c_str());
    return cli::kUsage;
  }
  if (parsed->flag("help")) {
    std::printf(
        "usage: vigil lab params [options] [EXPERIMENT]\nThe model parameters of every "
        "experiment (or one): option, default, range and meaning.\n\noptions:\n%s",
        Args::usage(specs).c_str());
    return cli::kOk;
  }
  auto format = parsed->choice("format", {"text", "markdown", "json"}, "text");
  if (!format) {
    std::fprintf(stderr, "vigil lab params: %s\n", format.error().message.c_str());
    return cli::kUsage;
  }
  std::vector<ParamTable> tables;
  const auto& named = parsed->positional();
  if (!named.empty()) {
    auto [command, words] = find_command(named);
    if (!command || words != named.size()) {
      std::string all;
      for (const auto& c : commands()) all += (all.empty() ? "" : ", ") + c.name;
      std::fprintf(stderr, "vigil lab params: no experiment '%s' (one of %s)\n",
                   named.front().c_str(), all.c_str());
      return cli::kUsage;
    }
    tables.push_back({command->name, param_options_of(command->specs)});
  } else {
    for (const auto& c : commands())
      if (auto options = param_options_of(c.specs); !options.empty())
        tables.push_back({c.name, std::move(options)});
  }
  const auto fmt = *format == "json"       ? ParamFormat::json
                   : *format == "markdown" ? ParamFormat::markdown
                                           : ParamFormat::text;
  std::fputs(render_params(tables, fmt).c_str(), stdout);
  return cli::kOk;
}

}  // namespace

std::optional<std::vector<Args::Spec>> lab_option_specs(const std::vector<std::string>& words) {
  const auto [command, count] = find_command(words);
  if (!command || count != words.size()) return std::nullopt;
  return common_specs(*command);
}

int run_lab(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_lab_help();
    return args.empty() ? cli::kUsage : cli::kOk;
  }
  if (args[0] == "params") return run_params({args.begin() + 1, args.end()});
  const auto found = find_command(args);
  const LabCommand* command = found.first;
  const std::size_t words = found.second;
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
