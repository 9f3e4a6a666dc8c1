#include <doctest/doctest.h>

#include <cstdint>
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

TEST_CASE("the table stays bounded: refilled clients are forgotten, new ones then share a bucket") {
  AuthLimiter limiter(AuthLimiter::Limits{1, 2, 4, Millis{10000}});
  // 100 addresses, each guessing 5 times: the first 4 fill the table (2 checked each); the other
  // 96 share one allowance of 2, instead of each pushing an older one out for a fresh 2.
  int checked = 0;
  for (int i = 0; i < 100; ++i)
    checked += guess(limiter, "10.0.1." + std::to_string(i), 5, Millis{1000});
  CHECK(checked == 4 * 2 + 2);
  CHECK(limiter.addresses() == 4);
  CHECK(limiter.counters().shared == 2);
  // The tracked ones are still held to their allowance.
  CHECK_FALSE(limiter.admits("10.0.1.0", Millis{1100}));
  CHECK_FALSE(limiter.admits("10.0.1.99", Millis{1100}));
  // After a while every entry has refilled and makes room for newcomers at no cost.
  guess(limiter, "10.0.2.1", 5, Millis{60000});
  CHECK(limiter.addresses() == 1);
}

TEST_CASE("a crowd of addresses is held to what the table allows, not a fresh allowance each") {
  // The default table (4,096 clients), 6,000 addresses in 10.0.0.0/8 each guessing as fast as
  // it can for 10 s: checks are bounded by the table's clients plus one shared bucket.
  AuthLimiter limiter;
  const auto& l = limiter.limits();
  std::uint64_t checked = 0;
  for (int second = 0; second < 10; ++second)
    for (int i = 0; i < 6000; ++i)
      checked += guess(limiter, "10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250),
                       3, Millis{1000 * second});
  const double per_client = l.burst + l.failures_per_second * 9;
  CHECK(checked <= static_cast<std::uint64_t>((l.max_addresses + 1) * per_client));
  CHECK(limiter.counters().shared > 0);
}

TEST_CASE("this machine's addresses are one client, and an IPv6 /64 is one client") {
  CHECK(AuthLimiter::client_of("127.0.0.1") == "127.0.0.0/8");
  CHECK(AuthLimiter::client_of("127.45.3.9") == "127.0.0.0/8");
  CHECK(AuthLimiter::client_of("::1") == "127.0.0.0/8");
  CHECK(AuthLimiter::client_of("10.1.2.3") == "10.1.2.3");
  CHECK(AuthLimiter::client_of("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::/64");
  CHECK(AuthLimiter::client_of("2001:db8:1:2::9") == "2001:db8:1:2::/64");
  CHECK(AuthLimiter::client_of("not an address") == "not an address");

  AuthLimiter limiter(AuthLimiter::Limits{2, 10, 4096, Millis{10000}});
  // 6,000 addresses of 127.0.0.0/8 guessing at once get one allowance between them.
  int checked = 0;
  for (int i = 0; i < 6000; ++i)
    checked +=
        guess(limiter, "127.0." + std::to_string(i / 250) + "." + std::to_string(1 + i % 250), 1,
              Millis{1000});
  CHECK(checked == 10);
  CHECK(limiter.addresses() == 1);
  // So do the addresses of one IPv6 /64.
  checked = 0;
  for (int i = 0; i < 100; ++i)
    checked += guess(limiter, "2001:db8::" + std::to_string(i + 1), 1, Millis{1000});
  CHECK(checked == 10);
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
