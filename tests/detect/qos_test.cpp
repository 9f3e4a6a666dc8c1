#include <doctest/doctest.h>

#include <vector>

#include <vigil/detect/fixed_timeout.hpp>
#include <vigil/detect/qos.hpp>

using vigil::Millis;
using namespace vigil::detect;

namespace {
std::vector<Millis> every_100ms(long from, long to) {
  std::vector<Millis> out;
  for (long t = from; t <= to; t += 100) out.push_back(Millis{t});
  return out;
}
FixedTimeout timeout(long ms) {
  return FixedTimeout::create(Millis{ms}).value();
}
}  // namespace

TEST_CASE("regular heartbeats and no crash: no mistakes, perfect accuracy") {
  auto d = timeout(300);
  const auto arrivals = every_100ms(0, 10000);
  const auto q = evaluate(d, arrivals, std::nullopt, Millis{10000});
  CHECK(q.mistake_count() == 0);
  CHECK(q.query_accuracy() == 1.0);
  CHECK(q.observed_ms == 10000.0);
  CHECK_FALSE(q.detection_ms.has_value());
}

TEST_CASE("a 600 ms hole is one mistake lasting the part beyond the timeout") {
  auto d = timeout(300);
  auto arrivals = every_100ms(0, 1000);
  for (Millis t : every_100ms(1600, 3000)) arrivals.push_back(t);
  const auto q = evaluate(d, arrivals, std::nullopt, Millis{3000});
  REQUIRE(q.mistake_count() == 1);
  CHECK(q.mistakes[0].start_ms == 1300.0);
  CHECK(q.mistakes[0].end_ms == 1600.0);
  CHECK(q.mistake_time_ms() == 300.0);
  CHECK(q.mean_mistake_duration_ms() == 300.0);
  CHECK(q.mistake_rate_per_min() == doctest::Approx(20.0));  // 1 in 3 s
  CHECK(q.query_accuracy() == doctest::Approx(0.9));
}

TEST_CASE("detection time runs from the crash to the permanent suspicion") {
  auto d = timeout(1000);
  const auto arrivals = every_100ms(0, 5000);  // the last heartbeat arrives at 5000
  const auto q = evaluate(d, arrivals, Millis{5040}, Millis{20000});
  REQUIRE(q.detection_ms.has_value());
  CHECK(*q.detection_ms == doctest::Approx(5000 + 1000 - 5040));
  CHECK(q.mistake_count() == 0);
}

TEST_CASE("a crash not detected before the end of observation has no detection time") {
  auto d = timeout(3000);
  const auto q = evaluate(d, every_100ms(0, 5000), Millis{5001}, Millis{7000});
  CHECK_FALSE(q.detection_ms.has_value());
}

TEST_CASE("heartbeats still in flight after the crash are not mistakes") {
  auto d = timeout(300);
  // Crash at 1001; one heartbeat sent before it arrives late, after the detector suspected.
  auto arrivals = every_100ms(0, 1000);
  arrivals.push_back(Millis{1500});
  const auto q = evaluate(d, arrivals, Millis{1001}, Millis{5000});
  CHECK(q.mistake_count() == 0);
  REQUIRE(q.detection_ms.has_value());
  CHECK(*q.detection_ms == doctest::Approx(1500 + 300 - 1001));
}

TEST_CASE("a suspicion that began before the crash: detection 0, the mistake ends at the crash") {
  auto d = timeout(300);
  const auto q = evaluate(d, every_100ms(0, 1000), Millis{1500}, Millis{5000});
  REQUIRE(q.mistake_count() == 1);
  CHECK(q.mistakes[0].start_ms == 1300.0);
  CHECK(q.mistakes[0].end_ms == 1500.0);
  CHECK(*q.detection_ms == 0.0);
}

TEST_CASE("no arrivals: nothing observed") {
  auto d = timeout(300);
  const auto q = evaluate(d, {}, Millis{100}, Millis{1000});
  CHECK(q.observed_ms == 0.0);
  CHECK(q.mistake_count() == 0);
}
