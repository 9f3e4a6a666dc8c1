#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <vigil/base/rng.hpp>
#include <vigil/detect/params.hpp>
#include <vigil/detect/phi.hpp>
#include <vigil/sim/heartbeat_params.hpp>
#include <vigil/sim/heartbeat_stream.hpp>
#include "support/param_spec_checks.hpp"

using namespace vigil;
namespace phi_param = vigil::detect::phi_param;
namespace stream_param = vigil::sim::heartbeat_param;

namespace {

std::vector<ParamSpec> every_spec() {
  std::vector<ParamSpec> all;
  for (const auto& p : phi_param::all) all.push_back(p);
  for (const auto& p : stream_param::all) all.push_back(p);
  all.push_back(phi_param::threshold_a);
  all.push_back(phi_param::threshold_b);
  return all;
}

}  // namespace

TEST_CASE("phi params: every default lies in its range and in its slider's range") {
  for (const auto& p : every_spec()) vigil::test::check_well_formed(p);
}

TEST_CASE("phi params: the formula refuses through the table's checks") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto refused = [](const Result<double>& r) {
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  CHECK(refused(detect::phi(-1, 1000, 50)) == phi_param::silence.check(-1).error().message);
  CHECK(refused(detect::phi(1200, 0, 50)) == "--mean must be in (0, 86400000] ms, got 0");
  CHECK(refused(detect::phi(1200, 1000, 0)) == phi_param::std_dev.check(0).error().message);
  CHECK(refused(detect::phi(1200, 1000, 50, -10)) == phi_param::pause.check(-10).error().message);
  CHECK(refused(detect::phi(nan, 1000, 50)).find("--silence") == 0);
  CHECK(refused(detect::phi(1200, inf, 50)).find("--mean") == 0);
  // The exponential model reads no spread, so none is checked.
  CHECK(detect::phi(1200, 1000, 0, 0, detect::TailModel::exponential).ok());
  // The range's edges are computed, not refused.
  CHECK(detect::phi(phi_param::silence.max, phi_param::mean.max, phi_param::std_dev.max,
                    phi_param::pause.max)
            .ok());
  CHECK(detect::phi(phi_param::silence.min, 1e-9, 1e-9, phi_param::pause.min).ok());
  // Hayashibara et al.'s example is the page's default view.
  CHECK(detect::phi(phi_param::silence.def, phi_param::mean.def, phi_param::std_dev.def,
                    phi_param::pause.def)
            .value() == doctest::Approx(4.4993).epsilon(1e-4));
}

TEST_CASE("phi params: the heartbeat stream refuses through the table's checks") {
  auto refused = [](const sim::HeartbeatConfig& c) {
    auto s = c.validate();
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  sim::HeartbeatConfig c;
  c.interval = Millis{0};
  CHECK(refused(c) == stream_param::interval.check(0).error().message);
  CHECK(refused(c) == "--interval must be a whole number in [1, 86400000] ms, got 0");
  c = {};
  c.loss = 1.5;
  CHECK(refused(c) == stream_param::loss.check(1.5).error().message);
  c = {};
  c.delay = sim::DelayModel::normal(-1, 0);
  CHECK(refused(c) == stream_param::delay.check(-1).error().message);
  c = {};
  c.delay = sim::DelayModel::normal(10, -1);
  CHECK(refused(c) == stream_param::jitter.check(-1).error().message);

  // The page's defaults make a stream, and so do its sliders' far ends.
  c = {};
  CHECK(static_cast<double>(c.interval.count()) == stream_param::interval.def);
  c.delay = sim::DelayModel::normal(stream_param::delay.def, stream_param::jitter.def);
  c.loss = stream_param::loss.def;
  CHECK(sim::HeartbeatStream::create(c, Rng(1)).ok());
  c.interval = Millis{static_cast<Millis::rep>(stream_param::interval.view_max)};
  c.delay = sim::DelayModel::normal(stream_param::delay.view_max, stream_param::jitter.view_max);
  c.loss = stream_param::loss.max;
  CHECK(sim::HeartbeatStream::create(c, Rng(1)).ok());
}

TEST_CASE("phi params: URL keys and flags") {
  CHECK(phi_param::std_dev.flag == "std");
  CHECK(phi_param::std_dev.url_key() == "std");
  CHECK(phi_param::mean.url_key() == "mean");
  CHECK(stream_param::loss.url_key() == "loss");
  // The page shows the loss as a percentage, the model keeps the fraction.
  CHECK(stream_param::loss.percent);
  CHECK(stream_param::loss.def == 0.05);
}
