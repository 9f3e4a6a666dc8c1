#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <vigil/lab/retry_experiments.hpp>
#include <vigil/retry/chain.hpp>
#include <vigil/retry/fleet.hpp>
#include <vigil/retry/hysteresis.hpp>
#include <vigil/retry/overload_server.hpp>
#include <vigil/retry/params.hpp>
#include "support/param_spec_checks.hpp"

using namespace vigil;
using namespace vigil::retry;

namespace {

std::vector<ParamSpec> every_spec() {
  std::vector<ParamSpec> all = {kSeedParam};
  for (const auto& p : chain_param::all) all.push_back(p);
  for (const auto& p : hysteresis_param::model) all.push_back(p);
  for (const auto& p : hysteresis_param::sweep) all.push_back(p);
  for (const auto& p : fleet_param::all) all.push_back(p);
  for (const auto& p : server_param::all) all.push_back(p);
  return all;
}

}  // namespace

TEST_CASE("every parameter's default lies in its range and in its slider's range") {
  for (const auto& p : every_spec()) vigil::test::check_well_formed(p);
}

TEST_CASE("the models' default options are the table's defaults") {
  const Chain c;
  CHECK(c.depth == chain_param::depth.def);
  CHECK(c.tries == chain_param::tries.def);
  CHECK(c.fail == chain_param::fail.def);

  const vigil::lab::HysteresisOptions h;
  namespace hp = hysteresis_param;
  CHECK(h.model.timeout_ms == hp::timeout.def);
  CHECK(h.model.mu_max == hp::mu_max.def);
  CHECK(h.model.l0_ms == hp::l0.def);
  CHECK(h.model.alpha == hp::alpha.def);
  CHECK(h.model.beta == hp::beta.def);
  CHECK(h.model.gamma == hp::gamma.def);
  CHECK(h.model.kappa == hp::kappa.def);
  CHECK(h.model.eta == hp::eta.def);
  CHECK(h.model.max_latency_ms == hp::max_latency.def);
  CHECK(h.lambda_min == hp::lambda_min.def);
  CHECK(h.lambda_max == hp::lambda_max.def);
  CHECK(h.step == hp::step.def);
  CHECK(h.validate().ok());

  const FleetOptions f;
  CHECK(f.clients == fleet_param::clients.def);
  CHECK(f.seconds == fleet_param::seconds.def);
  CHECK(f.backoff.base_s == fleet_param::base.def);
  CHECK(f.backoff.cap_s == fleet_param::cap.def);
  CHECK(f.capacity_rps == fleet_param::capacity.def);
  CHECK(f.seed == kSeedParam.def);
  CHECK(f.validate().ok());

  const ServerOptions s;
  namespace sp = server_param;
  CHECK(s.arrival_rps == sp::arrival.def);
  CHECK(s.capacity_rps == sp::capacity.def);
  CHECK(s.timeout_ms == sp::timeout.def);
  CHECK(s.tries == sp::tries.def);
  CHECK(s.budget.ratio == sp::budget_ratio.def);
  CHECK(s.trigger_at_s == sp::trigger_at.def);
  CHECK(s.trigger_seconds == sp::trigger_seconds.def);
  CHECK(s.trigger_capacity == sp::trigger_capacity.def);
  CHECK(s.trigger_load == sp::trigger_load.def);
  CHECK(s.seconds == sp::seconds.def);
  CHECK(s.seed == kSeedParam.def);
  CHECK(s.validate().ok());
}

TEST_CASE("a value out of range is refused with the table's range") {
  CHECK(chain_param::depth.check(65).error().message ==
        "--depth must be a whole number in [1, 64], got 65");
  CHECK(chain_param::depth.check(2.5).error().message.find("whole number") != std::string::npos);
  CHECK(hysteresis_param::kappa.check(0).error().message ==
        "--kappa must be in (0, 100] per ms, got 0");
  CHECK(hysteresis_param::kappa.check(std::nan("")).error().message.find("--kappa") == 0);
  CHECK(server_param::trigger_capacity.range_text() == "(0, 10]");
  CHECK(hysteresis_param::mu_max.range_text() == "(0, 10000000] req/s");
  CHECK(fleet_param::base.default_text() == "1");
  CHECK(server_param::budget_ratio.default_text() == "0.1");
  CHECK(number_text(0.05) == "0.05");
  CHECK(number_text(1.0 / 3.0) == "0.3333333333333333");

  // The models refuse through the same checks, whatever the caller.
  FleetOptions f;
  f.clients = 0;
  CHECK(f.validate().error().message == fleet_param::clients.check(0).error().message);
  ServerOptions s;
  s.budget.ratio = 11;
  CHECK(s.validate().error().message == server_param::budget_ratio.check(11).error().message);
  HysteresisModel m;
  m.gamma = -1;
  CHECK(m.validate().error().message == hysteresis_param::gamma.check(-1).error().message);
}

TEST_CASE("a URL key is the flag unless the table names another") {
  CHECK(chain_param::tries.flag == "retries");
  CHECK(chain_param::tries.url_key() == "tries");
  CHECK(chain_param::depth.url_key() == "depth");
  CHECK(hysteresis_param::mu_max.alias == "mu");
}
