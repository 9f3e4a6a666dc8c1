#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include <vigil/lab/retry_experiments.hpp>

using namespace vigil;
using namespace vigil::lab;

namespace {

nlohmann::json json_of(const Report& r) {
  return nlohmann::json::parse(render(r, Format::json));
}

// The highest load (to 0.01 req/s) at which `has` holds, searching [lo, hi] with `has(lo)` true
// and `has(hi)` false.
template <typename P>
double fold(double lo, double hi, P has) {
  while (hi - lo > 0.01) {
    const double mid = 0.5 * (lo + hi);
    (has(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

TEST_CASE("retry chain: the report's facts and the reference table") {
  const retry::Chain c{5, 3, 0.7};
  const auto j = json_of(chain_report(c, retry::amplify(c).value()));
  CHECK(j["calls_per_request"].get<double>() == doctest::Approx(2.19));
  CHECK(j["amplification"].get<double>() == doctest::Approx(23.0026).epsilon(1e-5));
  CHECK(j["worst_case"].get<double>() == 81);
  CHECK(j["success"].get<double>() == doctest::Approx(0.1224).epsilon(1e-3));

  const auto rows = reference_chain_rows();
  REQUIRE(rows.size() == 6);
  const auto t = json_of(chain_table_report(rows));
  REQUIRE(t.is_array());
  CHECK(t[0]["depth"] == 3);
  CHECK(t[5]["success_pct"].get<double>() == 0.0);
  CHECK(t[5]["amplification"].get<double>() == 81.0);
}

TEST_CASE("retry hysteresis: the reference loop, collapse near 950 and recovery near 320") {
  HysteresisOptions o;
  const auto r = run_hysteresis(o).value();
  REQUIRE(r.collapse_load);
  REQUIRE(r.recovery_load);
  CHECK(*r.collapse_load > *r.recovery_load + 200);
  // The sweep agrees with the equilibria: collapse at the first grid load past the fold where the
  // healthy root disappears, recovery at the first one below the fold where the storm does.
  const retry::HysteresisModel& m = o.model;
  const double upper = fold(500, 1300, [&](double l) {
    return retry::equilibria(m, l).front().latency_ms < m.timeout_ms;
  });
  const double lower = fold(
      100, 900, [&](double l) { return retry::equilibria(m, l).back().latency_ms < m.timeout_ms; });
  CHECK(*r.collapse_load == o.lambda_min + o.step * std::ceil((upper - o.lambda_min) / o.step));
  CHECK(*r.recovery_load == o.lambda_min + o.step * std::floor((lower - o.lambda_min) / o.step));
  CHECK(*r.collapse_load == 950);
  CHECK(*r.recovery_load == 325);

  // Goodput tracks the load until the collapse, then drops to a trickle until the recovery.
  double before = 0.0;
  for (const auto& row : r.sweep) {
    CAPTURE(row.lambda0);
    CHECK(row.settled);
    if (row.up && row.lambda0 < *r.collapse_load) before = row.goodput;
    const bool storm = row.up ? row.lambda0 >= *r.collapse_load : row.lambda0 > *r.recovery_load;
    if (storm) CHECK(row.goodput < 50);
  }
  CHECK(before >= 800);
  const auto j = json_of(hysteresis_report(r, o));
  CHECK(j["collapse_load"] == 950.0);
  CHECK(j["sweep"].size() == r.sweep.size());
  CHECK(j["sweep"][0]["direction"] == "up");
  CHECK(j["sweep"].back()["direction"] == "down");
}

TEST_CASE("retry hysteresis without retries: one threshold, up and down") {
  HysteresisOptions o;
  o.model.gamma = 0.0;
  const auto r = run_hysteresis(o).value();
  REQUIRE(r.collapse_load);
  REQUIRE(r.recovery_load);
  CHECK(std::abs(*r.collapse_load - *r.recovery_load) <= o.step);
}

TEST_CASE("retry hysteresis reports progress and rejects bad sweeps") {
  HysteresisOptions o;
  o.lambda_min = 100;
  o.lambda_max = 200;
  o.step = 50;
  int calls = 0, last_done = 0, last_total = 0;
  auto r = run_hysteresis(o, [&](int done, int total) {
    ++calls;
    last_done = done;
    last_total = total;
  });
  REQUIRE(r.ok());
  CHECK(r->sweep.size() == 5);  // 100, 150, 200 up; 150, 100 down
  CHECK(calls == 5);
  CHECK(last_done == last_total);
  CHECK_FALSE(r->collapse_load);
  o.step = 0;
  CHECK(run_hysteresis(o).error().message.find("--step") != std::string::npos);
  o = {};
  o.lambda_max = 50;
  CHECK(run_hysteresis(o).error().message.find("--lambda-max") != std::string::npos);
}

TEST_CASE("retry hysteresis --equilibria: roots and their stability") {
  const retry::HysteresisModel m;
  const auto roots = run_equilibria(m, 600).value();
  const auto j = json_of(equilibria_report(roots, m, 600));
  REQUIRE(j["equilibria"].size() == 3);
  CHECK(j["equilibria"][0]["stability"] == "stable");
  CHECK(j["equilibria"][1]["stability"] == "unstable");
  CHECK(j["equilibria"][2]["kind"] == "queue limit");
  CHECK(j["count"] == 3.0);
  CHECK_FALSE(run_equilibria(m, -5).ok());
}

TEST_CASE("retry fleet report: a row per second and the summary facts") {
  retry::FleetOptions o;
  o.backoff.strategy = retry::BackoffStrategy::exponential;
  int calls = 0;
  const auto r = run_fleet(o, [&](int, int) { ++calls; }).value();
  CHECK(calls == 35);
  const auto j = json_of(fleet_report(r, o));
  REQUIRE(j["per_second"].size() == 35);
  CHECK(j["peak_rps"] == 40000.0);
  CHECK(j["peak_second"] == 1.0);
  CHECK(j["per_second"][1]["offered"] == 4000);
  CHECK(j["total_calls"].get<double>() == static_cast<double>(r.total_calls));
  CHECK(j["unfinished"] == 3950.0);
}

TEST_CASE("retry server report: summary facts and a boolean verdict") {
  retry::ServerOptions o;
  o.seconds = 40;
  o.mitigations = retry::parse_mitigations("all").value();
  const auto r = run_server(o).value();
  const auto j = json_of(server_report(r, o));
  REQUIRE(j["recovered"].is_boolean());
  CHECK(j["recovered"] == true);
  CHECK(j["series"].size() == 40);
  CHECK(j["goodput_after"].get<double>() >= 0.9 * j["goodput_before"].get<double>());
  for (const char* key : {"offered", "throughput", "goodput", "queue", "p50_ms", "p99_ms"})
    CHECK(j["series"][5].contains(key));
  const std::string text = render(server_report(r, o), Format::table);
  CHECK(text.find("recovered: true") != std::string::npos);
  const std::string csv = render(server_report(r, o), Format::csv);
  CHECK(csv.find("recovered,true") != std::string::npos);
}
