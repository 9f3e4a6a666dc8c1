#include <doctest/doctest.h>

#include <vigil/swim/awareness.hpp>

using vigil::Millis;
using vigil::swim::Awareness;

TEST_CASE("the local health score stays in 0..max-1 and scales timeouts by score + 1") {
  Awareness a(8);
  CHECK(a.score() == 0);
  CHECK(a.scale(Millis{1000}) == Millis{1000});
  a.apply(3);
  CHECK(a.scale(Millis{1000}) == Millis{4000});
  a.apply(100);
  CHECK(a.score() == 7);
  CHECK(a.scale(Millis{1000}) == Millis{8000});
  a.apply(-2);
  CHECK(a.score() == 5);
  a.apply(-100);
  CHECK(a.score() == 0);
}
