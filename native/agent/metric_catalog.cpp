#include "agent/metric_catalog.hpp"

#include <algorithm>
#include <sstream>

#include <vigil/swim/counters.hpp>
#include "agent/agent_view.hpp"
#include "cli/args.hpp"

namespace vigil::native {

namespace {

MetricFamily& family_named(std::vector<MetricFamily>& families, const std::string& name) {
  auto it = std::find_if(families.begin(), families.end(),
                         [&](const MetricFamily& f) { return f.name == name; });
  if (it != families.end()) return *it;
  families.push_back({name, "", "", {}});
  return families.back();
}

// The label names of a sample line: `name{a="x",b="y"} 1` -> a, b.
std::vector<std::string> label_names(std::string_view sample) {
  std::vector<std::string> out;
  const auto open = sample.find('{');
  const auto close = sample.find('}');
  if (open == std::string_view::npos || close == std::string_view::npos) return out;
  std::string_view labels = sample.substr(open + 1, close - open - 1);
  while (!labels.empty()) {
    const auto eq = labels.find('=');
    if (eq == std::string_view::npos) break;
    out.emplace_back(labels.substr(0, eq));
    const auto comma = labels.find(',', eq);
    labels = comma == std::string_view::npos ? std::string_view{} : labels.substr(comma + 1);
  }
  return out;
}

void add_labels(MetricFamily& f, const std::vector<std::string>& names) {
  for (const auto& n : names)
    if (std::find(f.labels.begin(), f.labels.end(), n) == f.labels.end()) f.labels.push_back(n);
}

}  // namespace

std::vector<MetricFamily> metric_families(std::string_view exposition) {
  std::vector<MetricFamily> families;
  std::istringstream lines{std::string(exposition)};
  std::string line;
  while (std::getline(lines, line)) {
    const bool help = line.starts_with("# HELP ");
    if (help || line.starts_with("# TYPE ")) {
      const std::string rest = line.substr(7);
      const auto space = rest.find(' ');
      MetricFamily& f = family_named(families, rest.substr(0, space));
      const std::string value = space == std::string::npos ? "" : rest.substr(space + 1);
      (help ? f.help : f.type) = value;
    } else if (!line.empty() && line[0] != '#') {
      const std::string name = line.substr(0, line.find_first_of("{ "));
      add_labels(family_named(families, name), label_names(line));
    }
  }
  return families;
}

std::vector<MetricFamily> agent_metric_families() {
  // The lan profile and loopback address are valid, so creating the node cannot fail.
  const auto node = swim::Node::create(swim::Config::lan(), "reference",
                                       swim::Address::from_octets(127, 0, 0, 1, 7946), Rng(1));
  const PeerDetectors detectors{detect::PhiAccrualConfig{}};
  const FaultInjector faults{Rng(1)};
  const std::string profile = "lan";
  const AgentViewContext context{*node, detectors, faults, profile, Millis{0}, false, {}};
  auto families = metric_families(metrics_text(context));
  // A fresh agent has sent nothing, so the per-message-type counters show no sample yet.
  swim::for_each_counter_member([&](const swim::CounterInfo& info, auto) {
    if (info.kind == swim::CounterKind::by_type)
      add_labels(family_named(families, std::string(info.metric)), {"type"});
  });
  return families;
}

std::string metrics_markdown(const std::vector<MetricFamily>& families) {
  std::string out = "| Metric | Type | Labels | Meaning |\n|---|---|---|---|\n";
  for (const auto& f : families) {
    std::string labels;
    for (const auto& l : f.labels) labels += (labels.empty() ? "`" : ", `") + l + "`";
    out += "| `" + f.name + "` | " + f.type + " | " + labels + " | " + cli::markdown_cell(f.help) +
           " |\n";
  }
  return out;
}

std::string metrics_text_table(const std::vector<MetricFamily>& families) {
  std::string out;
  for (const auto& f : families) {
    std::string labels;
    for (const auto& l : f.labels) labels += (labels.empty() ? "{" : ",") + l;
    if (!labels.empty()) labels += "}";
    out += f.name + labels + " (" + f.type + "): " + f.help + "\n";
  }
  return out;
}

}  // namespace vigil::native
