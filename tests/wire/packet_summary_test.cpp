#include <vigil/wire/packet_summary.hpp>

#include <doctest/doctest.h>

#include <vigil/wire/codec.hpp>

using namespace vigil::wire;

namespace {

Bytes compound_of(const std::vector<Message>& messages) {
  std::vector<Bytes> parts;
  for (const auto& m : messages) parts.push_back(encode(m));
  return make_compound(parts).value();
}

}  // namespace

TEST_CASE("packet summary: names every kind") {
  CHECK_EQ(packet_kind_name(PacketKind::ping_req), "ping-req");
  CHECK_EQ(packet_kind_name(PacketKind::push_pull), "push-pull");
  CHECK_EQ(packet_kind_name(PacketKind::nack), "nack");
}

TEST_CASE("packet summary: a ping with piggybacked news") {
  const Bytes packet =
      compound_of({Ping{7, "node-3", {}, 0, "node-1"}, Suspect{4, "node-5", "node-1"},
                   Alive{9, "node-2", {10, 0, 0, 2}, 7946, {}, {}}});
  const PacketSummary s = summarize_datagram(packet);
  CHECK_EQ(s.kind, PacketKind::ping);
  CHECK_EQ(s.seq_no, 7u);
  CHECK_EQ(s.target, "node-3");
  CHECK_EQ(s.messages, 3u);
  REQUIRE_EQ(s.rumours.size(), 2u);
  CHECK_EQ(s.rumours[0].kind, PacketKind::suspect);
  CHECK_EQ(s.rumours[0].node, "node-5");
  CHECK_EQ(s.rumours[0].incarnation, 4u);
  CHECK_EQ(s.rumours[1].kind, PacketKind::alive);
  CHECK_EQ(s.rumours[1].incarnation, 9u);
}

TEST_CASE("packet summary: news before the request does not hide it") {
  const Bytes packet = compound_of({Dead{2, "node-4", "node-0"}, Ack{11, {}}});
  const PacketSummary s = summarize_datagram(packet);
  CHECK_EQ(s.kind, PacketKind::ack);
  CHECK_EQ(s.seq_no, 11u);
  REQUIRE_EQ(s.rumours.size(), 1u);
  CHECK_EQ(s.rumours[0].kind, PacketKind::dead);
}

TEST_CASE("packet summary: news alone takes the kind of the first item") {
  const PacketSummary s = summarize_datagram(
      compound_of({Alive{3, "node-1", {}, 0, {}, {}}, Suspect{1, "node-2", "x"}}));
  CHECK_EQ(s.kind, PacketKind::alive);
  CHECK_EQ(s.rumours.size(), 2u);
}

TEST_CASE("packet summary: a second request keeps the firsts fields") {
  const PacketSummary s = summarize_datagram(
      compound_of({IndirectPing{5, {10, 0, 0, 9}, 7946, "node-9", false, {}, 0, {}},
                   Ping{6, "node-8", {}, 0, {}}}));
  CHECK_EQ(s.kind, PacketKind::ping_req);
  CHECK_EQ(s.seq_no, 5u);
  CHECK_EQ(s.target, "node-9");
}

TEST_CASE("packet summary: compressed and checked packets are opened") {
  const Bytes inner = compound_of({Nack{3}, Suspect{2, "node-1", "node-0"}});
  const Bytes packet = add_crc(make_compressed(inner));
  const PacketSummary s = summarize_datagram(packet);
  CHECK_EQ(s.kind, PacketKind::nack);
  CHECK_EQ(s.rumours.size(), 1u);
}

TEST_CASE("packet summary: garbage is unknown and streams are push pull") {
  const Bytes junk{0xff, 0x00, 0x13};
  CHECK_EQ(summarize_datagram(junk).kind, PacketKind::unknown);
  CHECK_EQ(summarize_datagram(Bytes{}).kind, PacketKind::unknown);
  Bytes exchange;
  encode_push_pull(PushPull{}, exchange);
  CHECK_EQ(summarize_stream(exchange).kind, PacketKind::push_pull);
  CHECK_EQ(summarize_stream(junk).kind, PacketKind::unknown);
}
