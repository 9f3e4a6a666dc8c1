#include <doctest/doctest.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include <vigil/wire/crc32.hpp>

using vigil::wire::crc32_ieee;

namespace {

std::uint32_t crc_of(std::string_view text) {
  const std::vector<std::uint8_t> bytes(text.begin(), text.end());
  return crc32_ieee(bytes);
}

}  // namespace

TEST_CASE("crc32_ieee gives the standard check value") {
  // The catalogued check value of CRC-32/ISO-HDLC, the variant zlib and Go's ChecksumIEEE use.
  CHECK(crc_of("123456789") == 0xCBF43926u);
}

TEST_CASE("crc32_ieee matches zlib on other inputs") {
  // Reference values from Python's zlib.crc32.
  CHECK(crc_of("") == 0u);
  CHECK(crc_of("a") == 0xE8B7BE43u);
  CHECK(crc_of("The quick brown fox jumps over the lazy dog") == 0x414FA339u);
  std::vector<std::uint8_t> every_byte;
  for (int round = 0; round < 4; ++round)
    for (int b = 0; b < 256; ++b) every_byte.push_back(static_cast<std::uint8_t>(b));
  CHECK(crc32_ieee(every_byte) == 0xB70B4C26u);
}

TEST_CASE("crc32_ieee notices a single flipped bit") {
  std::vector<std::uint8_t> data(100, 0x5a);
  const auto original = crc32_ieee(data);
  for (std::size_t i = 0; i < data.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      data[i] ^= static_cast<std::uint8_t>(1u << bit);
      CHECK(crc32_ieee(data) != original);
      data[i] ^= static_cast<std::uint8_t>(1u << bit);
    }
  }
  CHECK(crc32_ieee(data) == original);
}
