#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <vigil/base/rng.hpp>
#include <vigil/wire/lzw.hpp>
#include "hex.hpp"

using vigil::wire::Bytes;
using vigil::wire::lzw_compress;
using vigil::wire::lzw_decompress;
using vigil::wire::testing::hex;

namespace {

Bytes bytes_of(std::string_view text) {
  return Bytes(text.begin(), text.end());
}

constexpr std::size_t kPlenty = 1 << 24;

Bytes random_bytes(std::size_t n, std::uint32_t seed, int alphabet) {
  vigil::Rng rng(seed);
  Bytes out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng.uniform() * alphabet);
  return out;
}

}  // namespace

// Vectors from the test table of Go's compress/lzw (LSB order, 8-bit literals), the encoder
// memberlist uses: matching them byte for byte is what lets vigil read what Serf sends.
TEST_CASE("lzw matches Go's compress/lzw on its test vectors") {
  const Bytes tobe = bytes_of("TOBEORNOTTOBEORTOBEORNOT");
  const Bytes tobe_lzw = hex("54 9e 08 29 f2 44 8a 93 27 54 04 12 34 b8 b0 e0 c1 84 01 01");
  CHECK(lzw_compress(tobe) == tobe_lzw);
  CHECK(lzw_decompress(tobe_lzw, kPlenty).value() == tobe);

  CHECK(lzw_compress({}) == hex("01 01"));
  CHECK(lzw_decompress(hex("01 01"), kPlenty).value().empty());

  // A GIF stream that starts with a clear code, which Go's encoder never writes but its decoder
  // (and ours) accepts.
  const Bytes gif = hex("00 51 fc 1b 28 70 a0 c1 83 01 01");
  CHECK(lzw_decompress(gif, kPlenty).value() ==
        hex("28 ff ff ff 28 ff ff ff ff ff ff ff ff ff ff"));
}

TEST_CASE("lzw rejects a stream cut before its end code") {
  const auto cut = lzw_decompress(hex("54 9e 08 29 f2 44 8a 93 27 54 04"), kPlenty);
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error().message.find("end code") != std::string::npos);
}

TEST_CASE("lzw rejects a code that is not yet defined") {
  // 9-bit codes, LSB first: 'A' (65) then 300, which cannot follow a single literal.
  const std::uint32_t bits = 65u | (300u << 9);
  const Bytes stream = {static_cast<std::uint8_t>(bits), static_cast<std::uint8_t>(bits >> 8),
                        static_cast<std::uint8_t>(bits >> 16)};
  const auto r = lzw_decompress(stream, kPlenty);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("invalid code 300") != std::string::npos);
}

TEST_CASE("lzw bounds its output") {
  const Bytes zeros(100000, 0);
  const Bytes packed = lzw_compress(zeros);
  CHECK(packed.size() < 1000);  // runs compress to about sqrt(2n) codes
  CHECK(lzw_decompress(packed, zeros.size()).value() == zeros);
  const auto capped = lzw_decompress(packed, zeros.size() - 1);
  REQUIRE_FALSE(capped.ok());
  CHECK(capped.error().message.find("larger than") != std::string::npos);
}

TEST_CASE("lzw round-trips data that fills the table and starts over") {
  // Random bytes define a new code for almost every input byte, so 20,000 of them pass code
  // 4095 several times; a small alphabet exercises long matches and the code == next case.
  for (const auto& size_alphabet : std::vector<std::pair<std::size_t, int>>{
           {1, 256}, {2, 256}, {255, 2}, {4096, 256}, {20000, 256}, {50000, 3}, {200000, 17}}) {
    const std::size_t n = size_alphabet.first;
    const int alphabet = size_alphabet.second;
    const Bytes in = random_bytes(n, static_cast<std::uint32_t>(n * 31 + alphabet), alphabet);
    const Bytes packed = lzw_compress(in);
    const auto out = lzw_decompress(packed, in.size());
    REQUIRE_MESSAGE(out.ok(), n, " bytes over ", alphabet, " symbols: ", out.error().message);
    CHECK(out.value() == in);
  }
}

TEST_CASE("lzw decoding is total on garbage") {
  vigil::Rng rng(9);
  int decoded = 0;
  for (int i = 0; i < 5000; ++i) {
    const Bytes junk =
        random_bytes(1 + static_cast<std::size_t>(rng.uniform() * 300), 1000u + i, 256);
    const auto r = lzw_decompress(junk, 4096);
    if (r.ok()) {
      ++decoded;
      CHECK(r.value().size() <= 4096);
    }
  }
  // Most garbage hits an undefined code or runs out before an end code.
  CHECK(decoded < 5000);
}

TEST_CASE("a reused encoder writes what a fresh one writes, across generations") {
  // The dictionary is reset by a 16-bit generation stamp and truly cleared when it wraps: the
  // 70,000 calls below cross the wrap, and each output must equal a fresh encoder's.
  vigil::wire::LzwEncoder reused;
  vigil::Rng rng(21);
  for (std::uint32_t call = 0; call < 70000; ++call) {
    // Mostly small inputs (the wrap comes soon), now and then one that fills the table.
    const std::size_t n =
        call % 5000 == 7 ? 30000 : 1 + static_cast<std::size_t>(rng.uniform() * 80);
    const Bytes in = random_bytes(n, call, call % 3 == 0 ? 256 : 4);
    Bytes mine;
    reused.compress(in, mine);
    const bool sampled = call % 997 == 0 || (call >= 65520 && call <= 65550) || n > 80;
    if (sampled) {
      vigil::wire::LzwEncoder fresh;
      Bytes theirs;
      fresh.compress(in, theirs);
      REQUIRE_MESSAGE(mine == theirs, "call ", call, ", ", n, " bytes");
    }
    REQUIRE_MESSAGE(lzw_decompress(mine, in.size()).value() == in, "call ", call);
  }
}

TEST_CASE("the dictionary sized to each input round-trips at every size boundary") {
  // The table used is twice the codes an input can define, at least 1,024 slots: random bytes
  // define a code for nearly every byte, so the sizes just below each doubling fill it half
  // way. One encoder takes them in turn, large after small, so that each call's smaller table
  // sits among the stale slots of a larger one.
  vigil::wire::LzwEncoder encoder;
  for (int round = 0; round < 2; ++round)
    for (const std::size_t n : {511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4094, 4095, 4096,
                                4097, 8191, 3, 1400}) {
      const Bytes in = random_bytes(n, static_cast<std::uint32_t>(n * 7 + round), 256);
      Bytes packed;
      encoder.compress(in, packed);
      const auto out = lzw_decompress(packed, in.size());
      REQUIRE_MESSAGE(out.ok(), n, " bytes: ", out.error().message);
      CHECK_MESSAGE(out.value() == in, n, " bytes");
    }
}

TEST_CASE("compress appends to what the buffer already holds") {
  vigil::wire::LzwEncoder encoder;
  Bytes out = {0xaa, 0xbb};
  encoder.compress(bytes_of("TOBEORNOTTOBEORTOBEORNOT"), out);
  CHECK(out == hex("aa bb 54 9e 08 29 f2 44 8a 93 27 54 04 12 34 b8 b0 e0 c1 84 01 01"));
}
