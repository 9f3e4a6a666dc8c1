// The tables the reference pages are generated from (scripts/gen_docs.mjs): the agent's metric
// families, the option tables as Markdown and the lab's parameter tables.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include <vigil/gossip/params.hpp>
#include <vigil/retry/params.hpp>
#include <vigil/swim/counters.hpp>
#include "agent/agent_view.hpp"
#include "agent/metric_catalog.hpp"
#include "cli/args.hpp"
#include "commands/lab_cli.hpp"
#include "lab/param_options.hpp"
#include "lab/param_table.hpp"

namespace {

using vigil::native::MetricFamily;

const MetricFamily* find_family(const std::vector<MetricFamily>& families, const std::string& n) {
  auto it = std::find_if(families.begin(), families.end(),
                         [&](const MetricFamily& f) { return f.name == n; });
  return it == families.end() ? nullptr : &*it;
}

std::size_t table_rows(const std::string& markdown) {
  std::size_t rows = 0;
  std::istringstream lines(markdown);
  for (std::string line; std::getline(lines, line);) rows += line.starts_with("| `");
  return rows;
}

}  // namespace

TEST_CASE("metric families: name, type, help and the label names their samples carry") {
  const auto families = vigil::native::metric_families(
      "# HELP a_total Things.\n# TYPE a_total counter\na_total 3\n"
      "# HELP b Now, by state.\n# TYPE b gauge\nb{state=\"alive\",zone=\"x\"} 1\n"
      "b{state=\"dead\",zone=\"y\"} 0\n");
  REQUIRE(families.size() == 2);
  CHECK(families[0].name == "a_total");
  CHECK(families[0].type == "counter");
  CHECK(families[0].help == "Things.");
  CHECK(families[0].labels.empty());
  CHECK(families[1].help == "Now, by state.");
  CHECK(families[1].labels == std::vector<std::string>{"state", "zone"});
}

TEST_CASE("the metrics reference lists every family an agent's /metrics declares, once") {
  const auto node = vigil::swim::Node::create(vigil::swim::Config::lan(), "a",
                                              vigil::swim::Address::from_octets(127, 0, 0, 1, 7946),
                                              vigil::Rng(3));
  REQUIRE(node);
  const vigil::native::PeerDetectors detectors{vigil::detect::PhiAccrualConfig{}};
  const vigil::native::FaultInjector faults{vigil::Rng(4)};
  const std::string profile = "lan";
  const vigil::native::AgentViewContext context{*node, detectors, faults, profile, vigil::Millis{0},
                                                false, {}};
  std::set<std::string> declared;
  std::istringstream lines(vigil::native::metrics_text(context));
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("# TYPE ")) declared.insert(line.substr(7, line.find(' ', 7) - 7));

  const auto families = vigil::native::agent_metric_families();
  std::set<std::string> listed;
  for (const auto& f : families) {
    CHECK_MESSAGE(listed.insert(f.name).second, f.name);
    CHECK_MESSAGE(!f.help.empty(), f.name);
    CHECK_MESSAGE((f.type == "counter" || f.type == "gauge"), f.name);
  }
  CHECK(listed == declared);
  vigil::swim::for_each_counter_member([&](const vigil::swim::CounterInfo& info, auto) {
    const MetricFamily* f = find_family(families, std::string(info.metric));
    REQUIRE_MESSAGE(f, info.metric);
    CHECK(f->help == info.help);
    if (info.kind == vigil::swim::CounterKind::by_type)
      CHECK(f->labels == std::vector<std::string>{"type"});
  });
  CHECK(table_rows(vigil::native::metrics_markdown(families)) == families.size());
}

TEST_CASE("an option table in Markdown: one row per option, pipes escaped") {
  const std::vector<vigil::cli::Args::Spec> specs = {{"mode", true, "push|pull", "push"},
                                                     {"quiet", false, "say less", ""}};
  const std::string md = vigil::cli::Args::markdown(specs);
  CHECK(table_rows(md) == specs.size());
  CHECK(md.find("| `--mode VALUE` | push | push\\|pull |") != std::string::npos);
  CHECK(md.find("| `--quiet` |  | say less |") != std::string::npos);
}

TEST_CASE("lab parameter tables: one row per ParamSpec of the experiment, none for other options") {
  namespace p = vigil::retry::fleet_param;
  const auto specs = vigil::native::lab_option_specs({"retry", "fleet"});
  REQUIRE(specs);
  const auto params = vigil::native::param_options_of(*specs);
  REQUIRE(params.size() == p::all.size());
  for (std::size_t i = 0; i < p::all.size(); ++i) CHECK(params[i].param->flag == p::all[i].flag);
  const std::string md =
      vigil::native::render_params({{"retry fleet", params}}, vigil::native::ParamFormat::markdown);
  CHECK(table_rows(md) == p::all.size());
  CHECK(md.find("| `--clients` | 4000 | [1, 1000000] | clients that failed at t = 0 |") !=
        std::string::npos);
  CHECK(md.find("--strategy") == std::string::npos);  // a choice, not a model parameter

  // Two tables are headed by their commands.
  const auto gossip = vigil::native::param_options_of(*vigil::native::lab_option_specs({"gossip"}));
  CHECK(gossip.size() == vigil::gossip::spread_param::all.size());
  const std::string both = vigil::native::render_params(
      {{"retry fleet", params}, {"gossip", gossip}}, vigil::native::ParamFormat::markdown);
  CHECK(both.find("#### `vigil lab gossip`") != std::string::npos);
  CHECK(table_rows(both) == p::all.size() + gossip.size());
  CHECK_FALSE(vigil::native::lab_option_specs({"retry"}));
  CHECK_FALSE(vigil::native::lab_option_specs({"nosuch"}));
}
