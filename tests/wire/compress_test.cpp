#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include <vigil/wire/codec.hpp>
#include <vigil/wire/lzw.hpp>
#include "golden_vectors.hpp"
#include "hex.hpp"

using namespace vigil::wire;
using namespace vigil::wire::testing;

namespace {

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string packet_error(const Bytes& packet) {
  auto decoded = decode_packet(packet);
  return decoded.ok() ? std::string("(decoded)") : decoded.error().message;
}

// [9][{Algo: algo, Buf: buf}] written by hand, as Go's msgpack writes the compress struct.
Bytes compress_message(int algo, const Bytes& buf) {
  Bytes out = hex("09 82 a4 'Algo'");
  out.push_back(static_cast<std::uint8_t>(algo));
  const Bytes key = hex("a3 'Buf'");
  out.insert(out.end(), key.begin(), key.end());
  REQUIRE(buf.size() < 32);
  out.push_back(static_cast<std::uint8_t>(0xa0 | buf.size()));
  out.insert(out.end(), buf.begin(), buf.end());
  return out;
}

// The golden ping compressed: the 18 LZW bytes were computed by an independent LZW encoder (a
// few lines of Python following Go's compress/lzw writer), not by ours.
const Bytes ping_lzw = hex("00 04 95 9a 52 26 8e 93 37 01 48 21 24 53 26 94 98 80");
const Bytes compressed_ping =
    hex("09 82 a4 'Algo' 00 a3 'Buf' b2 00 04 95 9a 52 26 8e 93 37 01 48 21 24 53 26 94 98 80");

}  // namespace

TEST_CASE("a compressed ping matches the independently derived golden bytes") {
  CHECK(lzw_compress(ping_bytes) == ping_lzw);
  CHECK(make_compressed(ping_bytes) == compressed_ping);
  const auto decoded = decode_packet(compressed_ping);
  REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
  CHECK(*decoded == std::vector<Message>{ping});
}

TEST_CASE(
    "compressed compounds, under a CRC and a label, decode in full as memberlist sends them") {
  // memberlist's order: build the compound, compress it, add the CRC, then the label outside.
  const Bytes compound = *make_compound({ping_bytes, nack_bytes, ping_bytes});
  const Bytes packet = *add_label("dc1", add_crc(make_compressed(compound)));
  const auto labelled = strip_label(packet);
  REQUIRE(labelled.ok());
  CHECK(labelled->label == "dc1");
  const auto decoded = decode_packet(labelled->rest);
  REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
  CHECK(*decoded == std::vector<Message>{ping, nack, ping});
}

TEST_CASE("a compressed message may sit inside a compound, as memberlist's handler allows") {
  const Bytes packet = *make_compound({make_compressed(nack_bytes), ping_bytes});
  const auto decoded = decode_packet(packet);
  REQUIRE_MESSAGE(decoded.ok(), decoded.error().message);
  CHECK(*decoded == std::vector<Message>{nack, ping});
}

TEST_CASE("unknown fields of the compress map are skipped, missing ones are errors") {
  Bytes extra = hex("09 83 a5 'Extra' 92 01 02 a4 'Algo' 00 a3 'Buf'");
  extra.push_back(static_cast<std::uint8_t>(0xa0 | ping_lzw.size()));
  extra.insert(extra.end(), ping_lzw.begin(), ping_lzw.end());
  CHECK(packet_error(extra) == "(decoded)");
  CHECK(contains(packet_error(hex("09 81 a4 'Algo' 00")), "no Buf field"));
  CHECK(contains(packet_error(hex("09 81 a3 'Buf' a0")), "no Algo field"));
  CHECK(contains(packet_error(hex("09 80")), "no Algo field"));
  CHECK(contains(packet_error(hex("09")), "compressed message"));
}

TEST_CASE("another algorithm, a corrupt stream or a bad payload fail the packet with a reason") {
  CHECK(contains(packet_error(compress_message(1, ping_lzw)), "unknown compression algorithm 1"));
  Bytes cut = ping_lzw;
  cut.resize(cut.size() - 3);  // loses the end code
  CHECK(contains(packet_error(compress_message(0, cut)), "compressed message"));
  // Well-formed LZW around bytes that are not a message: the error says where it was found.
  const std::string inner = packet_error(make_compressed(hex("0e 80")));
  CHECK(contains(inner, "inside a compressed message"));
  CHECK(contains(inner, "unknown message type 14"));
}

TEST_CASE("a compressed bomb is refused at the size bound, not allocated") {
  // Zeros compress about 1000-fold here: a few KiB that would expand to twice the bound.
  const Bytes zeros(2 * max_decompressed_size, 0);
  const Bytes bomb = make_compressed(zeros);
  CHECK(bomb.size() < 8 * 1024);
  const std::string error = packet_error(bomb);
  CHECK(contains(error, "compressed message"));
  CHECK_FALSE(error == "(decoded)");
  // Exactly at the bound is still accepted by the decompressor itself.
  const Bytes at_bound(max_decompressed_size, 0x08);
  CHECK(lzw_decompress(lzw_compress(at_bound), max_decompressed_size).value() == at_bound);
}

TEST_CASE("compression counts towards the nesting limit like a compound level") {
  Bytes within = ping_bytes;
  for (int i = 0; i < max_compound_depth; ++i)
    within = (i % 2 == 0) ? make_compressed(within) : *make_compound({within});
  const auto ok = decode_packet(within);
  REQUIRE_MESSAGE(ok.ok(), ok.error().message);
  CHECK(*ok == std::vector<Message>{ping});
  const Bytes beyond = make_compressed(within);
  CHECK(contains(packet_error(beyond), "nested more than 4 deep"));
}

namespace {

// A user message of `size` bytes (type byte included) of one repeated byte: compresses well.
Bytes user_of_size(std::size_t size) {
  Bytes m(size, 0x61);
  m[0] = static_cast<std::uint8_t>(MessageType::user);
  return m;
}

}  // namespace

TEST_CASE("a datagram's compressed parts share one expansion budget, nested ones included") {
  // 34 compressed user messages of 1 MiB fit in one datagram: each was within the 1 MiB bound
  // on one message, 34 MiB together. The datagram budget counts them together.
  const Bytes part = make_compressed(user_of_size(max_decompressed_size));
  std::vector<Bytes> parts(34, part);
  const Bytes bomb = *make_compound(parts);
  REQUIRE(bomb.size() <= 65507);
  ExpansionBudget budget{max_datagram_expansion};
  const auto refused = decode_packet(bomb, budget);
  REQUIRE_FALSE(refused.ok());
  CHECK(budget.exceeded);
  CHECK(contains(refused.error().message, "bytes left of its budget"));
  CHECK_FALSE(decode_packet(bomb).ok());  // the default budget is the datagram's

  // Two parts of 40 KiB each: each fits alone, not both; refused whole, the first not returned.
  const Bytes forty = make_compressed(user_of_size(40 * 1024));
  ExpansionBudget both{max_datagram_expansion};
  CHECK_FALSE(decode_packet(*make_compound({forty, forty}), both).ok());
  CHECK(both.exceeded);
  ExpansionBudget one{max_datagram_expansion};
  const auto single = decode_packet(forty, one);
  REQUIRE_MESSAGE(single.ok(), single.error().message);
  CHECK(single->size() == 1);
  CHECK(one.left == max_datagram_expansion - 40 * 1024);

  // Nested: a compressed compound holding a compressed message spends both expansions.
  const Bytes inner = make_compressed(user_of_size(30 * 1024));
  const Bytes nested = make_compressed(*make_compound({inner}));
  ExpansionBudget exact{4 + inner.size() + 30 * 1024};  // compound header and length, then both
  CHECK(decode_packet(nested, exact).ok());
  CHECK(exact.left == 0);
  ExpansionBudget short_by_one{3 + inner.size() + 30 * 1024};
  CHECK_FALSE(decode_packet(nested, short_by_one).ok());
  CHECK(short_by_one.exceeded);

  // A whole datagram of plain bytes always fits: compression never lets one carry more.
  CHECK(decode_packet(make_compressed(user_of_size(65507))).ok());
}

TEST_CASE("corruption is not mistaken for a bomb") {
  Bytes cut = ping_lzw;
  cut.resize(cut.size() - 3);
  ExpansionBudget budget{max_datagram_expansion};
  CHECK_FALSE(decode_packet(compress_message(0, cut), budget).ok());
  CHECK_FALSE(budget.exceeded);
  bool over = true;
  CHECK_FALSE(lzw_decompress(cut, 1000, &over).ok());
  CHECK_FALSE(over);
  CHECK_FALSE(lzw_decompress(lzw_compress(user_of_size(1001)), 1000, &over).ok());
  CHECK(over);
  CHECK(lzw_decompress(lzw_compress(user_of_size(1000)), 1000, &over).ok());
  CHECK_FALSE(over);
}
