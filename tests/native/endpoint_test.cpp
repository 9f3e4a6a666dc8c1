#include <doctest/doctest.h>

#include <sys/socket.h>

#include "agent/join_retry.hpp"
#include "agent/socket_address.hpp"
#include "cli/duration.hpp"
#include "cli/endpoint.hpp"

using vigil::Millis;
using namespace vigil;
using cli::Endpoint;

TEST_CASE("endpoints: IPv4, bracketed IPv6 and names") {
  auto v4 = cli::parse_host_port("127.0.0.1:7946");
  REQUIRE(v4.ok());
  CHECK(v4->host == "127.0.0.1");
  CHECK(v4->port == 7946);
  CHECK(v4->kind == Endpoint::Kind::ipv4);
  CHECK(v4->to_string() == "127.0.0.1:7946");

  auto v6 = cli::parse_host_port("[::1]:7946");
  REQUIRE(v6.ok());
  CHECK(v6->host == "::1");
  CHECK(v6->kind == Endpoint::Kind::ipv6);
  CHECK(v6->to_string() == "[::1]:7946");
  auto full = cli::parse_host_port("[2001:db8::7]:1");
  REQUIRE(full.ok());
  CHECK(full->host == "2001:db8::7");

  auto name = cli::parse_host_port("node-1.example:8301");
  REQUIRE(name.ok());
  CHECK(name->host == "node-1.example");
  CHECK(name->kind == Endpoint::Kind::name);
  auto local = cli::parse_host_port("localhost:9");
  REQUIRE(local.ok());
  CHECK(local->kind == Endpoint::Kind::name);
}

TEST_CASE("endpoints: malformed ones are refused with a reason") {
  for (const char* bad :
       {"", "7946", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:x",
        "::1:7946", "[::1]", "[::1]7946", "[::1:7946", "[127.0.0.1]:1", "[nope]:1", "-a:1",
        "a..b:1", "a_b:1", "999.1.1.1:1", "a b:1"}) {
    CAPTURE(bad);
    CHECK_FALSE(cli::parse_host_port(bad).ok());
  }
  CHECK(cli::parse_host_port("::1:7946").error().message.find("brackets") != std::string::npos);
}

TEST_CASE("endpoints for listeners: literals only, localhost as 127.0.0.1") {
  CHECK(cli::parse_endpoint("localhost:80")->host == "127.0.0.1");
  CHECK(cli::parse_endpoint("[::1]:80")->kind == Endpoint::Kind::ipv6);
  auto name = cli::parse_endpoint("example.org:80");
  REQUIRE_FALSE(name.ok());
  CHECK(name.error().message.find("host must be an IPv4 address") != std::string::npos);
}

TEST_CASE("durations as Serf writes them") {
  CHECK(*cli::parse_duration("500ms") == Millis{500});
  CHECK(*cli::parse_duration("1s") == Millis{1000});
  CHECK(*cli::parse_duration("1.5s") == Millis{1500});
  CHECK(*cli::parse_duration("2m") == Millis{120'000});
  CHECK(*cli::parse_duration("1h") == Millis{3'600'000});
  for (const char* bad : {"", "5", "s", "0s", "-1s", "1x", "1 s", "1.2.3s", "25h", "0.1ms"}) {
    CAPTURE(bad);
    CHECK_FALSE(cli::parse_duration(bad).ok());
  }
  CHECK(cli::duration_text(Millis{500}) == "500ms");
  CHECK(cli::duration_text(Millis{1000}) == "1s");
  CHECK(cli::duration_text(Millis{1500}) == "1500ms");
  CHECK(cli::duration_text(Millis{120'000}) == "2m");
}

TEST_CASE("join retries: every interval after a failure, up to the maximum") {
  native::JoinRetry r(Millis{1000}, 2);
  CHECK(r.due(Millis{0}));
  CHECK(r.start() == 1);
  CHECK_FALSE(r.due(Millis{0}));
  CHECK_FALSE(r.next_at());
  CHECK(r.finish(Millis{30}, false) == native::JoinRetry::Next::retry);
  CHECK(r.next_at() == Millis{1030});
  CHECK_FALSE(r.due(Millis{1029}));
  CHECK(r.due(Millis{1030}));
  CHECK(r.start() == 2);
  CHECK(r.finish(Millis{1040}, false) == native::JoinRetry::Next::give_up);
  CHECK_FALSE(r.next_at());

  native::JoinRetry forever(Millis{10}, 0);
  for (int i = 1; i <= 50; ++i) {
    CHECK(forever.start() == i);
    CHECK(forever.finish(Millis{i * 10}, false) == native::JoinRetry::Next::retry);
  }
  forever.start();
  CHECK(forever.finish(Millis{1000}, true) == native::JoinRetry::Next::joined);
}

TEST_CASE("join log lines name the seeds tried and why they failed") {
  native::JoinRetry r(Millis{1000}, 2);
  swim::JoinResult failed;
  failed.failures.push_back({swim::Address::from_octets(127, 0, 0, 1, 7946), "Connection refused"});
  const std::vector<native::UnresolvedSeed> unresolved = {
      {"nowhere.invalid:7946", "Name or service not known"}};
  const std::string retry =
      native::join_log_line(1, r, failed, unresolved, native::JoinRetry::Next::retry);
  CHECK(retry ==
        "join attempt 1/2 failed: 127.0.0.1:7946: Connection refused; nowhere.invalid:7946: cannot "
        "resolve "
        "(Name or service not known); next attempt in 1s");
  const std::string give_up =
      native::join_log_line(2, r, failed, {}, native::JoinRetry::Next::give_up);
  CHECK(give_up ==
        "join attempt 2/2 failed: 127.0.0.1:7946: Connection refused; giving up after 2 attempts");
  swim::JoinResult ok;
  ok.contacted.push_back(swim::Address::from_octets(127, 0, 0, 1, 7946));
  native::JoinRetry forever(Millis{5000}, 0);
  CHECK(native::join_log_line(3, forever, ok, {}, native::JoinRetry::Next::joined) ==
        "join attempt 3 succeeded: 127.0.0.1:7946 answered");
  CHECK(native::join_log_line(1, forever, {}, {}, native::JoinRetry::Next::retry) ==
        "join attempt 1 failed: no seed to try; next attempt in 5s");
}

TEST_CASE("socket addresses: both families round-trip, names resolve through the system") {
  const auto v4 = swim::Address::from_octets(127, 0, 0, 1, 7946);
  const auto sa4 = native::to_sockaddr(v4);
  CHECK(sa4.family() == AF_INET);
  CHECK(native::from_sockaddr(sa4.get(), sa4.length) == v4);
  // Through a dual-stack IPv6 socket an IPv4 peer is IPv4-mapped, and reads back as IPv4.
  const auto mapped = native::to_sockaddr(v4, AF_INET6);
  CHECK(mapped.family() == AF_INET6);
  CHECK(native::from_sockaddr(mapped.get(), mapped.length) == v4);

  auto v6 = native::resolve("::1", 7946, AF_INET6);
  REQUIRE(v6.ok());
  REQUIRE(v6->size() == 1);
  CHECK(v6->front().to_string() == "[::1]:7946");
  const auto sa6 = native::to_sockaddr(v6->front());
  CHECK(sa6.family() == AF_INET6);
  CHECK(native::from_sockaddr(sa6.get(), sa6.length) == v6->front());

  auto local = native::resolve("localhost", 80, AF_INET);
  REQUIRE(local.ok());
  CHECK(local->front() == swim::Address::from_octets(127, 0, 0, 1, 80));
  CHECK_FALSE(native::resolve("127.0.0.1", 1, AF_INET6).ok());
  auto missing = native::resolve("no-such-host.invalid", 1, AF_UNSPEC);
  REQUIRE_FALSE(missing.ok());
  CHECK_FALSE(missing.error().message.empty());
}
