#include <doctest/doctest.h>

#include <climits>

#include <vigil/lab/hysteresis_sweep.hpp>
#include <vigil/lab/retry_experiments.hpp>
#include <vigil/retry/settle_run.hpp>

using namespace vigil;

namespace {

retry::Settled run_to_end(const retry::SettleRun& start, int* steps = nullptr,
                          int slice = INT_MAX) {
  retry::SettleRun run = start;
  int n = 0;
  while (!run.done()) {
    run.step(slice);
    ++n;
  }
  if (steps) *steps = n;
  return run.result();
}

void check_same(const retry::Settled& a, const retry::Settled& b) {
  CHECK(a.latency_ms == b.latency_ms);  // bit for bit: the same arithmetic in the same order
  CHECK(a.seconds == b.seconds);
  CHECK(a.converged == b.converged);
}

void check_same_sweep(const lab::HysteresisOptions& o, int slice = INT_MAX) {
  auto sweep = lab::HysteresisSweep::create(o);
  REQUIRE(sweep);
  const auto expected = lab::run_hysteresis(o);
  REQUIRE(expected);
  int steps = 0;
  while (!sweep->done()) {
    sweep->step(slice);
    ++steps;
  }
  const auto& got = sweep->result();
  REQUIRE(got.sweep.size() == expected->sweep.size());
  CHECK(sweep->visited() == sweep->total());
  CHECK(steps >= sweep->total());
  for (std::size_t i = 0; i < got.sweep.size(); ++i) {
    const auto &g = got.sweep[i], &e = expected->sweep[i];
    CHECK(g.up == e.up);
    CHECK(g.lambda0 == e.lambda0);
    CHECK(g.latency_ms == e.latency_ms);
    CHECK(g.goodput == e.goodput);
    CHECK(g.offered == e.offered);
    CHECK(g.carried == e.carried);
    CHECK(g.settled == e.settled);
  }
  CHECK(got.collapse_load == expected->collapse_load);
  CHECK(got.recovery_load == expected->recovery_load);
}

}  // namespace

TEST_CASE("SettleRun: step by step, the same as settle() to the last bit") {
  const retry::HysteresisModel m;
  for (double lambda0 : {100.0, 325.0, 600.0, 950.0, 1350.0})
    for (double start : {m.l0_ms, 45.0, 55.0, m.max_latency_ms}) {
      CAPTURE(lambda0);
      CAPTURE(start);
      const retry::Settled expected = retry::settle(m, lambda0, start);
      check_same(run_to_end(retry::SettleRun(m, lambda0, start)), expected);
      // Sliced finer than a simulated second, or unevenly: still the same bits.
      check_same(run_to_end(retry::SettleRun(m, lambda0, start), nullptr, 7), expected);
      check_same(run_to_end(retry::SettleRun(m, lambda0, start), nullptr, 999), expected);
    }
  // A short time budget that runs out, and a degrading server trapped at the ceiling.
  check_same(run_to_end(retry::SettleRun(m, 950, m.l0_ms, 3)), retry::settle(m, 950, m.l0_ms, 3));
  retry::HysteresisModel degraded = m;
  degraded.alpha = 0.1;
  check_same(run_to_end(retry::SettleRun(degraded, 800, 500)), retry::settle(degraded, 800, 500));
  // A stiff model: many RK4 steps per simulated second, run in slices.
  retry::HysteresisModel stiff = m;
  stiff.eta = 5;
  stiff.mu_max = 3000;
  const retry::SettleRun run(stiff, 2000, stiff.l0_ms, 20);
  CHECK(run.steps_per_second() > 1000);
  check_same(run_to_end(run, nullptr, 1000), retry::settle(stiff, 2000, stiff.l0_ms, 20));
}

TEST_CASE("SettleRun: a simulated second a step, or a slice of one, readable in between") {
  const retry::HysteresisModel m;
  retry::SettleRun run(m, 325, m.max_latency_ms);
  CHECK_FALSE(run.done());
  CHECK(run.latency_ms() == m.max_latency_ms);
  run.step();
  CHECK(run.seconds() == 1.0);
  CHECK(run.latency_ms() < m.max_latency_ms);  // recovering: the storm drains at 325 req/s
  int steps = 0;
  const auto end = run_to_end(run, &steps);
  CHECK(end.converged);
  CHECK(end.seconds == 1.0 + steps);
  CHECK(end.latency_ms < m.timeout_ms);
  // A slice of a second moves latency but not the clock; the second's last slice does.
  retry::SettleRun sliced(m, 325, m.max_latency_ms);
  REQUIRE(sliced.steps_per_second() == 1000);
  sliced.step(400);
  CHECK(sliced.seconds() == 0.0);
  CHECK(sliced.latency_ms() < m.max_latency_ms);
  sliced.step(5000);  // never past the end of the second under way
  CHECK(sliced.seconds() == 1.0);
  retry::SettleRun whole(m, 325, m.max_latency_ms);
  whole.step();
  CHECK(sliced.latency_ms() == whole.latency_ms());
  // Nothing to do once done, and no time budget at all means done at once.
  retry::SettleRun none(m, 325, m.l0_ms, 0.0);
  CHECK(none.done());
  none.step();
  CHECK(none.seconds() == 0.0);
}

TEST_CASE("HysteresisSweep: the finished sweep is run_hysteresis()'s, row for row") {
  lab::HysteresisOptions o;
  check_same_sweep(o);
  check_same_sweep(o, 300);
  o.model.gamma = 1.0;
  o.model.timeout_ms = 80;
  check_same_sweep(o);
  o = {};
  o.model.alpha = 0.1;  // trapped at the ceiling: collapse without recovery
  o.step = 50;
  check_same_sweep(o);
  o = {};
  o.lambda_min = o.lambda_max = 500;  // a single load: one visit
  check_same_sweep(o);
}

TEST_CASE("HysteresisSweep: the reference loop, and progress along the way") {
  auto sweep = lab::HysteresisSweep::create({});
  REQUIRE(sweep);
  CHECK(sweep->loads().size() == 51);
  CHECK(sweep->total() == 101);
  CHECK(sweep->visited() == 0);
  CHECK(sweep->up());
  CHECK(sweep->load() == 100);
  int last = 0;
  while (!sweep->done()) {
    sweep->step();
    CHECK(sweep->visited() >= last);
    last = sweep->visited();
  }
  CHECK(sweep->result().collapse_load == 950.0);
  CHECK(sweep->result().recovery_load == 325.0);
  sweep->step();  // nothing once done
  CHECK(sweep->visited() == 101);
}

TEST_CASE("HysteresisSweep: bad options are refused with the CLI's message") {
  lab::HysteresisOptions o;
  o.model.timeout_ms = 10;  // below the base latency
  auto sweep = lab::HysteresisSweep::create(o);
  REQUIRE_FALSE(sweep);
  CHECK(sweep.error().message.find("--timeout") != std::string::npos);
}
