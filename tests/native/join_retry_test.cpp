#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "agent/join_retry.hpp"

using namespace vigil;
using native::JoinLimits;
using native::JoinPlanner;

namespace {

// `count` addresses 10.<net>.x.y:7946.
std::vector<swim::Address> addresses(std::uint8_t net, std::size_t count) {
  std::vector<swim::Address> out;
  for (std::size_t i = 0; i < count; ++i)
    out.push_back(swim::Address::from_octets(10, net, static_cast<std::uint8_t>(i / 250),
                                             static_cast<std::uint8_t>(i % 250 + 1), 7946));
  return out;
}

std::size_t from(const std::vector<swim::Address>& asked, std::uint8_t net) {
  std::size_t n = 0;
  for (const auto& a : asked) n += a.ip[13] == net;
  return n;
}

}  // namespace

TEST_CASE("join planner: at most the limit at once, the rest on later attempts, all in the end") {
  JoinPlanner planner;
  const std::vector<std::vector<swim::Address>> seeds = {addresses(1, 20)};
  const auto first = planner.pick(seeds);
  CHECK(first.ask == std::vector<swim::Address>(seeds[0].begin(), seeds[0].begin() + 8));
  CHECK(first.resolved == 20);
  CHECK(first.deferred() == 12);
  const auto second = planner.pick(seeds);
  CHECK(second.ask == std::vector<swim::Address>(seeds[0].begin() + 8, seeds[0].begin() + 16));
  // The third goes round: the last four, then the first four again.
  const auto third = planner.pick(seeds);
  REQUIRE(third.ask.size() == 8);
  CHECK(third.ask[0] == seeds[0][16]);
  CHECK(third.ask[3] == seeds[0][19]);
  CHECK(third.ask[4] == seeds[0][0]);
  CHECK(planner.counters().asked == 24);
  CHECK(planner.counters().deferred == 36);
}

TEST_CASE("join planner: the first address of each seed before the second of any") {
  JoinPlanner planner;
  const auto a = addresses(1, 3), b = addresses(2, 3);
  CHECK(planner.pick({a, b}).ask == std::vector<swim::Address>{a[0], b[0], a[1], b[1], a[2], b[2]});
}

TEST_CASE("join planner: a seed after a name of thousands of addresses is asked every attempt") {
  JoinPlanner planner;
  const auto many = addresses(1, 3000);
  const auto live = addresses(2, 1);
  std::set<swim::Address> asked;
  for (int attempt = 1; attempt <= 429; ++attempt) {
    const auto pick = planner.pick({many, live});
    CAPTURE(attempt);
    REQUIRE(pick.ask.size() == JoinLimits::kMaxAddressesPerAttempt);
    CHECK(from(pick.ask, 2) == 1);
    CHECK(pick.ask[1] == live[0]);
    CHECK(pick.resolved == 3001);
    asked.insert(pick.ask.begin(), pick.ask.end());
  }
  // Seven of the name's addresses per attempt: all 3,000 within ceil(3000 / 7) = 429 attempts.
  CHECK(asked.size() == 3001);
  CHECK(planner.counters().deferred == 429u * (3001 - 8));
}

TEST_CASE("join planner: with more seeds than places, the seeds left out go first next time") {
  JoinPlanner planner;
  std::vector<std::vector<swim::Address>> seeds;
  for (std::uint8_t s = 0; s < 10; ++s) seeds.push_back(addresses(s, 2));
  const auto first = planner.pick(seeds);
  for (std::uint8_t s = 0; s < 8; ++s) CHECK(first.ask[s] == seeds[s][0]);
  const auto second = planner.pick(seeds);
  CHECK(second.ask[0] == seeds[8][0]);
  CHECK(second.ask[1] == seeds[9][0]);
  // Seeds 0 to 5 come next, at their second address: their first was asked last time.
  CHECK(second.ask[2] == seeds[0][1]);
  CHECK(second.ask[7] == seeds[5][1]);
}

TEST_CASE("join planner: repeats across names, names that did not resolve, lists that change") {
  JoinPlanner planner;
  const auto shared = addresses(1, 2);
  const auto pick = planner.pick({shared, {}, {shared[0]}});
  CHECK(pick.ask == shared);  // asked once though two names give it
  CHECK(pick.resolved == 2);
  CHECK(pick.deferred() == 0);
  CHECK(JoinPlanner().pick({}).ask.empty());
  CHECK(JoinPlanner().pick({{}, {}}).resolved == 0);
  // A name that resolves to fewer addresses than before starts over within its new list.
  JoinPlanner shrinking;
  (void)shrinking.pick({addresses(1, 30)});
  const auto fewer = shrinking.pick({addresses(1, 3)});
  CHECK(fewer.ask.size() == 3);
}

TEST_CASE("join log lines stay short however many addresses were asked or not") {
  native::JoinRetry r(Millis{1000}, 0);
  swim::JoinResult failed;
  for (const auto& a : addresses(1, 8)) failed.failures.push_back({a, "Connection refused"});
  const std::string line =
      native::join_log_line(1, r, failed, {}, native::JoinRetry::Next::retry, 2993);
  CHECK(line ==
        "join attempt 1 failed: 8 of 3001 addresses asked (2993 not asked in this attempt): "
        "10.1.0.1:7946: Connection refused; 10.1.0.2:7946: Connection refused; 10.1.0.3:7946: "
        "Connection refused; and 5 more; next attempt in 1s");

  // Thousands of failures (memberlist's Join reports one line per address) still name three.
  swim::JoinResult huge;
  for (const auto& a : addresses(2, 3000)) huge.failures.push_back({a, "no reply"});
  huge.contacted = addresses(3, 5);
  const std::string joined = native::join_log_line(2, r, huge, {}, native::JoinRetry::Next::joined);
  CHECK(joined.size() < 300);
  CHECK(joined.find("10.3.0.1:7946, 10.3.0.2:7946, 10.3.0.3:7946, and 2 more answered") !=
        std::string::npos);
  CHECK(joined.find("; and 2997 more)") != std::string::npos);
}

TEST_CASE("join log lines escape reasons and cut long ones short") {
  native::JoinRetry r(Millis{500}, 3);
  swim::JoinResult failed;
  failed.failures.push_back(
      {swim::Address::from_octets(127, 0, 0, 1, 7946), "bad\n[x] 1.000s dead y #1\x1b[2J"});
  failed.failures.push_back(
      {swim::Address::from_octets(127, 0, 0, 2, 7946), std::string(500, 'z') + "\n"});
  const std::vector<native::UnresolvedSeed> unresolved = {{"a\x1b:1", "no\x07"}};
  const std::string line =
      native::join_log_line(1, r, failed, unresolved, native::JoinRetry::Next::retry);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find('\x1b') == std::string::npos);
  CHECK(line.find('\x07') == std::string::npos);
  CHECK(line.find("127.0.0.1:7946: bad\\n[x] 1.000s dead y #1\\x1b[2J;") != std::string::npos);
  CHECK(line.find("127.0.0.2:7946: " + std::string(JoinLimits::kMaxReasonChars - 3, 'z') +
                  "...;") != std::string::npos);
  CHECK(line.find("a\\x1b:1: cannot resolve (no\\x07)") != std::string::npos);
  // An escape is never cut in half: a reason of escapes is cut between them.
  swim::JoinResult escapes;
  escapes.failures.push_back(
      {swim::Address::from_octets(127, 0, 0, 3, 7946), std::string(100, '\x1b')});
  const std::string cut = native::join_log_line(1, r, escapes, {}, native::JoinRetry::Next::retry);
  CHECK(cut.find(": " + [] {
    std::string s;
    for (int i = 0; i < 19; ++i) s += "\\x1b";
    return s;
  }() + "...;") != std::string::npos);
}

TEST_CASE("join metrics: asked and deferred addresses") {
  native::JoinCounters c;
  c.asked = 8;
  c.deferred = 2993;
  const std::string text = native::join_metrics_text(c);
  CHECK(text.find("vigil_join_addresses_asked_total 8\n") != std::string::npos);
  CHECK(text.find("vigil_join_addresses_deferred_total 2993\n") != std::string::npos);
  CHECK(text.find("# TYPE vigil_join_addresses_deferred_total counter") != std::string::npos);
}
