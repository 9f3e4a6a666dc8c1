#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <vigil/base/rng.hpp>
#include <vigil/wire/codec.hpp>
#include "golden_vectors.hpp"
#include "hex.hpp"

using namespace vigil::wire;
using vigil::Rng;
using namespace vigil::wire::testing;

namespace {

Bytes concat(std::initializer_list<Bytes> pieces) {
  Bytes out;
  for (const Bytes& piece : pieces) out.insert(out.end(), piece.begin(), piece.end());
  return out;
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string error_of(const Bytes& bytes) {
  const auto decoded = decode_message(bytes);
  return decoded.ok() ? std::string("(decoded)") : decoded.error().message;
}

// A deterministic generator of messages with awkward field values: empty, long, non-ASCII, and
// integers at each encoding boundary.
struct Generator {
  Rng rng;

  std::uint32_t u32() {
    switch (rng.below(4)) {
      case 0:
        return rng.below(130);
      case 1:
        return rng.below(70000);
      default:
        return rng.next_u32();
    }
  }
  std::uint16_t u16() {
    return static_cast<std::uint16_t>(rng.below(4) == 0 ? rng.below(300) : rng.below(65536));
  }
  bool flag() { return rng.below(2) == 1; }
  std::size_t length() {
    switch (rng.below(5)) {
      case 0:
        return 0;
      case 1:
        return rng.below(300);
      default:
        return rng.below(33);
    }
  }
  std::string text() {
    std::string s(length(), ' ');
    for (auto& c : s) c = static_cast<char>(rng.below(256));
    return s;
  }
  Bytes bytes() {
    Bytes b(length());
    for (auto& x : b) x = static_cast<std::uint8_t>(rng.below(256));
    return b;
  }

  Message message(int kind) {
    switch (kind) {
      case 0:
        return Ping{u32(), text(), bytes(), u16(), text()};
      case 1:
        return IndirectPing{u32(), bytes(), u16(), text(), flag(), bytes(), u16(), text()};
      case 2:
        return Ack{u32(), bytes()};
      case 3:
        return Nack{u32()};
      case 4:
        return ErrorResponse{text()};
      case 5:
        return Suspect{u32(), text(), text()};
      case 6:
        return Alive{u32(), text(), bytes(), u16(), bytes(), bytes()};
      case 7:
        return Dead{u32(), text(), text()};
      default:
        return User{bytes()};
    }
  }

  PushNodeState node() {
    return PushNodeState{
        text(), bytes(), u16(), bytes(), u32(), static_cast<NodeState>(rng.below(4)), bytes()};
  }
};

constexpr int message_kinds = 9;

Bytes wrap_in_compounds(Bytes inner, int levels) {
  for (int i = 0; i < levels; ++i) inner = *make_compound({inner});
  return inner;
}

}  // namespace

TEST_CASE("encode writes the hand-derived golden bytes") {
  for (const auto& golden : goldens()) {
    CAPTURE(golden.name);
    CHECK(encode(golden.message) == golden.bytes);
  }
}

TEST_CASE("encode appends to what is already in the buffer") {
  Bytes out = {0xaa};
  encode(ping, out);
  CHECK(out == concat({hex("aa"), ping_bytes}));
}

TEST_CASE("golden bytes decode back to the same structs") {
  for (const auto& golden : goldens()) {
    CAPTURE(golden.name);
    const auto decoded = decode_message(golden.bytes);
    REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
    CHECK(*decoded == golden.message);
    CHECK(type_of(*decoded) == static_cast<MessageType>(golden.bytes[0]));
  }
}

TEST_CASE("type_of gives memberlist's type numbers") {
  CHECK(type_of(Ping{}) == MessageType::ping);
  CHECK(type_of(IndirectPing{}) == MessageType::indirect_ping);
  CHECK(type_of(Ack{}) == MessageType::ack);
  CHECK(type_of(Nack{}) == MessageType::nack);
  CHECK(type_of(ErrorResponse{}) == MessageType::err);
  CHECK(type_of(Suspect{}) == MessageType::suspect);
  CHECK(type_of(Alive{}) == MessageType::alive);
  CHECK(type_of(Dead{}) == MessageType::dead);
  CHECK(type_of(User{}) == MessageType::user);
}

TEST_CASE("compound, CRC and label framings match their golden bytes") {
  const auto compound = make_compound({ping_bytes, nack_bytes});
  REQUIRE(compound.ok());
  // 16-byte ping and 10-byte nack.
  CHECK(*compound == concat({hex("07 02 00 10 00 0a"), ping_bytes, nack_bytes}));

  // The checksum constant comes from an independent implementation (Python's zlib.crc32).
  const Bytes crc = add_crc(ping_bytes);
  CHECK(crc == concat({hex("0c 47 3c df fa"), ping_bytes}));

  const auto labelled = add_label("dc1", ping_bytes);
  REQUIRE(labelled.ok());
  CHECK(*labelled == concat({hex("f4 03 'dc1'"), ping_bytes}));

  const auto decoded = decode_packet(*compound);
  REQUIRE(decoded.ok());
  REQUIRE(decoded->size() == 2);
  CHECK((*decoded)[0] == Message{ping});
  CHECK((*decoded)[1] == Message{nack});

  const auto unwrapped = decode_packet(crc);
  REQUIRE(unwrapped.ok());
  CHECK(*unwrapped == std::vector<Message>{ping});

  const auto stripped = strip_label(*labelled);
  REQUIRE(stripped.ok());
  CHECK(stripped->label == "dc1");
  CHECK(Bytes(stripped->rest.begin(), stripped->rest.end()) == ping_bytes);
}

TEST_CASE("a labelled, checksummed compound packet decodes in full") {
  const Bytes packet = *add_label("prod", add_crc(*make_compound({ping_bytes, nack_bytes})));
  const auto stripped = strip_label(packet);
  REQUIRE(stripped.ok());
  CHECK(stripped->label == "prod");
  const auto decoded = decode_packet(stripped->rest);
  REQUIRE(decoded.ok());
  CHECK(*decoded == std::vector<Message>{ping, nack});
}

TEST_CASE("decoding accepts what Go may send but we never write") {
  SUBCASE("keys in another order, str8 node, int32 SeqNo") {
    const auto decoded = decode_message(hex("00 82 a4 'Node' d9 01 'b' a5 'SeqNo' d2 00 00 00 01"));
    REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
    CHECK(*decoded == Message{ping});
  }
  SUBCASE("bin8 and bin16 bytes, nil Meta, an unknown key holding a nested map") {
    const Bytes bytes =
        hex("04 87 a3 'Vsn' c5 00 06 01 05 02 02 05 05"
            " a5 'Extra' 82 a1 'a' 92 01 cb 40 04 00 00 00 00 00 00 a1 'b' 81 a0 c0"
            " a4 'Addr' c4 04 7f 00 00 01 a4 'Meta' c0 a4 'Node' d9 02 'n1' a4 'Port' cd 1f 0a"
            " ab 'Incarnation' 01");
    const auto decoded = decode_message(bytes);
    REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
    CHECK(*decoded == Message{Alive{.incarnation = 1,
                                    .node = "n1",
                                    .addr = {127, 0, 0, 1},
                                    .port = 7946,
                                    .meta = {},
                                    .vsn = {1, 5, 2, 2, 5, 5}}});
  }
  SUBCASE("Vsn as an array of small integers") {
    const auto decoded = decode_message(hex("04 81 a3 'Vsn' 96 01 05 02 02 05 05"));
    REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
    CHECK(std::get<Alive>(*decoded).vsn == Bytes{1, 5, 2, 2, 5, 5});
  }
  SUBCASE("str32 and bin32 strings, and integers in wider forms than needed") {
    const auto decoded = decode_message(
        hex("01 84 a6 'Target' c6 00 00 00 04 0a 00 00 02 a4 'Node' db 00 00 00 01 'c'"
            " a4 'Port' cf 00 00 00 00 00 00 1f 0a a5 'SeqNo' d3 00 00 00 00 00 00 01 2c"));
    REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
    CHECK(*decoded == Message{IndirectPing{.seq_no = 300,
                                           .target = {10, 0, 0, 2},
                                           .port = 7946,
                                           .node = "c",
                                           .nack = false,
                                           .source_addr = {},
                                           .source_port = 0,
                                           .source_node = ""}});
  }
  SUBCASE("missing keys keep their defaults") {
    CHECK(*decode_message(hex("02 80")) == Message{Ack{}});
    CHECK(*decode_message(hex("03 81 a4 'Node' a1 'z'")) ==
          Message{Suspect{.incarnation = 0, .node = "z", .from = ""}});
  }
  SUBCASE("a repeated key takes its last value, as Go's decoder does") {
    CHECK(*decode_message(hex("0b 82 a5 'SeqNo' 01 a5 'SeqNo' 02")) == Message{Nack{2}});
  }
  SUBCASE("nil for strings and bytes of every field") {
    const auto decoded = decode_message(hex("03 83 ab 'Incarnation' 00 a4 'Node' c0 a4 'From' c0"));
    REQUIRE(decoded.ok());
    CHECK(*decoded == Message{Suspect{}});
  }
}

TEST_CASE("every message type survives a round trip with random field values") {
  Generator gen{Rng(7)};
  for (int i = 0; i < 200; ++i) {
    for (int kind = 0; kind < message_kinds; ++kind) {
      const Message original = gen.message(kind);
      const Bytes bytes = encode(original);
      const auto decoded = decode_message(bytes);
      REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
      CHECK(*decoded == original);
      const auto packet = decode_packet(add_crc(bytes));
      REQUIRE(packet.ok());
      REQUIRE(packet->size() == 1);
      CHECK(packet->front() == original);
    }
  }
}

TEST_CASE("random compound packets round trip through every framing") {
  Generator gen{Rng(11)};
  for (int i = 0; i < 200; ++i) {
    std::vector<Message> originals;
    std::vector<Bytes> parts;
    const auto count = gen.rng.below(8);
    for (std::uint32_t p = 0; p < count; ++p) {
      originals.push_back(gen.message(static_cast<int>(gen.rng.below(message_kinds))));
      parts.push_back(encode(originals.back()));
    }
    Bytes packet = *make_compound(parts);
    if (gen.flag()) packet = add_crc(packet);
    const std::string label = gen.flag() ? std::string(1 + gen.rng.below(255), 'L') : "";
    packet = *add_label(label, packet);

    const auto stripped = strip_label(packet);
    REQUIRE(stripped.ok());
    CHECK(stripped->label == label);
    const auto decoded = decode_packet(stripped->rest);
    REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
    CHECK(*decoded == originals);
  }
}

TEST_CASE("wrong value types fail with a message naming the key") {
  CHECK(
      contains(error_of(hex("00 82 a5 'SeqNo' 01 a4 'Node' 05")), "Ping.Node: expected a string"));
  CHECK(contains(error_of(hex("00 81 a5 'SeqNo' a1 'x'")), "Ping.SeqNo: expected an integer"));
  CHECK(contains(error_of(hex("01 81 a4 'Nack' 01")), "IndirectPing.Nack: expected a boolean"));
  CHECK(contains(error_of(hex("02 81 a7 'Payload' 92 01 02")), "Ack.Payload"));
  CHECK(contains(error_of(hex("04 81 a4 'Meta' 80")), "Alive.Meta"));
  CHECK(contains(error_of(hex("0d 81 a5 'Error' c3")), "ErrorResponse.Error"));
  CHECK(contains(error_of(hex("05 81 a4 'From' 01")), "Dead.From"));
  CHECK(contains(error_of(hex("00 91 01")), "Ping: expected a map"));
  CHECK(contains(error_of(hex("00 81 01 01")), "Ping key 1: expected a string"));
}

TEST_CASE("integers outside a field's range are rejected") {
  const std::string seq = error_of(hex("00 81 a5 'SeqNo' cf 00 00 00 01 00 00 00 00"));
  CHECK(contains(seq, "Ping.SeqNo"));
  CHECK(contains(seq, "4294967296"));
  CHECK(contains(seq, "out of range"));
  const std::string port = error_of(hex("04 81 a4 'Port' ce 00 01 11 70"));
  CHECK(contains(port, "Alive.Port"));
  CHECK(contains(port, "70000"));
  CHECK(contains(error_of(hex("03 81 ab 'Incarnation' ff")), "Suspect.Incarnation"));
  CHECK(contains(error_of(hex("04 81 a3 'Vsn' 91 cd 01 00")), "Alive.Vsn"));
}

TEST_CASE("types that are not single messages are rejected by number") {
  CHECK(contains(error_of(hex("06 80")), "message type 6 (push_pull)"));
  CHECK(contains(error_of(hex("07 00")), "message type 7 (compound)"));
  CHECK(contains(error_of(hex("09 80")), "message type 9 (compress)"));
  CHECK(contains(error_of(hex("0a 80")), "message type 10 (encrypt)"));
  CHECK(contains(error_of(hex("0c 00 00 00 00")), "message type 12 (has_crc)"));
  CHECK(contains(error_of(hex("f4 01 'x'")), "message type 244 (has_label)"));
  CHECK(contains(error_of(hex("0e 80")), "unknown message type 14"));
  CHECK(contains(error_of(hex("ff")), "unknown message type 255"));
  CHECK(error_of({}) == "empty message");
}

TEST_CASE("bytes after a message's map are rejected") {
  CHECK(contains(error_of(concat({ping_bytes, hex("00")})), "1 unexpected bytes"));
}

TEST_CASE("every prefix of a valid encoding is rejected") {
  std::vector<Bytes> encodings;
  for (const auto& golden : goldens())
    if (golden.bytes[0] != static_cast<std::uint8_t>(MessageType::user))  // any prefix is a User
      encodings.push_back(golden.bytes);
  encodings.push_back(*make_compound({ping_bytes, nack_bytes}));
  encodings.push_back(add_crc(ping_bytes));
  encodings.push_back(add_crc(*make_compound({ping_bytes, nack_bytes})));
  encodings.push_back(wrap_in_compounds(ping_bytes, 3));
  for (const Bytes& full : encodings) {
    for (std::size_t n = 0; n < full.size(); ++n) {
      const std::span<const std::uint8_t> prefix(full.data(), n);
      CAPTURE(n);
      CHECK_FALSE(decode_message(prefix).ok());
      CHECK_FALSE(decode_packet(prefix).ok());
    }
    CHECK(decode_packet(full).ok());
  }
  const Bytes labelled = *add_label("abc", ping_bytes);
  for (std::size_t n = 0; n < labelled.size(); ++n) {
    const auto stripped = strip_label(std::span<const std::uint8_t>(labelled.data(), n));
    CHECK_FALSE((stripped.ok() && decode_packet(stripped->rest).ok()));
  }
}

TEST_CASE("random bytes never crash a decoder") {
  Rng rng(2024);
  int decoded = 0;
  for (int i = 0; i < 20000; ++i) {
    Bytes bytes(rng.below(65));
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng.next_u32());
    // Half the time start with a real type byte, so the map decoders are reached.
    if (!bytes.empty() && rng.below(2) == 0) bytes[0] = static_cast<std::uint8_t>(rng.below(14));
    const auto message = decode_message(bytes);
    const auto packet = decode_packet(bytes);
    const auto push_pull = decode_push_pull(bytes);
    const auto stripped = strip_label(bytes);
    decoded += message.ok() + packet.ok() + push_pull.ok() + stripped.ok();
  }
  CHECK(decoded > 0);
}

TEST_CASE("mutated valid packets never crash, and whatever decodes re-encodes stably") {
  Generator gen{Rng(5)};
  Rng rng(6);
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    std::vector<Bytes> parts;
    for (std::uint32_t p = 0; p < 1 + gen.rng.below(3); ++p)
      parts.push_back(encode(gen.message(static_cast<int>(gen.rng.below(message_kinds)))));
    Bytes packet = parts.size() == 1 ? parts[0] : *make_compound(parts);
    for (std::uint32_t m = 0; m < 1 + rng.below(3); ++m) {
      if (packet.empty()) break;
      const auto at = rng.below(static_cast<std::uint32_t>(packet.size()));
      switch (rng.below(3)) {
        case 0:
          packet[at] = static_cast<std::uint8_t>(rng.next_u32());
          break;
        case 1:
          packet.erase(packet.begin() + at);
          break;
        default:
          packet.insert(packet.begin() + at, static_cast<std::uint8_t>(rng.next_u32()));
      }
    }
    const auto decoded = decode_packet(packet);
    if (!decoded.ok()) continue;
    ++accepted;
    for (const Message& message : *decoded) {
      const auto again = decode_message(encode(message));
      REQUIRE(again.ok());
      CHECK(*again == message);
    }
  }
  CHECK(accepted > 0);
}

TEST_CASE("a huge claimed string length fails without allocating") {
  const std::string error = error_of(hex("00 81 a4 'Node' db ff ff ff ff 'b'"));
  CHECK(contains(error, "Ping.Node"));
  CHECK(contains(error, "4294967295 bytes"));
  CHECK_FALSE(decode_message(hex("00 df ff ff ff ff a1 'x' 01")).ok());
}

TEST_CASE("split_compound follows memberlist's rules") {
  SUBCASE("a missing count or length table is an error") {
    CHECK_FALSE(split_compound({}).ok());
    const Bytes short_table = hex("02 00 10 00");
    CHECK_FALSE(split_compound(short_table).ok());
  }
  SUBCASE("zero parts is fine") {
    const Bytes empty = hex("00");
    const auto split = split_compound(empty);
    REQUIRE(split.ok());
    CHECK(split->parts.empty());
    CHECK(split->truncated == 0);
    CHECK(decode_packet(hex("07 00"))->empty());
  }
  SUBCASE("a part cut off is counted with all later ones, not an error") {
    Bytes compound = *make_compound({ping_bytes, nack_bytes, ping_bytes});
    compound.resize(compound.size() - 20);  // cuts into the nack
    const auto split = split_compound(std::span<const std::uint8_t>(compound).subspan(1));
    REQUIRE(split.ok());
    REQUIRE(split->parts.size() == 1);
    CHECK(Bytes(split->parts[0].begin(), split->parts[0].end()) == ping_bytes);
    CHECK(split->truncated == 2);
    const auto decoded = decode_packet(compound);
    REQUIRE_FALSE(decoded.ok());
    CHECK(contains(decoded.error().message, "compound part 2 of 3 is truncated"));
  }
  SUBCASE("bytes after the last part are ignored, as memberlist does") {
    const Bytes compound = concat({*make_compound({nack_bytes}), hex("ff ff")});
    CHECK(*decode_packet(compound) == std::vector<Message>{nack});
  }
}

TEST_CASE("make_compound refuses what its header cannot describe") {
  CHECK(make_compound(std::vector<Bytes>(255, nack_bytes)).ok());
  CHECK_FALSE(make_compound(std::vector<Bytes>(256, nack_bytes)).ok());
  CHECK(make_compound({Bytes(65535, 8)}).ok());
  const auto too_big = make_compound({nack_bytes, Bytes(65536, 8)});
  REQUIRE_FALSE(too_big.ok());
  CHECK(contains(too_big.error().message, "part 2"));
}

TEST_CASE("a bad part fails the whole packet and is named") {
  const Bytes bad = hex("00 81 a4 'Node' 05");
  const auto decoded = decode_packet(*make_compound({ping_bytes, bad}));
  REQUIRE_FALSE(decoded.ok());
  CHECK(contains(decoded.error().message, "compound part 2 of 2: Ping.Node"));
  const auto empty_part = decode_packet(*make_compound({ping_bytes, {}}));
  REQUIRE_FALSE(empty_part.ok());
  CHECK(contains(empty_part.error().message, "compound part 2 of 2: empty message"));
}

TEST_CASE("compounds nest up to the depth limit and no further") {
  const auto within = decode_packet(wrap_in_compounds(ping_bytes, max_compound_depth));
  REQUIRE_MESSAGE(within.ok(), within.error().message);
  CHECK(*within == std::vector<Message>{ping});
  const auto beyond = decode_packet(wrap_in_compounds(ping_bytes, max_compound_depth + 1));
  REQUIRE_FALSE(beyond.ok());
  CHECK(contains(beyond.error().message, "nested more than 4 deep"));
}

TEST_CASE("the CRC wrapper is verified and only valid outermost") {
  Bytes packet = add_crc(ping_bytes);
  packet.back() ^= 0x01;
  const auto flipped = decode_packet(packet);
  REQUIRE_FALSE(flipped.ok());
  CHECK(contains(flipped.error().message, "CRC mismatch"));
  Bytes bad_sum = add_crc(ping_bytes);
  bad_sum[1] ^= 0x80;
  CHECK_FALSE(decode_packet(bad_sum).ok());
  CHECK_FALSE(decode_packet(hex("0c 00 00 00")).ok());
  CHECK_FALSE(decode_packet(add_crc(add_crc(ping_bytes))).ok());
  CHECK_FALSE(decode_packet(*make_compound({add_crc(ping_bytes)})).ok());
  CHECK_FALSE(decode_packet({}).ok());
}

TEST_CASE("labels: adding, stripping and malformed headers") {
  const auto unchanged = add_label("", ping_bytes);
  REQUIRE(unchanged.ok());
  CHECK(*unchanged == ping_bytes);
  CHECK(add_label(std::string(255, 'a'), ping_bytes).ok());
  CHECK_FALSE(add_label(std::string(256, 'a'), ping_bytes).ok());

  const auto plain = strip_label(ping_bytes);
  REQUIRE(plain.ok());
  CHECK(plain->label.empty());
  CHECK(plain->rest.size() == ping_bytes.size());
  const auto nothing = strip_label({});
  REQUIRE(nothing.ok());
  CHECK(nothing->rest.empty());

  CHECK_FALSE(strip_label(hex("f4")).ok());
  CHECK_FALSE(strip_label(hex("f4 00 00")).ok());
  CHECK_FALSE(strip_label(hex("f4 05 'abcd'")).ok());
  const auto only_label = strip_label(hex("f4 02 'ab'"));
  REQUIRE(only_label.ok());
  CHECK(only_label->label == "ab");
  CHECK(only_label->rest.empty());
}

TEST_CASE("push-pull matches its golden bytes") {
  const PushPull push_pull = golden_push_pull();
  const Bytes expected = golden_push_pull_bytes();
  Bytes out;
  encode_push_pull(push_pull, out);
  CHECK(out == expected);
  const auto decoded = decode_push_pull(expected);
  REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
  CHECK(*decoded == push_pull);
}

TEST_CASE("push-pull round trips with three nodes and user state, and with join") {
  Generator gen{Rng(3)};
  for (const bool join : {false, true}) {
    PushPull original{
        .join = join, .nodes = {gen.node(), gen.node(), gen.node()}, .user_state = gen.bytes()};
    original.user_state.push_back(0x42);  // never empty, so every prefix is short
    Bytes bytes;
    encode_push_pull(original, bytes);
    const auto decoded = decode_push_pull(bytes);
    REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
    CHECK(*decoded == original);
    for (std::size_t n = 0; n < bytes.size(); ++n)
      CHECK_FALSE(decode_push_pull(std::span<const std::uint8_t>(bytes.data(), n)).ok());
  }
  for (int i = 0; i < 200; ++i) {
    PushPull original{.join = gen.flag(), .nodes = {}, .user_state = gen.bytes()};
    for (std::uint32_t n = 0; n < gen.rng.below(5); ++n) original.nodes.push_back(gen.node());
    Bytes bytes;
    encode_push_pull(original, bytes);
    CHECK(*decode_push_pull(bytes) == original);
  }
}

TEST_CASE("push-pull decoding rejects forged counts and states") {
  SUBCASE("a million nodes in twenty bytes fails at once") {
    Bytes bytes = hex("06 81 a5 'Nodes' ce 00 0f 42 40");
    bytes.resize(20, 0x80);
    const auto decoded = decode_push_pull(bytes);
    REQUIRE_FALSE(decoded.ok());
    CHECK(contains(decoded.error().message, "1000000 node states cannot fit"));
  }
  SUBCASE("a negative count") {
    CHECK(contains(decode_push_pull(hex("06 81 a5 'Nodes' ff")).error().message,
                   "PushPullHeader.Nodes"));
  }
  SUBCASE("state 7") {
    const auto decoded =
        decode_push_pull(hex("06 82 a5 'Nodes' 01 ac 'UserStateLen' 00 81 a5 'State' 07"));
    REQUIRE_FALSE(decoded.ok());
    CHECK(contains(decoded.error().message, "node 1 of 1: PushNodeState.State: 7"));
  }
  SUBCASE("more user state claimed than present") {
    const auto decoded = decode_push_pull(hex("06 81 ac 'UserStateLen' 03 'ab'"));
    REQUIRE_FALSE(decoded.ok());
    CHECK(contains(decoded.error().message, "UserStateLen"));
  }
  SUBCASE("less user state claimed than present takes exactly the claim") {
    const auto decoded = decode_push_pull(hex("06 81 ac 'UserStateLen' 01 'ab'"));
    REQUIRE(decoded.ok());
    CHECK(decoded->user_state == Bytes{'a'});
  }
  SUBCASE("the wrong type byte, or none") {
    CHECK(contains(decode_push_pull(ping_bytes).error().message, "message type 0 (ping)"));
    CHECK_FALSE(decode_push_pull({}).ok());
  }
  SUBCASE("node states Go may write differently") {
    const auto decoded =
        decode_push_pull(hex("06 82 ac 'UserStateLen' 00 a5 'Nodes' 01"
                             " 83 a3 'Vsn' 93 01 02 03 a5 'State' d0 03 a5 'Other' 90"));
    REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
    REQUIRE(decoded->nodes.size() == 1);
    CHECK(decoded->nodes[0].vsn == Bytes{1, 2, 3});
    CHECK(decoded->nodes[0].state == NodeState::left);
  }
}
