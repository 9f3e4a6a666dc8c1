#include <doctest/doctest.h>

#include <vigil/detect/suspicion_tracker.hpp>

using vigil::Millis;
using vigil::detect::SuspicionTracker;

TEST_CASE("false alarms and their duration count only while the sender is up") {
  SuspicionTracker t;
  t.observe(Millis{0}, false, std::nullopt);
  t.observe(Millis{100}, true, std::nullopt);  // a false alarm starts
  t.observe(Millis{250}, true, std::nullopt);
  t.observe(Millis{300}, false, std::nullopt);  // 200 ms wrongly suspected
  t.observe(Millis{400}, true, std::nullopt);   // another
  t.observe(Millis{450}, false, std::nullopt);
  CHECK(t.false_alarms() == 2);
  CHECK(t.false_suspicion_ms() == 250.0);
  CHECK_FALSE(t.detection_ms().has_value());
}

TEST_CASE("detection runs from the crash to the suspicion that stays") {
  SuspicionTracker t;
  t.observe(Millis{0}, false, std::nullopt);
  t.observe(Millis{1000}, false, Millis{900});
  t.observe(Millis{1200}, true, Millis{900});
  CHECK(*t.detection_ms() == 300.0);
  CHECK(t.false_alarms() == 0);
  // A heartbeat still in flight lifts the suspicion; the next one counts instead.
  t.observe(Millis{1300}, false, Millis{900});
  CHECK_FALSE(t.detection_ms().has_value());
  t.observe(Millis{1500}, true, Millis{900});
  CHECK(*t.detection_ms() == 600.0);
}

TEST_CASE("a suspicion already running at the crash detects it at once and stops being wrong") {
  SuspicionTracker t;
  t.observe(Millis{0}, true, std::nullopt);
  t.observe(Millis{500}, true, Millis{300});
  CHECK(t.false_alarms() == 1);
  CHECK(t.false_suspicion_ms() == 300.0);
  CHECK(*t.detection_ms() == 0.0);
  t.reset();
  CHECK(t.false_alarms() == 0);
}
