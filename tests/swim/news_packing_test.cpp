#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <vigil/base/rng.hpp>
#include <vigil/swim/node.hpp>
#include <vigil/wire/codec.hpp>
#include "swim/test_addresses.hpp"

// Gossip packs news by the size it will have once compressed: a datagram carries more news than
// its raw room, never more bytes than UDPBufferSize on the wire, and news that compresses worse
// than expected goes as two datagrams rather than one too large.
using vigil::Millis;
using namespace vigil::swim;
namespace wire = vigil::wire;

using vigil::swim::testing::addr;
using vigil::swim::testing::ip;

namespace {

constexpr std::size_t kRoom = 1400;  // Config::lan().udp_buffer_size

Node node_with_peers(bool compression) {
  Config c = Config::lan();
  c.compression = compression;
  c.probe_interval = Millis{600000};  // gossip alone: the peers here never answer a probe
  c.probe_timeout = Millis{500};
  auto n = Node::create(c, "a", addr(1), vigil::Rng(7)).value();
  for (int i = 2; i < 6; ++i) n.add_member(Millis{0}, "peer-" + std::to_string(i), addr(i));
  n.start(Millis{0});
  n.outbox().clear();
  return n;
}

// News of `count` members joining, told by peer-2; `meta` bytes each (random ones compress badly).
void hear_of_joins(Node& n, int first, int count, std::size_t meta, vigil::Rng& rng) {
  for (int i = first; i < first + count; ++i) {
    wire::Bytes m(meta);
    for (auto& b : m) b = static_cast<std::uint8_t>(rng.below(256));
    n.handle_datagram(Millis{1}, addr(2),
                      wire::encode(wire::Alive{1, "member-" + std::to_string(i), ip(10 + i % 200),
                                               7946, m, kVersions}));
  }
  n.outbox().clear();
}

struct Sent {
  std::size_t datagrams = 0;
  std::size_t largest_on_wire = 0;
  std::size_t largest_plain = 0;  // a datagram's messages before compression
  std::uint64_t alive_parts = 0;
};

// The datagrams `n` sends at gossip ticks from `from` for `ticks` ticks, decoded.
Sent gossip_for(Node& n, Millis from, int ticks) {
  Sent s;
  for (int k = 0; k < ticks; ++k) {
    n.handle_tick(from + Millis{200} * k);
    for (const auto& d : n.outbox().datagrams) {
      ++s.datagrams;
      s.largest_on_wire = std::max(s.largest_on_wire, d.bytes.size());
      std::size_t plain = d.bytes.size();
      if (wire::is_compressed(d.bytes))
        plain =
            wire::open_compressed(std::span<const std::uint8_t>(d.bytes).subspan(1)).value().size();
      s.largest_plain = std::max(s.largest_plain, plain);
      auto messages = wire::decode_packet(d.bytes);
      REQUIRE(messages.ok());
      for (const auto& m : *messages) s.alive_parts += std::holds_alternative<wire::Alive>(m);
    }
    n.outbox().clear();
  }
  return s;
}

// The datagrams of the first gossip tick that sends any.
const std::vector<Datagram>& first_gossip_round(Node& n) {
  for (Millis t{1}; t < Millis{1000} && n.outbox().datagrams.empty(); t += Millis{10})
    n.handle_tick(t);
  return n.outbox().datagrams;
}

}  // namespace

TEST_CASE("with compression on, a datagram carries more news than its raw room, and fits") {
  vigil::Rng rng(1);
  Node packed = node_with_peers(true);
  Node raw = node_with_peers(false);
  hear_of_joins(packed, 0, 200, 0, rng);
  hear_of_joins(raw, 0, 200, 0, rng);
  // Until the queues are empty: 200 joins, each sent transmit_limit() times.
  const Sent p = gossip_for(packed, Millis{1}, 100);
  const Sent r = gossip_for(raw, Millis{1}, 100);
  MESSAGE("datagrams packed " << p.datagrams << ", raw " << r.datagrams << "; largest plain "
                              << p.largest_plain);
  REQUIRE(packed.pending_broadcasts() == 0);
  REQUIRE(raw.pending_broadcasts() == 0);
  CHECK(p.alive_parts == r.alive_parts);  // the same news, as often
  CHECK(p.alive_parts ==
        packed.counters().messages_sent[Counters::index(wire::MessageType::alive)]);
  CHECK(p.largest_on_wire <= kRoom);
  CHECK(r.largest_on_wire <= kRoom);
  CHECK(r.largest_plain <= kRoom);
  CHECK(p.largest_plain > 2 * kRoom);  // names and addresses repeat: it compresses over 2:1
  CHECK(p.datagrams * 2 < r.datagrams);
  CHECK(packed.counters().news_datagrams_split == 0);
}

TEST_CASE("news that compresses worse than the last datagrams did goes as two datagrams") {
  vigil::Rng rng(2);
  Node n = node_with_peers(true);
  hear_of_joins(n, 0, 200, 0, rng);
  const Sent before = gossip_for(n, Millis{1}, 4);  // the ratio it learns is well over 2:1
  REQUIRE(before.largest_plain > 2 * kRoom);
  // Fresh news goes first; 120 random bytes of metadata each hardly compress at all.
  hear_of_joins(n, 1000, 40, 120, rng);
  const Sent after = gossip_for(n, Millis{801}, 1);
  CHECK(n.counters().news_datagrams_split > 0);
  CHECK(after.datagrams > 3);  // three targets, and at least one of them got two datagrams
  CHECK(after.largest_on_wire <= kRoom);
  CHECK(before.alive_parts + after.alive_parts ==
        n.counters().messages_sent[Counters::index(wire::MessageType::alive)]);
}

TEST_CASE("news that fits one datagram is compressed once for all of a round's targets") {
  vigil::Rng rng(3);
  Node n = node_with_peers(true);
  hear_of_joins(n, 0, 12, 0, rng);  // about 700 bytes raw: one datagram holds it all
  const auto& sent = first_gossip_round(n);
  REQUIRE(sent.size() == 3);  // gossip_nodes targets
  CHECK(sent[0].to != sent[1].to);
  CHECK(sent[1].to != sent[2].to);
  for (const auto& d : sent) {
    CHECK(wire::is_compressed(d.bytes));
    CHECK(d.bytes == sent[0].bytes);  // the same news, so the same bytes
    auto messages = wire::decode_packet(d.bytes);
    REQUIRE(messages.ok());
    std::size_t joins = 0;
    for (const auto& m : *messages)
      joins += std::holds_alternative<wire::Alive>(m) &&
               std::get<wire::Alive>(m).node.starts_with("member-");
    CHECK(joins == 12);
  }
  CHECK(n.counters().news_compressions_reused == 2);
  CHECK(n.counters().compressed_sent == 3);  // each datagram still counts as sent compressed
}

TEST_CASE("news larger than a datagram differs per target and is compressed for each") {
  vigil::Rng rng(4);
  Node n = node_with_peers(true);
  hear_of_joins(n, 0, 200, 0, rng);
  const auto& sent = first_gossip_round(n);
  REQUIRE(sent.size() == 3);
  CHECK(sent[0].bytes != sent[1].bytes);  // each target gets the news least sent so far
  CHECK(sent[1].bytes != sent[2].bytes);
  CHECK(n.counters().news_compressions_reused == 0);
}
