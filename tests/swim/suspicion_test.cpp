#include <doctest/doctest.h>

#include <vigil/swim/suspicion.hpp>

using vigil::Millis;
using namespace vigil::swim;

TEST_CASE("suspicion min timeout is SuspicionMult * max(1, log10 N) * ProbeInterval") {
  CHECK(suspicion_min_timeout(4, 5, Millis{1000}) == Millis{4000});  // log10 5 < 1
  CHECK(suspicion_min_timeout(4, 10, Millis{1000}) == Millis{4000});
  CHECK(suspicion_min_timeout(4, 100, Millis{1000}) == Millis{8000});
  CHECK(suspicion_min_timeout(4, 1000, Millis{1000}) == Millis{12000});
  CHECK(suspicion_min_timeout(6, 50, Millis{5000}) == Millis{50940});  // 6 * 1.698 * 5 s
}

TEST_CASE("with confirmations expected the timer starts at max and shrinks toward min") {
  const Millis min{4000}, max{24000};
  Suspicion s("a", 2, min, max, Millis{100});
  CHECK(s.deadline() == Millis{100} + max);
  CHECK_FALSE(s.confirm("a"));  // the accuser does not count
  CHECK(s.confirm("b"));
  // n = 1, k = 2: max - log(2)/log(3) * (max - min) = 24000 - 0.6309 * 20000 = 11381 ms
  CHECK(s.deadline() == Millis{100 + 11381});
  CHECK_FALSE(s.confirm("b"));  // the same confirmer twice counts once
  CHECK(s.confirm("c"));
  CHECK(s.deadline() == Millis{100} + min);
  CHECK_FALSE(s.confirm("d"));  // k reached: no more shrinking
  CHECK(s.confirmations() == 2);
}

TEST_CASE("with no confirmations expected the timer is the min from the start") {
  Suspicion s("a", 0, Millis{4000}, Millis{24000}, Millis{0});
  CHECK(s.deadline() == Millis{4000});
  CHECK_FALSE(s.confirm("b"));
}
