#include <doctest/doctest.h>

#include "agent/peer_detectors.hpp"

using vigil::Millis;
using vigil::native::PeerDetectors;

namespace {

vigil::detect::PhiAccrualConfig per_period_config() {
  vigil::detect::PhiAccrualConfig c;
  c.window = 100;
  c.first_heartbeat_estimate_ms = 1000;  // one probe period
  c.min_stddev_ms = 250;
  c.min_gaps = 0;  // these checks are about the bootstrap, which the warm-up would hide
  return c;
}

}  // namespace

TEST_CASE("a new peer's detector expects acks one round-robin cycle apart, not one period") {
  // Five peers probed round-robin every second: an ack from each every ~5 s is healthy.
  PeerDetectors cycle(per_period_config());
  cycle.ack("b", Millis{0}, [] { return Millis{5000}; });
  const double phi_cycle = cycle.phi("b", Millis{5000}).value();
  CHECK(phi_cycle < 1.0);

  // Seeded with the bare probe period, the same healthy silence looks like a certain failure.
  PeerDetectors period(per_period_config());
  period.ack("b", Millis{0},
             [] { return Millis{0}; });  // no expectation: the configured estimate stands
  const double phi_period = period.phi("b", Millis{5000}).value();
  CHECK(phi_period > 8.0);

  // The expectation only seeds a new detector (two bootstrap samples); later acks are what it
  // learns from: after twenty 1 s gaps the mean is (2·5000 + 20·1000) / 22 ms, not 60 s.
  for (int i = 1; i <= 20; ++i) cycle.ack("b", Millis{i * 1000}, [] { return Millis{60000}; });
  CHECK(cycle.find("b")->mean_ms() == doctest::Approx((2 * 5000.0 + 20 * 1000.0) / 22));
}

TEST_CASE("a new peer's detector does not accuse during its warm-up") {
  vigil::detect::PhiAccrualConfig c = per_period_config();
  c.min_gaps = 10;
  PeerDetectors peers(c);
  // Nine acks a second apart, then a minute of silence: still no accusation.
  for (int i = 0; i < 10; ++i) peers.ack("b", Millis{i * 1000}, [] { return Millis{0}; });
  CHECK(peers.find("b")->warming_up());
  CHECK(peers.phi("b", Millis{69'000}).value() == 0.0);
  peers.ack("b", Millis{10'000}, [] { return Millis{0}; });  // the tenth gap
  CHECK_FALSE(peers.find("b")->warming_up());
  CHECK(peers.phi("b", Millis{70'000}).value() > 8.0);
}
