#include <doctest/doctest.h>

#include <vigil/base/rng.hpp>
#include <vigil/retry/retry_budget.hpp>

using namespace vigil::retry;

TEST_CASE("a 10% budget earns one retry per ten first attempts") {
  RetryBudget b({0.1, 100.0, 0.0});
  CHECK_FALSE(b.try_retry());
  for (int i = 0; i < 9; ++i) b.on_first_attempt();
  CHECK_FALSE(b.allows_retry());
  b.on_first_attempt();
  CHECK(b.try_retry());
  CHECK_FALSE(b.try_retry());
  CHECK(b.tokens() == doctest::Approx(0.0).epsilon(1e-9));
}

TEST_CASE("the budget starts full, never holds more than its cap") {
  RetryBudget b({0.5, 3.0, 3.0});
  for (int i = 0; i < 100; ++i) b.on_first_attempt();
  CHECK(b.tokens() == 3.0);
  CHECK(b.try_retry());
  CHECK(b.try_retry());
  CHECK(b.try_retry());
  CHECK_FALSE(b.try_retry());
}

TEST_CASE("whatever the traffic, retries never exceed initial tokens plus ratio x first attempts") {
  vigil::Rng rng(7);
  RetryBudget b({0.1, 50.0, 20.0});
  int first = 0, retries = 0;
  for (int i = 0; i < 100000; ++i) {
    if (rng.chance(0.5)) {
      b.on_first_attempt();
      ++first;
    } else if (b.try_retry()) {
      ++retries;
    }
    CHECK(retries <= 20.0 + 0.1 * first + 1e-9);
  }
  CHECK(retries > 0.09 * first);  // and it does allow nearly that many when asked constantly
}

TEST_CASE("budget settings are checked") {
  CHECK(RetryBudgetConfig{}.validate().ok());
  CHECK(RetryBudgetConfig{-0.1, 10, 10}.validate().error().message.find("--budget-ratio") !=
        std::string::npos);
  CHECK_FALSE(RetryBudgetConfig{0.1, 10, 11}.validate().ok());
}
