#include <doctest/doctest.h>

#include <string>

#include "panels/param_url.hpp"
#include "ui/url_params.hpp"

#include <vigil/detect/params.hpp>
#include <vigil/fencing/params.hpp>
#include <vigil/lab/trace_tune.hpp>
#include <vigil/sim/heartbeat_params.hpp>

using vigil::web::save_param;
using vigil::web::url_param;
using vigil::web::UrlParams;

TEST_CASE("fencing page: its parameters read back under their URL keys") {
  namespace param = vigil::fencing::stale_leader_param;
  // The old leader's writes travel as "writes", not as the flag's "old-writes".
  CHECK(url_param(UrlParams::parse("writes=5"), param::old_writes, 2) == 5);
  CHECK(url_param(UrlParams::parse("old-writes=5"), param::old_writes, 2) == 2);
  CHECK(url_param(UrlParams::parse("lease=3000&pause=5000"), param::lease, 1000) == 3000);
  CHECK(url_param(UrlParams::parse("lease=3000&pause=5000"), param::pause, 2000) == 5000);
  // Where the slider cannot go, the page keeps what it had.
  CHECK(url_param(UrlParams::parse("lease=50"), param::lease, 1000) == 1000);
  CHECK(url_param(UrlParams::parse("lease=6000"), param::lease, 1000) == 1000);
  CHECK(url_param(UrlParams::parse("token=not-a-number"), param::token, 41) == 41);
  UrlParams p;
  save_param(p, param::old_writes, 3);
  save_param(p, param::token, 41);
  CHECK(p.query() == "token=41&writes=3");
}

TEST_CASE("phi page: the thresholds and the tuning budget travel; confidence in percent") {
  namespace phi = vigil::detect::phi_param;
  namespace tune = vigil::lab::tune_param;
  const auto q = UrlParams::parse("threshold_a=5.5&threshold_b=14&budget=2&confidence=99");
  CHECK(url_param(q, phi::threshold_a) == 5.5);
  CHECK(url_param(q, phi::threshold_b) == 14);
  CHECK(url_param(q, tune::budget) == 2);
  CHECK(url_param(q, tune::confidence) == doctest::Approx(0.99));
  CHECK(url_param(UrlParams::parse(""), tune::budget) == 10);
  CHECK(url_param(UrlParams::parse("threshold_a=236.9"), phi::threshold_a) == 236.9);
  CHECK(url_param(UrlParams::parse("threshold_a=0.1"), phi::threshold_a) == 8);  // below any use
  UrlParams p;
  save_param(p, tune::confidence, 0.95);
  save_param(p, phi::threshold_a, 8);
  CHECK(p.query() == "confidence=95&threshold_a=8");
}

TEST_CASE("phi page: its parameters read back; the loss travels as a percentage") {
  namespace phi = vigil::detect::phi_param;
  namespace stream = vigil::sim::heartbeat_param;
  const auto q = UrlParams::parse(
      "mean=800&std=120&silence=1500&pause=30&interval=200&delay=40&jitter=25&loss=15&seed=7");
  CHECK(url_param(q, phi::mean) == 800);
  CHECK(url_param(q, phi::std_dev) == 120);
  CHECK(url_param(q, phi::silence) == 1500);
  CHECK(url_param(q, phi::pause) == 30);
  CHECK(url_param(q, stream::interval) == 200);
  CHECK(url_param(q, stream::delay) == 40);
  CHECK(url_param(q, stream::jitter) == 25);
  CHECK(url_param(q, stream::loss) == doctest::Approx(0.15));
  CHECK(url_param(q, stream::seed) == 7);
  // Absent, or beyond the slider (mean up to 3000 ms, loss up to 50 %): the default.
  const auto far = UrlParams::parse("mean=5000&loss=60&std=0");
  CHECK(url_param(far, phi::mean) == phi::mean.def);
  CHECK(url_param(far, stream::loss) == doctest::Approx(stream::loss.def));
  CHECK(url_param(far, phi::std_dev) == phi::std_dev.def);
  CHECK(url_param(UrlParams::parse(""), stream::interval) == stream::interval.def);
  UrlParams p;
  save_param(p, stream::loss, 0.05);
  save_param(p, phi::std_dev, 50);
  CHECK(p.query() == "loss=5&std=50");
}
