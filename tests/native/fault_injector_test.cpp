#include <doctest/doctest.h>

#include <cmath>

#include "agent/fault_injector.hpp"

using vigil::Millis;
using namespace vigil::native;
using vigil::swim::Address;

TEST_CASE("no faults: everything passes at once") {
  FaultInjector f(vigil::Rng(1));
  const Address b = Address::from_octets(127, 0, 0, 1, 2);
  for (int i = 0; i < 100; ++i) {
    CHECK(*f.outgoing(b) == Millis{0});
    CHECK(*f.incoming() == Millis{0});
  }
}

TEST_CASE("a one-way block drops only what goes to that peer") {
  FaultInjector f(vigil::Rng(1));
  const Address b = Address::from_octets(127, 0, 0, 1, 2),
                c = Address::from_octets(127, 0, 0, 1, 3);
  f.block(b);
  CHECK_FALSE(f.outgoing(b).has_value());
  CHECK(f.outgoing(c).has_value());
  CHECK(f.incoming().has_value());  // b -> us still arrives
  f.unblock(b);
  CHECK(f.outgoing(b).has_value());
}

TEST_CASE("loss and delay apply to the chosen direction at the configured rate") {
  FaultInjector f(vigil::Rng(7));
  REQUIRE(f.configure(FaultSettings{0.3, 40, 5, true, false}).ok());
  const Address b = Address::from_octets(127, 0, 0, 1, 2);
  int dropped = 0;
  double delay = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    auto fate = f.outgoing(b);
    if (!fate)
      ++dropped;
    else
      delay += static_cast<double>(fate->count());
    CHECK(*f.incoming() == Millis{0});  // receive side untouched
  }
  CHECK(std::abs(dropped - 0.3 * n) < 5 * std::sqrt(n * 0.3 * 0.7));
  CHECK(std::abs(delay / (n - dropped) - 40.0) < 0.5);
}

TEST_CASE("invalid fault settings are refused and the old ones kept") {
  FaultInjector f(vigil::Rng(1));
  REQUIRE(f.configure(FaultSettings{0.1, 0, 0, true, false}).ok());
  CHECK_FALSE(f.configure(FaultSettings{1.1, 0, 0, true, false}).ok());
  CHECK_FALSE(f.configure(FaultSettings{0.1, -5, 0, true, false}).ok());
  CHECK(f.settings().loss == 0.1);
}

TEST_CASE("a pause lasts until its end") {
  FaultInjector f(vigil::Rng(1));
  f.pause_until(Millis{500});
  CHECK(f.paused(Millis{499}));
  CHECK_FALSE(f.paused(Millis{500}));
  f.pause_until(Millis{100});  // an earlier end never shortens a pause
  CHECK(f.paused(Millis{499}));
}
