#include <doctest/doctest.h>

#include <string>

#include <vigil/gossip/params.hpp>
#include <vigil/lab/swim_params.hpp>
#include "panels/param_url.hpp"
#include "ui/url_params.hpp"

using vigil::web::save_param;
using vigil::web::url_param;
using vigil::web::UrlParams;

TEST_CASE("gossip page: n, loss in percent and the watched rounds through their specs") {
  namespace spread = vigil::gossip::spread_param;
  namespace membership = vigil::gossip::membership_param;
  const auto q = UrlParams::parse("n=2000&fanout=2&loss=20&dead=20&trials=2&watched=30&tfail=5");
  CHECK(url_param(q, spread::nodes, 1000) == 2000);
  CHECK(url_param(q, spread::fanout, 1) == 2);
  CHECK(url_param(q, spread::loss, 0.0) == doctest::Approx(0.2));
  CHECK(url_param(q, spread::dead, 0) == 20);
  CHECK(url_param(q, membership::trials, 3) == 2);
  CHECK(url_param(q, membership::rounds, 20) == 30);
  CHECK(url_param(q, membership::t_fail, 8) == 5);
  // The command line's names are not the page's: --nodes is n there.
  CHECK(url_param(UrlParams::parse("nodes=2000"), spread::nodes, 1000) == 1000);
  // Beyond a slider the page keeps its own opening value: 95 % loss, 11 fanout, 13 T_fail.
  CHECK(url_param(UrlParams::parse("loss=95"), spread::loss, 0.0) == 0.0);
  CHECK(url_param(UrlParams::parse("fanout=11"), spread::fanout, 1) == 1);
  CHECK(url_param(UrlParams::parse("tfail=13"), membership::t_fail, 8) == 8);
  CHECK(url_param(UrlParams::parse("trials=30"), membership::trials, 3) == 3);

  UrlParams p;
  save_param(p, spread::nodes, 2000);
  save_param(p, spread::loss, 0.2);
  save_param(p, membership::rounds, 30);
  CHECK(p.query() == "loss=20&n=2000&watched=30");
}

TEST_CASE("SWIM page: n and loss in percent through their specs") {
  namespace swim = vigil::lab::swim_param;
  const auto q = UrlParams::parse("n=1000&loss=1&seed=7");
  CHECK(url_param(q, swim::nodes, 8) == 1000);
  CHECK(url_param(q, swim::loss, 0.0) == doctest::Approx(0.01));
  CHECK(url_param(q, swim::seed) == 7);
  // The model takes 5,000 members; the page runs at most 1,000.
  CHECK(url_param(UrlParams::parse("n=5000"), swim::nodes, 8) == 8);
  CHECK(url_param(UrlParams::parse("loss=61"), swim::loss, 0.0) == 0.0);
  UrlParams p;
  save_param(p, swim::loss, 0.05);
  save_param(p, swim::nodes, 8);
  CHECK(p.query() == "loss=5&n=8");
}

TEST_CASE("a percentage read from the URL is written back as it was given") {
  namespace spread = vigil::gossip::spread_param;
  for (int pct = 0; pct <= 90; ++pct) {
    CAPTURE(pct);
    const double loss = url_param(UrlParams::parse("loss=" + std::to_string(pct)), spread::loss);
    UrlParams p;
    save_param(p, spread::loss, loss);
    CHECK(p.query() == "loss=" + std::to_string(pct));
  }
}
