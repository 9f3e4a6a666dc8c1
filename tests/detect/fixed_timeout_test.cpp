#include <doctest/doctest.h>

#include <vigil/detect/fixed_timeout.hpp>

using vigil::Millis;
using vigil::detect::FixedTimeout;

TEST_CASE("a fixed timeout suspects after exactly T of silence, whatever it has seen") {
  auto t = FixedTimeout::create(Millis{300}).value();
  CHECK(t.name() == "timeout-300ms");
  CHECK(t.suspicion_delay_ms() == 300.0);
  t.heartbeat(Millis{0});
  t.heartbeat(Millis{5000});
  CHECK(t.suspicion_delay_ms() == 300.0);
  CHECK(FixedTimeout::create(Millis{1000}, "timeout-1s").value().name() == "timeout-1s");
}

TEST_CASE("a non-positive timeout is an error") {
  CHECK_FALSE(FixedTimeout::create(Millis{0}).ok());
  CHECK_FALSE(FixedTimeout::create(Millis{-5}).ok());
}
