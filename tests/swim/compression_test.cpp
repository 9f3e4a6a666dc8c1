#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <vigil/swim/node.hpp>
#include <vigil/wire/codec.hpp>
#include "swim/test_addresses.hpp"

// memberlist's EnableCompression as the engine does it: what it sends, what it counts, and that
// a node with compression off still reads a node with it on.
using vigil::Millis;
using namespace vigil::swim;
namespace wire = vigil::wire;

using vigil::swim::testing::addr;
using vigil::swim::testing::ip;

namespace {

constexpr auto kCompress = static_cast<std::uint8_t>(wire::MessageType::compress);

Config with_compression(bool on) {
  Config c = Config::lan();
  c.compression = on;
  return c;
}

// Node "a" knowing "b" and "c", then told of eight more members by "c": news to gossip.
Node gossiping_node(bool compression) {
  auto n = Node::create(with_compression(compression), "a", addr(1), vigil::Rng(7)).value();
  n.add_member(Millis{0}, "b", addr(2));
  n.add_member(Millis{0}, "c", addr(3));
  n.start(Millis{0});
  for (int i = 4; i < 12; ++i)
    n.handle_datagram(Millis{1}, addr(3),
                      wire::encode(wire::Alive{
                          1, "member-number-" + std::to_string(i), ip(i), 7946, {}, kVersions}));
  n.outbox().clear();
  return n;
}

// Runs `n` for two seconds of ticks, collecting what it sends.
std::vector<wire::Bytes> run(Node& n) {
  std::vector<wire::Bytes> out;
  for (Millis t{2}; t < Millis{2000}; t += Millis{10}) {
    n.handle_tick(t);
    for (auto& d : n.outbox().datagrams) out.push_back(std::move(d.bytes));
    n.outbox().clear();
  }
  return out;
}

wire::Bytes opened(const wire::Bytes& compressed) {
  return wire::open_compressed(std::span<const std::uint8_t>(compressed).subspan(1)).value();
}

// The same periodic exchange request from a node that knows nothing.
wire::Bytes empty_exchange() {
  wire::Bytes request;
  wire::encode_push_pull(wire::PushPull{false, {}, {}}, request);
  return request;
}

}  // namespace

TEST_CASE("gossip goes out compressed, pings plain, and the counters add up exactly") {
  auto n = gossiping_node(true);
  const auto datagrams = run(n);
  std::uint64_t compressed = 0, saved = 0, alive_parts = 0, plain_pings = 0;
  for (const auto& d : datagrams) {
    auto messages = wire::decode_packet(d);
    REQUIRE(messages.ok());
    if (d[0] == kCompress) {
      ++compressed;
      const auto inner = opened(d);
      CHECK(inner.size() > d.size());  // kept only because it is shorter
      saved += inner.size() - d.size();
      for (const auto& m : *messages) alive_parts += std::holds_alternative<wire::Alive>(m);
    } else if (messages->size() == 1 && std::holds_alternative<wire::Ping>(messages->front())) {
      // A bare ping is ~40 bytes; LZW's 9-bit codes and the wrapper make it longer.
      CHECK(wire::make_compressed(d).size() >= d.size());
      ++plain_pings;
    }
  }
  CHECK(compressed > 0);
  CHECK(alive_parts >= 8);  // every member's news went out, compressed
  CHECK(plain_pings > 0);
  CHECK(n.counters().compressed_sent == compressed);
  CHECK(n.counters().compression_bytes_saved == saved);
}

TEST_CASE("with compression off nothing is compressed and nothing is counted") {
  auto n = gossiping_node(false);
  for (const auto& d : run(n)) CHECK(d[0] != kCompress);
  CHECK(n.counters().compressed_sent == 0);
  CHECK(n.counters().compression_bytes_saved == 0);
}

TEST_CASE(
    "a full state goes out compressed once per change, and a node without compression reads it") {
  auto on = gossiping_node(true);
  const auto first = on.handle_stream(Millis{5}, addr(9), empty_exchange());
  REQUIRE(first.ok());
  REQUIRE(first->front() == kCompress);
  const auto plain = opened(*first);
  CHECK(first->size() < plain.size());
  const auto state = wire::decode_push_pull(plain);
  REQUIRE(state.ok());
  CHECK(state->nodes.size() == 11);
  // Unchanged table: the same bytes, compressed once.
  const auto before = on.counters().compressed_sent;
  CHECK(on.handle_stream(Millis{6}, addr(9), empty_exchange()).value() == *first);
  CHECK(on.counters().compressed_sent == before);

  // Its own table back, compressed as it sent it or plain from a peer without compression, is
  // recognised as its own view and not merged.
  const auto unchanged = on.counters().exchanges_unchanged;
  CHECK(on.handle_stream(Millis{6}, addr(9), *first).value() == *first);
  CHECK(on.handle_stream(Millis{6}, addr(9), plain).value() == *first);
  CHECK(on.counters().exchanges_unchanged == unchanged + 2);

  // A node with compression off takes that table as a request and answers in plain.
  auto off = Node::create(with_compression(false), "b", addr(2), vigil::Rng(3)).value();
  const auto reply = off.handle_stream(Millis{7}, addr(1), *first);
  REQUIRE(reply.ok());
  CHECK(reply->front() != kCompress);
  CHECK(off.members().size() == 11);  // the table it was sent, itself included
  CHECK(off.counters().compressed_sent == 0);
}

TEST_CASE("a compressed datagram is read and counted by a node with compression off") {
  auto on = gossiping_node(true);
  auto off = Node::create(with_compression(false), "b", addr(2), vigil::Rng(3)).value();
  std::uint64_t compressed = 0;
  for (const auto& d : run(on)) {
    compressed += d[0] == kCompress;
    off.handle_datagram(Millis{2000}, addr(1), d);
  }
  CHECK(compressed > 0);
  CHECK(off.counters().compressed_datagrams_received == compressed);
  CHECK(off.counters().datagrams_rejected == 0);
  for (int i = 4; i < 12; ++i) CHECK(off.member("member-number-" + std::to_string(i)) != nullptr);
}

TEST_CASE("a compressed stream message that does not expand is refused with the reason") {
  auto n = gossiping_node(false);
  const wire::Bytes corrupt = {kCompress, 0x82, 0xa4, 'A', 'l',  'g',  'o',  0x00,
                               0xa3,      'B',  'u',  'f', 0xc4, 0x02, 0xff, 0xff};
  const auto reply = n.handle_stream(Millis{5}, addr(9), corrupt);
  REQUIRE_FALSE(reply.ok());
  CHECK(reply.error().message.find("lzw") != std::string::npos);
}
