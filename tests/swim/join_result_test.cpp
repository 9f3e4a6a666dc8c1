#include <doctest/doctest.h>

#include <vigil/base/rng.hpp>
#include <vigil/swim/node.hpp>
#include "swim/test_addresses.hpp"

using vigil::Millis;
using namespace vigil::swim;

using vigil::swim::testing::addr;

namespace {

Node node(const std::string& name, int i) {
  auto n =
      Node::create(Config::lan(), name, addr(i), vigil::Rng(static_cast<std::uint64_t>(i))).value();
  n.start(Millis{0});
  n.outbox().clear();
  return n;
}

}  // namespace

TEST_CASE("a join reports success once a seed answered, with the seeds that did not") {
  Node a = node("a", 1), b = node("b", 2);
  a.join(Millis{10}, {addr(2), addr(3)});
  REQUIRE(a.outbox().streams.size() == 2);
  const auto to_b =
      a.outbox().streams[0].to == addr(2) ? a.outbox().streams[0] : a.outbox().streams[1];
  const auto to_c =
      a.outbox().streams[0].to == addr(2) ? a.outbox().streams[1] : a.outbox().streams[0];
  a.outbox().clear();

  a.handle_stream_failure(Millis{11}, to_c.id, "Connection refused");
  CHECK(a.outbox().join_results.empty());  // b has not answered yet
  a.handle_stream_reply(Millis{12}, to_b.id,
                        b.handle_stream(Millis{12}, addr(1), to_b.bytes).value());
  REQUIRE(a.outbox().join_results.size() == 1);
  const JoinResult& r = a.outbox().join_results[0];
  CHECK(r.ok());
  CHECK(r.at == Millis{12});
  CHECK(r.contacted == std::vector<Address>{addr(2)});
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].seed == addr(3));
  CHECK(r.failures[0].reason == "Connection refused");
  CHECK(a.member("b"));
  CHECK(b.member("a"));
}

TEST_CASE("a join fails when no seed answers") {
  Node a = node("a", 1);
  a.join(Millis{10}, {addr(2)});
  REQUIRE(a.outbox().streams.size() == 1);
  const auto id = a.outbox().streams[0].id;
  a.outbox().clear();
  a.handle_stream_failure(Millis{20}, id);
  REQUIRE(a.outbox().join_results.size() == 1);
  const JoinResult& r = a.outbox().join_results[0];
  CHECK_FALSE(r.ok());
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].seed == addr(2));
  CHECK_FALSE(r.failures[0].reason.empty());
  // Ending twice reports nothing more.
  a.outbox().clear();
  a.handle_stream_failure(Millis{21}, id);
  CHECK(a.outbox().join_results.empty());
}

TEST_CASE("a reply that does not decode is a failed join, not a member") {
  Node a = node("a", 1);
  a.join(Millis{10}, {addr(2)});
  const auto id = a.outbox().streams.at(0).id;
  a.outbox().clear();
  const std::uint8_t junk[] = {0x06, 0xc1, 0xc1};
  a.handle_stream_reply(Millis{11}, id, junk);
  REQUIRE(a.outbox().join_results.size() == 1);
  CHECK_FALSE(a.outbox().join_results[0].ok());
  CHECK(a.member_count() == 1);
}

TEST_CASE("a join with nothing to ask fails at once") {
  Node a = node("a", 1);
  a.join(Millis{5}, {});
  REQUIRE(a.outbox().join_results.size() == 1);
  CHECK_FALSE(a.outbox().join_results[0].ok());
  CHECK(a.outbox().join_results[0].at == Millis{5});
  a.outbox().clear();
  a.join(Millis{6}, {addr(1)});  // only itself
  REQUIRE(a.outbox().join_results.size() == 1);
  REQUIRE(a.outbox().join_results[0].failures.size() == 1);
  CHECK(a.outbox().join_results[0].failures[0].seed == addr(1));
  CHECK(a.outbox().streams.empty());
}

TEST_CASE("periodic exchanges and pings report no join result") {
  Node a = node("a", 1);
  a.add_member(Millis{0}, "b", addr(2));
  bool exchanged = false;
  for (Millis t{0}; t < Millis{120'000} && !exchanged; t += Millis{100}) {
    a.handle_tick(t);
    for (const auto& s : a.outbox().streams) {
      exchanged = exchanged || !s.join;
      a.handle_stream_failure(t, s.id);
    }
    CHECK(a.outbox().join_results.empty());
    a.outbox().clear();
  }
  CHECK(exchanged);
}
