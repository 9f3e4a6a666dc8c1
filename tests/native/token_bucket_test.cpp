#include <doctest/doctest.h>

#include "http/token_bucket.hpp"

using vigil::Millis;
using vigil::native::TokenBucket;

TEST_CASE("a token bucket admits a burst, then its rate") {
  TokenBucket b(20, 40);
  int admitted = 0;
  for (int i = 0; i < 100; ++i) admitted += b.take(Millis{1000});
  CHECK(admitted == 40);  // the burst, all at once
  CHECK_FALSE(b.take(Millis{1000}));
  CHECK_FALSE(b.take(Millis{1049}));  // 0.98 tokens refilled
  CHECK(b.take(Millis{1050}));        // one token every 50 ms
  CHECK_FALSE(b.take(Millis{1050}));
  // Over ten seconds of steady sending, 20 a second get through.
  admitted = 0;
  for (int t = 1100; t < 11100; t += 10) admitted += b.take(Millis{t});
  CHECK(admitted == doctest::Approx(200).epsilon(0.01));
  // Idle time refills it to the burst, never beyond.
  admitted = 0;
  for (int i = 0; i < 100; ++i) admitted += b.take(Millis{100000});
  CHECK(admitted == 40);
}

TEST_CASE("a token bucket ignores time going backwards and a zero rate admits all") {
  TokenBucket b(1, 1);
  CHECK(b.take(Millis{5000}));
  CHECK_FALSE(b.take(Millis{4000}));
  CHECK_FALSE(b.take(Millis{5999}));
  CHECK(b.take(Millis{6000}));
  TokenBucket open(0, 0);
  for (int i = 0; i < 1000; ++i) REQUIRE(open.take(Millis{0}));
}
