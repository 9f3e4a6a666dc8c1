#include <doctest/doctest.h>

#include <map>
#include <string>

#include <vigil/lab/detectors_experiment.hpp>

using namespace vigil::lab;

namespace {
// Rows keyed "scenario/detector".
std::map<std::string, DetectorsRow> run(std::uint32_t seed) {
  DetectorsOptions o;
  o.seed = seed;
  std::map<std::string, DetectorsRow> out;
  for (auto& row : run_detectors(o).value()) out[row.scenario + "/" + row.detector] = row;
  return out;
}
}  // namespace

TEST_CASE("the detectors table keeps its shape for several fixed seeds") {
  for (std::uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    CAPTURE(seed);
    auto r = run(seed);
    REQUIRE(r.size() == 20);

    // Stable network: nobody false-alarms; phi > 8 beats the 300 ms timeout; timeouts fire at T
    // plus the ~1 ms delay of the last heartbeat, minus the 1 ms between it and the crash.
    for (const char* d : {"timeout-300ms", "timeout-1s", "timeout-3s", "phi-8", "phi-12"})
      CHECK(r[std::string("stable/") + d].false_alarms_per_min == 0.0);
    CHECK(*r["stable/phi-8"].detection_ms < *r["stable/timeout-300ms"].detection_ms);
    CHECK(*r["stable/timeout-1s"].detection_ms == doctest::Approx(1000).epsilon(0.003));

    // Jitter and loss: the 300 ms timeout cries wolf several times a minute; 1 s, 3 s and phi > 12
    // never do, and phi > 12 waits longer than on the stable network.
    CHECK(r["jitter/timeout-300ms"].false_alarms_per_min >= 3.0);
    CHECK(r["jitter/timeout-1s"].false_alarms_per_min == 0.0);
    CHECK(r["jitter/timeout-3s"].false_alarms_per_min == 0.0);
    CHECK(r["jitter/phi-12"].false_alarms_per_min == 0.0);
    CHECK(*r["jitter/phi-12"].detection_ms > *r["stable/phi-12"].detection_ms + 300);

    // Sender pauses on the stable network: phi > 8 fires on the first pause, ~5.6 sigma (156 ms)
    // into it, then learns the pauses and detects the real crash later than without them.
    const auto& pause = r["pause/phi-8"];
    REQUIRE(pause.alarm_silences_ms.size() == 9);  // every pause of every run
    CHECK(pause.alarm_silences_ms[0] == doctest::Approx(156).epsilon(0.02));
    CHECK(pause.alarm_silences_ms[1] > pause.alarm_silences_ms[0] + 150);
    CHECK(*pause.detection_ms > *r["stable/phi-8"].detection_ms + 200);
  }
}

TEST_CASE("the same seed gives the same table, another seed another jitter sample") {
  DetectorsOptions o;
  o.scenarios = {"jitter"};
  const auto a = run_detectors(o).value();
  const auto b = run_detectors(o).value();
  o.seed = 99;
  const auto c = run_detectors(o).value();
  REQUIRE(a.size() == 5);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].false_suspicion_ms == b[i].false_suspicion_ms);
    CHECK(a[i].detection_ms == b[i].detection_ms);
  }
  CHECK(a[0].false_suspicion_ms != c[0].false_suspicion_ms);
}

TEST_CASE("progress is reported once per run") {
  DetectorsOptions o;
  o.scenarios = {"stable", "jitter"};
  o.runs = 2;
  int calls = 0, last_total = 0;
  REQUIRE(run_detectors(o, [&](int done, int total) {
            ++calls;
            CHECK(done == calls);
            last_total = total;
          }).ok());
  CHECK(calls == 4);
  CHECK(last_total == 4);
}

TEST_CASE("bad options are rejected with a message") {
  DetectorsOptions o;
  o.scenarios = {"lossy"};
  auto r = run_detectors(o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("lossy") != std::string::npos);
  o = {};
  o.runs = 0;
  CHECK_FALSE(run_detectors(o).ok());
  o = {};
  o.seconds = 1;
  CHECK_FALSE(run_detectors(o).ok());
}
