#include <vigil/lab/gossip_experiments.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

using namespace vigil;
using namespace vigil::lab;

namespace {

std::string one_decimal(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

}  // namespace

TEST_CASE("the push gossip grid, digit for digit, from seed 44") {
  // A JavaScript simulation draws with the same mulberry32 in the same order; every cell matches.
  auto rows = run_gossip_table({}).value();
  REQUIRE(rows.size() == 6);
  const char* rounds[] = {"12.2", "5.4", "17.4", "8.4", "22.2", "10.8"};
  const char* log2n[] = {"6.6", "6.6", "10.0", "10.0", "13.3", "13.3"};
  const char* theory[] = {"11.2", "4.9", "16.9", "7.3", "22.5", "9.7"};
  const char* msgs[] = {"5.5", "5.8", "7.4", "9.6", "8.8", "11.9"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    CHECK(rows[i].n == (i < 2 ? 100u : i < 4 ? 1000u : 10000u));
    CHECK(rows[i].fanout == (i % 2 ? 3 : 1));
    CHECK(one_decimal(rows[i].rounds_mean) == rounds[i]);
    CHECK(one_decimal(rows[i].log2_n) == log2n[i]);
    CHECK(one_decimal(rows[i].theory) == theory[i]);
    CHECK(one_decimal(rows[i].msgs_per_node) == msgs[i]);
  }
  const auto json = nlohmann::json::parse(render(gossip_table_report(rows, {}), Format::json));
  REQUIRE(json.is_array());
  CHECK(json[0]["rounds"] == doctest::Approx(12.2));
  CHECK(json[5]["msgs_per_node"].get<double>() > 11.85);
}

TEST_CASE("gossip: averaged curve, theory alongside, contacts per member") {
  GossipOptions o;
  o.nodes = 2000;
  o.fanout = 2;
  o.mode = gossip::Mode::push_pull;
  o.trials = 20;
  o.seed = 3;
  int calls = 0;
  auto r = run_gossip(o, [&](int done, int total) {
             ++calls;
             CHECK(total == 20);
             CHECK(done == calls);
           }).value();
  CHECK(calls == 20);
  CHECK(r.finished == 20);
  REQUIRE(r.rounds_mean);
  CHECK(r.rounds_min <= *r.rounds_mean);
  CHECK(*r.rounds_mean <= r.rounds_max);
  REQUIRE(r.informed_by_round.size() == static_cast<std::size_t>(r.rounds_max) + 1);
  CHECK(r.informed_by_round.front() == 1.0);
  CHECK(r.informed_by_round.back() == 2000.0);
  for (std::size_t i = 1; i < r.informed_by_round.size(); ++i)
    CHECK(r.informed_by_round[i] >= r.informed_by_round[i - 1]);
  CHECK(r.theory_by_round.size() == r.informed_by_round.size());
  // Push-pull: every member starts f contacts every round, so contacts/member = f x mean rounds.
  CHECK(r.messages_per_node == doctest::Approx(2 * *r.rounds_mean));
  CHECK(std::abs(*r.rounds_mean - r.rounds_theory) < 1.0);
  CHECK_FALSE(r.rounds_pittel);  // push only

  const auto json = nlohmann::json::parse(render(gossip_report(r, o), Format::json));
  REQUIRE(json.is_object());
  CHECK(json["rounds_mean"] == doctest::Approx(*r.rounds_mean));
  CHECK(json["rounds_theory"] == doctest::Approx(r.rounds_theory));
  CHECK(json["messages_per_node"] == doctest::Approx(r.messages_per_node));
  CHECK(json["informed_by_round"].size() == r.informed_by_round.size());
  CHECK(json["informed_by_round"].back() == 2000.0);
}

TEST_CASE("gossip: runs that hit the cap are reported, not averaged") {
  GossipOptions o;
  o.nodes = 500;
  o.loss = 0.9;
  o.max_rounds = 5;
  o.trials = 3;
  auto r = run_gossip(o).value();
  CHECK(r.finished == 0);
  CHECK_FALSE(r.rounds_mean);
  REQUIRE(r.rounds_pittel);
  CHECK(r.rounds_theory > 5);
  const auto report = gossip_report(r, o);
  const auto json = nlohmann::json::parse(render(report, Format::json));
  CHECK(json["rounds_mean"].is_null());
  CHECK(json["finished_trials"] == 0.0);
  CHECK(render(report, Format::table).find("3 trial(s) hit the round cap") != std::string::npos);
  o.trials = 0;
  CHECK(run_gossip(o).error().message == "--trials must be a whole number in [1, 10000], got 0");
}

TEST_CASE("membership: T_fail 3 against 10, at 100 members and fanout 2") {
  MembershipOptions o;
  o.trials = 8;
  auto rows = run_membership(o).value();
  REQUIRE(rows.size() == 2);
  const auto& t3 = rows[0];
  const auto& t10 = rows[1];
  CHECK(t3.t_fail == 3);
  CHECK(t3.t_cleanup == 6);
  CHECK(t3.false_suspicion_node_rounds > 100000);
  // 10 rounds is 2.7 spread times; over 8 trials x 40 rounds x 9,900 pairs a handful at most.
  CHECK(t10.false_suspicion_pct < 1e-3);
  CHECK(t10.false_suspicion_node_rounds < t3.false_suspicion_node_rounds / 1000);
  for (const auto& r : rows) {
    CHECK(r.messages_per_round == 200.0);
    CHECK(r.agreed == 8);
    REQUIRE(r.agree_dead_rounds_mean);
    REQUIRE(r.detect_rounds_mean);
    CHECK(*r.detect_rounds_mean <= *r.agree_dead_rounds_mean);
    CHECK(r.false_by_round.size() == 41);
    CHECK(r.false_by_round[0] == 0.0);
    double sum = 0.0;
    for (double x : r.false_by_round) sum += x;
    CHECK(sum == static_cast<double>(r.false_suspicion_node_rounds));
  }
  // T_fail = 10: nobody can time out before 10 rounds; the last one a spread time later.
  CHECK(*t10.detect_rounds_mean >= 10);
  CHECK(*t10.agree_dead_rounds_mean >= 10);
  CHECK(*t10.agree_dead_rounds_mean <= 10 + 12);
  // The start-up burst: nobody can be suspected before round T_fail; at round T_fail most are.
  CHECK(t3.false_by_round[2] == 0.0);
  CHECK(t3.false_by_round[3] > 0.5 * 9900 * 8);

  const auto json = nlohmann::json::parse(render(membership_report(rows, o), Format::json));
  CHECK(json["membership"].size() == 2);
  CHECK(json["messages_per_round"] == 200.0);
  CHECK(json["false_by_round_tfail_3"].size() == 41);

  o.t_fail = {10};
  const auto single = run_membership(o).value();
  const auto one = nlohmann::json::parse(render(membership_report(single, o), Format::json));
  CHECK(one["false_suspicion_node_rounds"] == static_cast<double>(t10.false_suspicion_node_rounds));
  CHECK(one["agree_dead_rounds_mean"] == doctest::Approx(*t10.agree_dead_rounds_mean));
  CHECK(one["messages_per_round"] == 200.0);
}

TEST_CASE("membership: fanout 3 agrees sooner and costs n x 3 messages a round") {
  MembershipOptions o;
  o.t_fail = {10};
  o.trials = 8;
  o.rounds = 5;
  const auto two = run_membership(o).value().front();
  o.fanout = 3;
  const auto three = run_membership(o).value().front();
  CHECK(three.messages_per_round == 300.0);
  CHECK(*three.agree_dead_rounds_mean < *two.agree_dead_rounds_mean);
  CHECK(*three.detect_rounds_mean < *two.detect_rounds_mean);
}

TEST_CASE("membership options are checked") {
  MembershipOptions o;
  o.t_fail = {};
  CHECK(run_membership(o).error().message == "--tfail needs at least one value");
  o.t_fail = {3, 10};
  o.t_cleanup = 5;
  CHECK(run_membership(o).error().message.find("--tcleanup must be at least --tfail (10)") !=
        std::string::npos);
  o.t_cleanup = 0;
  o.trials = 0;
  CHECK(run_membership(o).error().message == "--trials must be a whole number in [1, 1000], got 0");
}

TEST_CASE("heartbeats: all-to-all n(n-1) against gossip n x fanout") {
  auto rows = run_heartbeat_costs({}).value();
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].messages == 9900);
  CHECK(rows[0].entries == 9900);
  CHECK(rows[1].messages == 200);
  CHECK(rows[1].per_member == 2.0);
  CHECK(rows[1].entries == 20000);  // each message carries all 100 entries
  HeartbeatCostOptions o;
  o.fanout = 3;
  CHECK(run_heartbeat_costs(o).value()[1].messages == 300);
  o.fanout = 100;
  CHECK(run_heartbeat_costs(o).error().message == "--fanout must be between 1 and --nodes - 1");
}
