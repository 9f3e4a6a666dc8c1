#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vigil::native {

// One metric family of the agent's /metrics, as its HELP and TYPE lines declare it.
struct MetricFamily {
  std::string name;
  std::string type;  // counter, gauge
  std::string help;
  std::vector<std::string> labels;  // label names its samples carry, e.g. "state", "type"
};

// The families of a Prometheus text exposition, in the order they appear.
std::vector<MetricFamily> metric_families(std::string_view exposition);

// Every family an agent's /metrics serves, read from the very code that writes /metrics (a fresh
// agent's view), so the reference cannot drift from what a scrape returns.
std::vector<MetricFamily> agent_metric_families();

// As a Markdown table (metric, type, labels, meaning) or aligned text.
std::string metrics_markdown(const std::vector<MetricFamily>& families);
std::string metrics_text_table(const std::vector<MetricFamily>& families);

}  // namespace vigil::native
