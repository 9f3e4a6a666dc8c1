#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <vigil/lab/swim_experiments.hpp>
#include <vigil/lab/swim_params.hpp>
#include "support/param_spec_checks.hpp"

using namespace vigil;
using namespace vigil::lab;

namespace {

std::vector<ParamSpec> every_spec() {
  std::vector<ParamSpec> all = {swim_param::seed, swim_probe_param::seed};
  for (const auto& p : swim_param::all) all.push_back(p);
  for (const auto& p : swim_probe_param::all) all.push_back(p);
  return all;
}

}  // namespace

TEST_CASE("swim: every default lies in its range and in its slider's range") {
  for (const auto& p : every_spec()) vigil::test::check_well_formed(p);
}

TEST_CASE("swim: the models' default options are the table's defaults") {
  const SwimRunOptions r;
  CHECK(r.nodes == swim_param::nodes.def);
  CHECK(r.kill == swim_param::kill.def);
  CHECK(r.periods == swim_param::periods.def);
  CHECK(r.loss == swim_param::loss.def);
  CHECK(r.slow == swim_param::slow.def);
  CHECK(r.slow_periods == swim_param::slow_periods.def);
  CHECK(r.seed == swim_param::seed.def);
  CHECK(r.validate().ok());

  const SwimProbeOptions p;
  CHECK(p.loss == swim_probe_param::loss.def);
  CHECK(p.indirect == swim_probe_param::indirect.def);
  CHECK(p.probes == swim_probe_param::probes.def);
  CHECK(p.nodes == swim_probe_param::nodes.def);
  CHECK(p.seed == swim_probe_param::seed.def);
  CHECK(p.validate().ok());
}

TEST_CASE("swim: a value out of range is refused with the table's range, by every model") {
  CHECK(swim_param::loss.check(1).error().message == "--loss must be in [0, 1), got 1");
  CHECK(swim_param::nodes.check(5001).error().message ==
        "--nodes must be a whole number in [2, 5000], got 5001");
  CHECK(swim_param::slow_periods.check(101).error().message ==
        "--slow-periods must be in [0, 100] periods, got 101");
  CHECK(swim_probe_param::indirect.range_text() == "[0, 16]");

  SwimRunOptions r;
  r.periods = 0;
  CHECK(r.validate().error().message == swim_param::periods.check(0).error().message);
  r = {};
  r.loss = 1;
  CHECK(r.validate().error().message == swim_param::loss.check(1).error().message);
  r = {};
  r.slow_periods = -1;
  CHECK(r.validate().error().message == swim_param::slow_periods.check(-1).error().message);
  r = {};
  r.nodes = 10;
  r.kill = 10;  // in the spec's range, but no one would be left to notice
  CHECK(swim_param::kill.check(10).ok());
  CHECK(r.validate().error().message == "--kill must be smaller than --nodes");
  r = {};
  r.nodes = 10;
  r.kill = 5;
  r.slow = 6;
  CHECK(r.validate().error().message == "--slow plus --kill cannot exceed --nodes");

  SwimProbeOptions p;
  p.loss = 1.5;
  CHECK(p.validate().error().message == swim_probe_param::loss.check(1.5).error().message);
  p = {};
  p.indirect = 17;
  CHECK(p.validate().error().message == swim_probe_param::indirect.check(17).error().message);
  p = {};
  p.probes = 0;
  CHECK(p.validate().error().message == swim_probe_param::probes.check(0).error().message);
  p = {};
  p.nodes = 1001;
  CHECK(p.validate().error().message == swim_probe_param::nodes.check(1001).error().message);
  p = {};
  p.nodes = 4;  // in range, yet too few for the prober, its target and three helpers
  CHECK(p.validate().error().message == "the cluster needs at least indirect + 2 members");
}

TEST_CASE("swim: URL keys and the page's percent") {
  CHECK(swim_param::nodes.url_key() == "n");
  CHECK(swim_param::nodes.flag == "nodes");
  CHECK(swim_param::loss.url_key() == "loss");
  CHECK(swim_param::loss.percent);
  CHECK(swim_param::seed.url_key() == "seed");
}
