#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <vigil/swim/node.hpp>
#include <vigil/wire/codec.hpp>
#include "swim/test_addresses.hpp"
#include "swim/test_nodes.hpp"

using vigil::Millis;
using namespace vigil::swim;
namespace wire = vigil::wire;

using vigil::swim::testing::addr;
using vigil::swim::testing::ip;
using vigil::swim::testing::node_a;

namespace {

wire::Alive alive(const std::string& name, int host, Incarnation incarnation = 1) {
  return wire::Alive{incarnation, name, ip(host), 7946, {}, kVersions};
}

void feed(Node& n, const wire::Message& m, int from = 3) {
  n.handle_datagram(Millis{10}, addr(from), wire::encode(m));
}

// A user message of `size` bytes of payload.
wire::User user_of(std::size_t size) {
  return wire::User{wire::Bytes(size, 0x61)};
}

// A full-state exchange from a member that opened it: the given members, at 10.0.0.i.
wire::Bytes exchange_of(const std::vector<std::pair<std::string, int>>& members,
                        wire::NodeState state = wire::NodeState::alive,
                        Incarnation incarnation = 1) {
  wire::PushPull p;
  for (const auto& [name, host] : members)
    p.nodes.push_back(wire::PushNodeState{name, ip(host), 7946, {}, incarnation, state, kVersions});
  wire::Bytes out;
  wire::encode_push_pull(p, out);
  return out;
}

}  // namespace

TEST_CASE("at max_members new names are refused and counted, known members still updated") {
  Config config = Config::lan();
  config.max_members = 4;
  auto n = node_a(config);
  feed(n, alive("d", 4));
  CHECK(n.member_count() == 4);
  CHECK(n.outbox().notices.empty());
  feed(n, alive("e", 5));
  CHECK(n.member("e") == nullptr);
  CHECK(n.counters().members_refused == 1);
  // The host hears of it once, with the first name refused; the counter says the rest.
  REQUIRE(n.outbox().notices.size() == 1);
  CHECK(n.outbox().notices[0].kind == Notice::Kind::member_table_full);
  CHECK(n.outbox().notices[0].member == "e");
  CHECK(n.outbox().notices[0].limit == 4);
  n.outbox().clear();
  feed(n, alive("f", 6));
  CHECK(n.counters().members_refused == 2);
  CHECK(n.outbox().notices.empty());

  // Members already known are updated as before.
  feed(n, wire::Alive{5, "b", ip(2), 7946, {7}, kVersions});
  CHECK(n.member("b")->incarnation == 5);
  CHECK(n.member("b")->meta == wire::Bytes{7});
  feed(n, wire::Suspect{5, "b", "c"});
  CHECK(n.member("b")->state == MemberState::suspect);

  // Full-state exchanges alike: new names refused, known ones merged.
  auto reply = n.handle_stream(Millis{20}, addr(9), exchange_of({{"g", 7}, {"h", 8}}));
  REQUIRE(reply.ok());
  CHECK(n.member("g") == nullptr);
  CHECK(n.member("h") == nullptr);
  CHECK(n.counters().members_refused == 4);
  reply = n.handle_stream(Millis{20}, addr(9), exchange_of({{"d", 4}}, wire::NodeState::dead, 3));
  REQUIRE(reply.ok());
  CHECK(n.member("d")->state == MemberState::suspect);  // a remote death: grounds for suspicion
  CHECK(n.member("d")->incarnation == 3);

  // And the static bootstrap of the simulations.
  n.add_member(Millis{30}, "i", addr(9));
  CHECK(n.member("i") == nullptr);
  CHECK(n.counters().members_refused == 5);
  CHECK(n.member_count() == 4);
  CHECK(n.outbox().notices.empty());
}

TEST_CASE("max_members is validated with an actionable message") {
  Config config = Config::lan();
  CHECK(config.max_members == 16384);
  CHECK(Config::wan().max_members == 16384);
  CHECK(Config::local().max_members == 16384);
  config.max_members = 1;
  const auto status = config.validate();
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().message.find("max members must be at least 2") != std::string::npos);
  config.max_members = 2;
  CHECK(config.validate().ok());
}

TEST_CASE("pending user messages are bounded in bytes as well as in count") {
  auto n = node_a();
  // 60 KiB each: 17 fit in 1 MiB, the next 3 are dropped and counted.
  for (int i = 0; i < 20; ++i) feed(n, user_of(60 * 1024));
  CHECK(n.outbox().user_messages.size() == 17);
  CHECK(n.outbox().user_message_bytes == 17 * 60 * 1024);
  CHECK(n.counters().user_messages == 20);
  CHECK(n.counters().user_messages_dropped == 3);
  // A small one still fits in what is left.
  feed(n, user_of(1000));
  CHECK(n.outbox().user_messages.size() == 18);
  // Handed on (cleared), there is room again; a host that only empties the vector too.
  n.outbox().clear();
  feed(n, user_of(60 * 1024));
  CHECK(n.outbox().user_messages.size() == 1);
  n.outbox().user_messages.clear();
  for (int i = 0; i < 17; ++i) feed(n, user_of(60 * 1024));
  CHECK(n.outbox().user_messages.size() == 17);
  CHECK(n.counters().user_messages_dropped == 3);
}

TEST_CASE("a datagram whose compressed parts expand past 64 KiB together is refused whole") {
  auto n = node_a();
  // A small user message, then 34 compressed ones of 1 MiB: nothing of it is handled.
  std::vector<wire::Bytes> parts{wire::encode(user_of(5))};
  wire::Bytes big;
  wire::encode(user_of(wire::max_decompressed_size - 1), big);
  const wire::Bytes packed = wire::make_compressed(big);
  for (int i = 0; i < 34; ++i) parts.push_back(packed);
  const wire::Bytes bomb = *wire::make_compound(parts);
  REQUIRE(bomb.size() <= 65507);
  n.handle_datagram(Millis{10}, addr(3), bomb);
  CHECK(n.counters().datagrams_rejected == 1);
  CHECK(n.counters().datagrams_expansion_refused == 1);
  CHECK(n.counters().user_messages == 0);
  CHECK(n.outbox().user_messages.empty());
  // Corrupt is rejected, not counted as a bomb.
  wire::Bytes corrupt = wire::make_compressed(wire::encode(user_of(500)));
  corrupt.resize(corrupt.size() - 2);
  n.handle_datagram(Millis{10}, addr(3), corrupt);
  CHECK(n.counters().datagrams_rejected == 2);
  CHECK(n.counters().datagrams_expansion_refused == 1);
  // Within the budget, compressed news is read as ever.
  n.handle_datagram(Millis{10}, addr(3), wire::make_compressed(wire::encode(user_of(60 * 1024))));
  CHECK(n.counters().user_messages == 1);
}

TEST_CASE("a stream message expanding past 4 MiB is refused and counted") {
  auto n = node_a();
  wire::Bytes state;
  wire::encode_push_pull(wire::PushPull{false, {}, wire::Bytes(5 << 20, 0)}, state);
  const wire::Bytes bomb = wire::make_compressed(state);
  // As the agent reads it from TCP: refused at once.
  const auto read = n.read_stream(bomb, wire::StreamPart::request, Node::stream_message_complete);
  CHECK(read.status == wire::StreamRead::Status::refused);
  CHECK(read.refusal == wire::StreamRead::Refusal::too_large);
  CHECK(n.counters().streams_rejected == 1);
  CHECK(n.counters().streams_expansion_refused == 1);
  // As the simulation hands it over, compressed.
  CHECK_FALSE(n.handle_stream(Millis{10}, addr(9), bomb).ok());
  CHECK(n.counters().streams_expansion_refused == 2);
  // 2 MiB is within what a stream may carry: merged and answered.
  wire::Bytes two;
  wire::encode_push_pull(wire::PushPull{false, {}, wire::Bytes(2 << 20, 0)}, two);
  CHECK(n.handle_stream(Millis{10}, addr(9), wire::make_compressed(two)).ok());
  const auto ok = n.read_stream(wire::make_compressed(two), wire::StreamPart::request,
                                Node::stream_message_complete);
  CHECK(ok.status == wire::StreamRead::Status::ready);
  CHECK(n.counters().streams_expansion_refused == 2);
}

TEST_CASE("news is never packed past what a receiver expands of one datagram") {
  // With the largest UDP buffer, news packed by its compressed size could exceed the datagram
  // budget; it is held within it.
  Config config = Config::lan();
  config.udp_buffer_size = 65507;
  auto n = Node::create(config, "a", addr(1), vigil::Rng(7)).value();
  n.start(Millis{0});
  // Members with 400 bytes of metadata that compresses well (memberlist allows 512): 255 of
  // them, the most one compound holds, come to some 120 KB.
  const wire::Bytes meta(400, 0x78);
  for (int i = 0; i < 3000; ++i)
    feed(n, wire::Alive{1, "member-" + std::to_string(i), ip(10 + i % 200), 7946, meta, kVersions},
         2);
  std::size_t largest = 0, datagrams = 0;
  for (Millis t{0}; t < Millis{5000}; t += Millis{100}) {
    n.handle_tick(t);
    for (const auto& d : n.outbox().datagrams) {
      ++datagrams;
      wire::ExpansionBudget budget{wire::max_datagram_expansion};
      const auto decoded = wire::decode_packet(d.bytes, budget);
      REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
      largest = std::max(largest, wire::max_datagram_expansion - budget.left);
    }
    n.outbox().clear();
  }
  MESSAGE("datagrams ", datagrams, ", largest expansion ", largest);
  CHECK(datagrams > 0);
  CHECK(largest > 60 * 1024);  // the budget was reached, not only respected
}
