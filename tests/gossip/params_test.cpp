#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <vigil/gossip/heartbeat_cluster.hpp>
#include <vigil/gossip/params.hpp>
#include <vigil/gossip/spread.hpp>
#include <vigil/lab/gossip_experiments.hpp>
#include "support/param_spec_checks.hpp"

using namespace vigil;
using namespace vigil::gossip;

TEST_CASE("gossip: every default lies in its range, every slider inside the model's range") {
  for (const auto& p : {spread_param::seed, membership_param::seed})
    vigil::test::check_well_formed(p);
  for (const auto& p : spread_param::all) vigil::test::check_well_formed(p);
  for (const auto& p : heartbeat_cost_param::all) vigil::test::check_well_formed(p);
  // The command line's 30 trials are more than a page can sweep between frames: the page opens
  // lower, inside its slider (web/panels/gossip_panel.hpp).
  for (const auto& p : membership_param::all)
    vigil::test::check_well_formed(p, p.flag != membership_param::trials.flag);
}

TEST_CASE("gossip: the models' default options are the table's defaults") {
  const SpreadOptions s;
  CHECK(s.nodes == spread_param::nodes.def);
  CHECK(s.fanout == spread_param::fanout.def);
  CHECK(s.loss == spread_param::loss.def);
  CHECK(s.dead == spread_param::dead.def);
  CHECK(s.max_rounds == spread_param::max_rounds.def);
  CHECK(s.validate().ok());

  const lab::GossipOptions g;
  CHECK(g.nodes == spread_param::nodes.def);
  CHECK(g.fanout == spread_param::fanout.def);
  CHECK(g.trials == spread_param::trials.def);
  CHECK(g.loss == spread_param::loss.def);
  CHECK(g.dead == spread_param::dead.def);
  CHECK(g.max_rounds == spread_param::max_rounds.def);
  CHECK(g.seed == spread_param::seed.def);
  CHECK(g.validate().ok());

  const lab::GossipTableOptions t;
  CHECK(t.trials == spread_param::trials.def);
  CHECK(t.seed == 44);  // the seed that reproduces the JavaScript table
  CHECK(t.validate().ok());

  const HeartbeatConfig h;
  namespace mp = membership_param;
  CHECK(h.nodes == mp::nodes.def);
  CHECK(h.fanout == mp::fanout.def);
  CHECK(h.t_fail == mp::t_fail.def);
  CHECK(h.t_cleanup == mp::t_cleanup.def);
  CHECK(h.loss == mp::loss.def);
  CHECK(h.validate().ok());

  const lab::MembershipOptions m;
  CHECK(m.nodes == mp::nodes.def);
  CHECK(m.fanout == mp::fanout.def);
  CHECK(m.t_fail == std::vector<int>{3, 10});
  CHECK(m.t_cleanup == mp::t_cleanup.def);
  CHECK(m.trials == mp::trials.def);
  CHECK(m.rounds == mp::rounds.def);
  CHECK(m.loss == mp::loss.def);
  CHECK(m.seed == mp::seed.def);
  CHECK(m.validate().ok());

  const lab::HeartbeatCostOptions c;
  CHECK(c.nodes == heartbeat_cost_param::nodes.def);
  CHECK(c.fanout == heartbeat_cost_param::fanout.def);
  CHECK(c.validate().ok());
}

TEST_CASE("gossip: a value out of range is refused with the table's range, by every model") {
  CHECK(spread_param::loss.range_text() == "[0, 1)");
  CHECK(spread_param::loss.check(1).error().message == "--loss must be in [0, 1), got 1");
  CHECK(spread_param::loss.check(0.999).ok());
  CHECK(spread_param::fanout.check(0).error().message ==
        "--fanout must be a whole number in [1, 1000], got 0");
  CHECK(membership_param::nodes.check(2001).error().message ==
        "--nodes must be a whole number in [2, 2000], got 2001");
  CHECK(spread_param::loss.check(std::nan("")).error().message.find("--loss") == 0);

  SpreadOptions s;
  s.fanout = 1001;
  CHECK(s.validate().error().message == spread_param::fanout.check(1001).error().message);
  s = {};
  s.max_rounds = -1;
  CHECK(s.validate().error().message == spread_param::max_rounds.check(-1).error().message);
  s = {};
  s.nodes = 100;
  s.dead = 100;  // in the dead member's range, yet no live member would be left
  CHECK(spread_param::dead.check(100).ok());
  CHECK(s.validate().error().message.find("--dead must be smaller than --nodes") == 0);

  lab::GossipOptions g;
  g.trials = 10001;
  CHECK(g.validate().error().message == spread_param::trials.check(10001).error().message);
  g = {};
  g.loss = 1;
  CHECK(g.validate().error().message == spread_param::loss.check(1).error().message);

  lab::GossipTableOptions t;
  t.fanouts = {1001};
  CHECK(t.validate().error().message == spread_param::fanout.check(1001).error().message);

  HeartbeatConfig h;
  h.fanout = 101;
  CHECK(h.validate().error().message == membership_param::fanout.check(101).error().message);
  h = {};
  h.t_cleanup = 100001;
  CHECK(h.validate().error().message == membership_param::t_cleanup.check(100001).error().message);

  lab::MembershipOptions m;
  m.rounds = -1;
  CHECK(m.validate().error().message == membership_param::rounds.check(-1).error().message);
  m = {};
  m.t_fail = {3, 0};
  CHECK(m.validate().error().message == membership_param::t_fail.check(0).error().message);
  m = {};
  m.loss = 1;
  CHECK(m.validate().error().message == membership_param::loss.check(1).error().message);

  lab::HeartbeatCostOptions c;
  c.nodes = 1;
  CHECK(c.validate().error().message == heartbeat_cost_param::nodes.check(1).error().message);
}

TEST_CASE("gossip: URL keys, and the two views' shared sliders agree") {
  // One member count "n" for both views of the page, --nodes on the command line.
  CHECK(spread_param::nodes.url_key() == "n");
  CHECK(membership_param::nodes.url_key() == "n");
  CHECK(spread_param::nodes.flag == "nodes");
  // "round" opens the spread view at a round; the watched rounds have their own key.
  CHECK(membership_param::rounds.url_key() == "watched");
  CHECK(membership_param::t_fail.url_key() == "tfail");
  // The page shows loss in percent ("loss=20"); the model and the command line a probability.
  CHECK(spread_param::loss.percent);
  CHECK(membership_param::loss.percent);
  // fanout and loss are one setting on the page, shown on either view's slider.
  CHECK(spread_param::fanout.view_min == membership_param::fanout.view_min);
  CHECK(spread_param::fanout.view_max == membership_param::fanout.view_max);
  CHECK(spread_param::loss.view_max == membership_param::loss.view_max);
  CHECK(membership_param::fanout.contains(spread_param::fanout.view_max));
  // The page's member count, capped for the membership view, stays in the spread view's range.
  CHECK(spread_param::nodes.view_min <= membership_param::nodes.view_min);
  CHECK(membership_param::nodes.view_max <= spread_param::nodes.view_max);
}
