#include <doctest/doctest.h>

#include <vigil/retry/retry_quota.hpp>

using namespace vigil::retry;

TEST_CASE("the AWS quota pays for 50 retries after timeouts, or 100 after errors") {
  RetryQuota timeouts;
  int n = 0;
  while (timeouts.acquire(true)) ++n;
  CHECK(n == 50);
  CHECK(timeouts.available() == 0);
  RetryQuota errors;
  n = 0;
  while (errors.acquire(false)) ++n;
  CHECK(n == 100);
}

TEST_CASE("successes refill the quota: +1 for a first attempt, the cost back for a retry") {
  RetryQuota q({20, 5, 10, 1});
  CHECK(q.acquire(true) == 10);
  CHECK(q.acquire(false) == 5);
  CHECK(q.available() == 5);
  CHECK_FALSE(q.acquire(true));  // a timeout retry needs 10
  q.on_success(0);
  CHECK(q.available() == 6);
  q.on_success(10);
  CHECK(q.available() == 16);
  for (int i = 0; i < 100; ++i) q.on_success(0);
  CHECK(q.available() == 20);  // never above capacity
}

TEST_CASE("quota settings are checked") {
  CHECK(RetryQuotaConfig{}.validate().ok());
  CHECK_FALSE(RetryQuotaConfig{0, 5, 10, 1}.validate().ok());
  CHECK_FALSE(RetryQuotaConfig{500, -5, 10, 1}.validate().ok());
}
