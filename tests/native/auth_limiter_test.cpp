#include <doctest/doctest.h>

#include <string>

#include "agent/auth_limiter.hpp"
#include "agent/commands.hpp"

using vigil::Millis;
using vigil::native::AuthLimiter;

namespace {

// Guesses from `address` as fast as they come at time `t`: how many were checked.
int guess(AuthLimiter& limiter, const std::string& address, int attempts, Millis t) {
  int checked = 0;
  for (int i = 0; i < attempts; ++i) {
    if (limiter.admits(address, t)) {
      limiter.failed(address, t);
      ++checked;
    } else {
      limiter.refused(address, t);
    }
  }
  return checked;
}

}  // namespace

TEST_CASE("wrong tokens from one address are checked up to the burst, then at the rate") {
  AuthLimiter limiter(AuthLimiter::Limits{2, 10, 16, Millis{10000}});
  CHECK(guess(limiter, "10.0.0.1", 100, Millis{1000}) == 10);
  CHECK(limiter.counters().failures == 10);
  CHECK(limiter.counters().refused == 90);
  CHECK_FALSE(limiter.admits("10.0.0.1", Millis{1499}));
  CHECK(limiter.admits("10.0.0.1", Millis{1500}));             // one attempt every 500 ms
  CHECK(guess(limiter, "10.0.0.1", 100, Millis{6000}) == 10);  // 5 s later: 10 more, not 50
  // Another address is not held back by the first one's guesses.
  CHECK(limiter.admits("10.0.0.2", Millis{6000}));
  CHECK(guess(limiter, "10.0.0.2", 3, Millis{6000}) == 3);
}

TEST_CASE("the table of addresses stays bounded, forgetting refilled then least recent ones") {
  AuthLimiter limiter(AuthLimiter::Limits{1, 2, 4, Millis{10000}});
  for (int i = 0; i < 100; ++i) guess(limiter, "10.0.1." + std::to_string(i), 5, Millis{1000 + i});
  CHECK(limiter.addresses() == 4);
  // The most recent address is still held to its allowance...
  CHECK_FALSE(limiter.admits("10.0.1.99", Millis{1100}));
  // ...and after a while every entry has refilled and makes room for newcomers at no cost.
  guess(limiter, "10.0.2.1", 5, Millis{60000});
  CHECK(limiter.addresses() == 1);
}

TEST_CASE("reports come once per interval with the counts in between") {
  AuthLimiter limiter(AuthLimiter::Limits{2, 10, 16, Millis{10000}});
  guess(limiter, "10.0.0.1", 1, Millis{1000});
  auto lines = limiter.reports(Millis{1000});
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("from 10.0.0.1") != std::string::npos);
  guess(limiter, "10.0.0.1", 50, Millis{2000});  // 10 checked (refilled to the burst), 40 refused
  lines = limiter.reports(Millis{2000});
  REQUIRE(lines.size() == 1);  // refusals are news: their first line comes at once
  CHECK(lines[0].rfind("40 commands refused unchecked", 0) == 0);
  CHECK(limiter.reports(Millis{10999}).empty());
  lines = limiter.reports(Millis{11000});
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("10 commands with a wrong", 0) == 0);
  CHECK(limiter.reports(Millis{30000}).empty());  // nothing new: nothing said
}

TEST_CASE("a command refused by the limiter is not checked, a snapshot needs no check") {
  using vigil::native::CommandError;
  auto refused =
      vigil::native::parse_command(R"({"type":"leave","token":"right"})", "right", false);
  REQUIRE(std::holds_alternative<CommandError>(refused.result));
  CHECK(std::get<CommandError>(refused.result).code == "auth-rate-limited");
  auto snapshot = vigil::native::parse_command(R"({"type":"snapshot"})", "right", false);
  CHECK(std::holds_alternative<vigil::native::Command>(snapshot.result));
  auto allowed = vigil::native::parse_command(R"({"type":"leave","token":"right"})", "right", true);
  CHECK(std::holds_alternative<vigil::native::Command>(allowed.result));
}
