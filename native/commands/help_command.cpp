#include "commands/help_command.hpp"

#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>
#include "agent/metric_catalog.hpp"
#include "cli/args.hpp"
#include "cli/exit_codes.hpp"
#include "commands/agent_cli.hpp"
#include "commands/lab_cli.hpp"
#include "commands/serve_cli.hpp"
#include "commands/trace_command.hpp"
#include "commands/tune_cli.hpp"

namespace vigil::native {

namespace {

using cli::Args;

constexpr const char* kTopics = "agent, members, trace, serve, tune, lab EXPERIMENT, metrics";

std::optional<std::vector<Args::Spec>> options_of(const std::vector<std::string>& topic) {
  if (topic == std::vector<std::string>{"agent"}) return agent_option_specs();
  if (topic == std::vector<std::string>{"members"}) return members_option_specs();
  if (topic == std::vector<std::string>{"trace"}) return trace_option_specs();
  if (topic == std::vector<std::string>{"serve"}) return serve_option_specs();
  if (topic == std::vector<std::string>{"tune"}) return tune_option_specs();
  if (topic.size() > 1 && topic.front() == "lab")
    return lab_option_specs({topic.begin() + 1, topic.end()});
  return std::nullopt;
}

std::string options_json(const std::vector<Args::Spec>& specs) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& s : specs)
    rows.push_back({{"option", "--" + s.name},
                    {"takes_value", s.takes_value},
                    {"default", s.default_text},
                    {"help", s.help}});
  return rows.dump(2) + "\n";
}

std::string metrics_json(const std::vector<MetricFamily>& families) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& f : families)
    rows.push_back({{"name", f.name}, {"type", f.type}, {"labels", f.labels}, {"help", f.help}});
  return rows.dump(2) + "\n";
}

void print_usage() {
  std::printf(
      "usage: vigil help [TOPIC] [--format text|markdown|json]\n"
      "Prints a command's options, or the metrics an agent serves at /metrics, from the tables\n"
      "the program itself uses. Topics: %s.\n",
      kTopics);
}

}  // namespace

int run_help(const std::vector<std::string>& argv) {
  const std::vector<Args::Spec> specs = {{"format", true, "text|markdown|json", "text"},
                                         {"help", false, "show this help", ""}};
  auto args = Args::parse(argv, specs);
  auto fail = [](const std::string& message) {
    std::fprintf(stderr, "vigil help: %s\n", message.c_str());
    return cli::kUsage;
  };
  if (!args) return fail(args.error().message);
  if (args->flag("help")) {
    print_usage();
    return cli::kOk;
  }
  auto format = args->choice("format", {"text", "markdown", "json"}, "text");
  if (!format) return fail(format.error().message);
  const auto& topic = args->positional();
  if (topic == std::vector<std::string>{"metrics"}) {
    const auto families = agent_metric_families();
    const std::string out = *format == "markdown" ? metrics_markdown(families)
                            : *format == "json"   ? metrics_json(families)
                                                  : metrics_text_table(families);
    std::fputs(out.c_str(), stdout);
    return cli::kOk;
  }
  auto options = options_of(topic);
  if (!options) {
    std::string named;
    for (const auto& word : topic) named += (named.empty() ? "" : " ") + word;
    return fail("no reference for '" + named + "' (topics: " + kTopics + ")");
  }
  const std::string out = *format == "markdown" ? Args::markdown(*options)
                          : *format == "json"   ? options_json(*options)
                                                : Args::usage(*options);
  std::fputs(out.c_str(), stdout);
  return cli::kOk;
}

}  // namespace vigil::native
