#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <vigil/base/rng.hpp>
#include <vigil/wire/msgpack.hpp>
#include "hex.hpp"

using vigil::wire::Bytes;
using vigil::wire::msgpack::Kind;
using vigil::wire::msgpack::Reader;
using vigil::wire::msgpack::Writer;
using vigil::wire::testing::hex;

namespace {

template <typename F>
Bytes written(F write) {
  Bytes out;
  Writer w(out);
  write(w);
  return out;
}

Bytes uint_bytes(std::uint64_t v) {
  return written([&](Writer& w) { w.write_uint(v); });
}

Bytes int_bytes(std::int64_t v) {
  return written([&](Writer& w) { w.write_int(v); });
}

Bytes string_bytes(const std::string& s) {
  return written([&](Writer& w) { w.write_string(s); });
}

// A header followed by `n` filler bytes.
Bytes with_body(Bytes header, std::size_t n, std::uint8_t filler = 'x') {
  header.insert(header.end(), n, filler);
  return header;
}

template <typename T>
vigil::Result<T> read_as(const Bytes& bytes) {
  Reader r(bytes);
  return r.read_int<T>();
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("write_uint picks the smallest big-endian form") {
  CHECK(uint_bytes(0) == hex("00"));
  CHECK(uint_bytes(127) == hex("7f"));
  CHECK(uint_bytes(128) == hex("cc 80"));
  CHECK(uint_bytes(255) == hex("cc ff"));
  CHECK(uint_bytes(256) == hex("cd 01 00"));
  CHECK(uint_bytes(7946) == hex("cd 1f 0a"));
  CHECK(uint_bytes(65535) == hex("cd ff ff"));
  CHECK(uint_bytes(65536) == hex("ce 00 01 00 00"));
  CHECK(uint_bytes(4294967295u) == hex("ce ff ff ff ff"));
  CHECK(uint_bytes(4294967296u) == hex("cf 00 00 00 01 00 00 00 00"));
  CHECK(uint_bytes(std::numeric_limits<std::uint64_t>::max()) == hex("cf ff ff ff ff ff ff ff ff"));
}

TEST_CASE("write_int writes non-negative values as unsigned and negatives in the smallest form") {
  CHECK(int_bytes(0) == hex("00"));
  CHECK(int_bytes(127) == hex("7f"));
  CHECK(int_bytes(200) == hex("cc c8"));
  CHECK(int_bytes(70000) == hex("ce 00 01 11 70"));
  CHECK(int_bytes(-1) == hex("ff"));
  CHECK(int_bytes(-32) == hex("e0"));
  CHECK(int_bytes(-33) == hex("d0 df"));
  CHECK(int_bytes(-128) == hex("d0 80"));
  CHECK(int_bytes(-129) == hex("d1 ff 7f"));
  CHECK(int_bytes(-32768) == hex("d1 80 00"));
  CHECK(int_bytes(-32769) == hex("d2 ff ff 7f ff"));
  CHECK(int_bytes(std::numeric_limits<std::int32_t>::min()) == hex("d2 80 00 00 00"));
  CHECK(int_bytes(std::numeric_limits<std::int64_t>::min()) == hex("d3 80 00 00 00 00 00 00 00"));
}

TEST_CASE("nil and booleans") {
  CHECK(written([](Writer& w) { w.write_nil(); }) == hex("c0"));
  CHECK(written([](Writer& w) { w.write_bool(false); }) == hex("c2"));
  CHECK(written([](Writer& w) { w.write_bool(true); }) == hex("c3"));
}

TEST_CASE("strings are old-spec raw: fixstr, then 0xda, then 0xdb, never 0xd9") {
  CHECK(string_bytes("") == hex("a0"));
  CHECK(string_bytes("Node") == hex("a4 'Node'"));
  CHECK(string_bytes(std::string(31, 'x')) == with_body(hex("bf"), 31));
  CHECK(string_bytes(std::string(32, 'x')) == with_body(hex("da 00 20"), 32));
  CHECK(string_bytes(std::string(255, 'x')) == with_body(hex("da 00 ff"), 255));
  CHECK(string_bytes(std::string(65535, 'x')) == with_body(hex("da ff ff"), 65535));
  CHECK(string_bytes(std::string(65536, 'x')) == with_body(hex("db 00 01 00 00"), 65536));
}

TEST_CASE("byte arrays are raw strings too, and an empty one is nil") {
  const Bytes addr = {127, 0, 0, 1};
  CHECK(written([&](Writer& w) { w.write_bytes(addr); }) == hex("a4 7f 00 00 01"));
  CHECK(written([](Writer& w) { w.write_bytes({}); }) == hex("c0"));
  const Bytes big(40, 0xee);
  CHECK(written([&](Writer& w) { w.write_bytes(big); }) == with_body(hex("da 00 28"), 40, 0xee));
}

TEST_CASE("map and array headers") {
  CHECK(written([](Writer& w) { w.write_map_header(0); }) == hex("80"));
  CHECK(written([](Writer& w) { w.write_map_header(15); }) == hex("8f"));
  CHECK(written([](Writer& w) { w.write_map_header(16); }) == hex("de 00 10"));
  CHECK(written([](Writer& w) { w.write_map_header(65536); }) == hex("df 00 01 00 00"));
  CHECK(written([](Writer& w) { w.write_array_header(0); }) == hex("90"));
  CHECK(written([](Writer& w) { w.write_array_header(15); }) == hex("9f"));
  CHECK(written([](Writer& w) { w.write_array_header(16); }) == hex("dc 00 10"));
  CHECK(written([](Writer& w) { w.write_array_header(65536); }) == hex("dd 00 01 00 00"));
}

TEST_CASE("read_int reads every integer format") {
  CHECK(*read_as<std::uint32_t>(hex("05")) == 5u);
  CHECK(*read_as<std::uint32_t>(hex("cc c8")) == 200u);
  CHECK(*read_as<std::uint32_t>(hex("cd 1f 0a")) == 7946u);
  CHECK(*read_as<std::uint32_t>(hex("ce 00 01 11 70")) == 70000u);
  CHECK(*read_as<std::uint32_t>(hex("cf 00 00 00 00 ff ff ff ff")) == 4294967295u);
  CHECK(*read_as<std::uint32_t>(hex("d0 05")) == 5u);
  CHECK(*read_as<std::uint32_t>(hex("d1 01 00")) == 256u);
  CHECK(*read_as<std::uint32_t>(hex("d2 00 00 00 05")) == 5u);
  CHECK(*read_as<std::uint32_t>(hex("d3 00 00 00 00 00 00 00 07")) == 7u);
  CHECK(*read_as<std::int64_t>(hex("ff")) == -1);
  CHECK(*read_as<std::int64_t>(hex("e0")) == -32);
  CHECK(*read_as<std::int8_t>(hex("d0 80")) == -128);
  CHECK(*read_as<std::int16_t>(hex("d1 80 00")) == -32768);
  CHECK(*read_as<std::int32_t>(hex("d2 80 00 00 00")) == std::numeric_limits<std::int32_t>::min());
  CHECK(*read_as<std::int64_t>(hex("d3 80 00 00 00 00 00 00 00")) ==
        std::numeric_limits<std::int64_t>::min());
  CHECK(*read_as<std::uint64_t>(hex("cf ff ff ff ff ff ff ff ff")) ==
        std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("read_int refuses values outside the requested type") {
  const auto seq = read_as<std::uint32_t>(hex("cf 00 00 00 01 00 00 00 00"));
  REQUIRE_FALSE(seq.ok());
  CHECK(contains(seq.error().message, "4294967296"));
  CHECK(contains(seq.error().message, "out of range [0, 4294967295]"));
  CHECK_FALSE(read_as<std::uint16_t>(hex("ce 00 01 11 70")).ok());  // 70000
  CHECK_FALSE(read_as<std::uint8_t>(hex("cd 01 00")).ok());
  CHECK_FALSE(read_as<std::uint32_t>(hex("ff")).ok());      // -1
  CHECK_FALSE(read_as<std::uint64_t>(hex("d0 80")).ok());   // -128
  CHECK_FALSE(read_as<std::int8_t>(hex("cc 80")).ok());     // 128
  CHECK_FALSE(read_as<std::int8_t>(hex("d1 ff 7f")).ok());  // -129
  CHECK_FALSE(read_as<std::int64_t>(hex("cf 80 00 00 00 00 00 00 00")).ok());
  const auto negative = read_as<std::uint16_t>(hex("d2 ff ff ff fe"));
  REQUIRE_FALSE(negative.ok());
  CHECK(contains(negative.error().message, "-2"));
}

TEST_CASE("read_int names the offset and the kind it found") {
  const Bytes bytes = hex("c0 a1 'x'");
  Reader r(bytes, 1);
  const auto v = r.read_int<std::uint32_t>();
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().message == "expected an integer at offset 1, found a string (0xa1)");
}

TEST_CASE("truncated integers are errors") {
  for (const char* text : {"cc", "cd 01", "ce 00 00 00", "cf 00 00 00 00 00 00 00", "d0", "d1 00",
                           "d2 00 00 00", "d3 00 00", ""}) {
    CAPTURE(text);
    const auto v = read_as<std::uint64_t>(hex(text));
    REQUIRE_FALSE(v.ok());
  }
  const auto v = read_as<std::uint32_t>(hex("ce 00 01"));
  CHECK(v.error().message ==
        "truncated input at offset 1: an unsigned integer needs 4 bytes, 2 remain");
}

TEST_CASE("read_raw accepts every string and binary format, and nil as empty") {
  const std::vector<std::string_view> forms = {
      "a3 'abc'",    "d9 03 'abc'",    "da 00 03 'abc'",       "db 00 00 00 03 'abc'",
      "c4 03 'abc'", "c5 00 03 'abc'", "c6 00 00 00 03 'abc'",
  };
  for (const auto form : forms) {
    CAPTURE(form);
    const Bytes bytes = hex(form);
    Reader r(bytes);
    const auto s = r.read_string();
    REQUIRE(s.ok());
    CHECK(*s == "abc");
    CHECK(r.at_end());
  }
  const Bytes nil = hex("c0");
  Reader as_string(nil);
  CHECK(*as_string.read_string() == "");
  Reader as_bytes(nil);
  CHECK(as_bytes.read_bytes()->empty());
  const Bytes empty = hex("a0");
  Reader empty_reader(empty);
  CHECK(*empty_reader.read_string() == "");
  const Bytes long_one = with_body(hex("d9 28"), 40);
  Reader long_reader(long_one);
  CHECK(*long_reader.read_string() == std::string(40, 'x'));
}

TEST_CASE("read_raw rejects wrong types and short strings") {
  for (const char* text : {"01", "c3", "90", "80", "ca 00 00 00 00"}) {
    CAPTURE(text);
    const Bytes bytes = hex(text);
    Reader r(bytes);
    CHECK_FALSE(r.read_string().ok());
  }
  for (const char* text : {"a3 'ab'", "d9", "d9 05 'abcd'", "da 00", "db 00 00 00", "c4 02 'a'",
                           "c5 00", "c6 00 00 00 09 'abc'", ""}) {
    CAPTURE(text);
    const Bytes bytes = hex(text);
    Reader r(bytes);
    CHECK_FALSE(r.read_bytes().ok());
  }
}

TEST_CASE("a huge claimed length fails before anything is allocated") {
  // Five header bytes claiming 4 GiB: the claim is compared with the remaining input before any
  // buffer is made, so this fails at once instead of allocating and zero-filling 4 GiB.
  for (const char* text : {"db ff ff ff ff 'abc'", "c6 ff ff ff ff", "c6 ff ff ff ff 00 00"}) {
    const Bytes bytes = hex(text);
    Reader r(bytes);
    const auto v = r.read_bytes();
    REQUIRE_FALSE(v.ok());
    CHECK(contains(v.error().message, "4294967295 bytes at offset 0 runs past the end"));
  }
}

TEST_CASE("container headers in every size form") {
  const Bytes maps = hex("82 00 00 00 00 de 00 01 00 00 df 00 00 00 01 00 00");
  Reader r(maps);
  CHECK(*r.read_map_header() == 2u);
  for (int i = 0; i < 4; ++i) CHECK(r.skip().ok());
  CHECK(*r.read_map_header() == 1u);
  CHECK(r.skip().ok());
  CHECK(r.skip().ok());
  CHECK(*r.read_map_header() == 1u);
  CHECK(r.skip().ok());
  CHECK(r.skip().ok());
  CHECK(r.at_end());

  const Bytes arrays = hex("92 01 02 dc 00 01 03 dd 00 00 00 01 04");
  Reader a(arrays);
  CHECK(*a.read_array_header() == 2u);
  CHECK(*a.read_int<int>() == 1);
  CHECK(*a.read_int<int>() == 2);
  CHECK(*a.read_array_header() == 1u);
  CHECK(*a.read_int<int>() == 3);
  CHECK(*a.read_array_header() == 1u);
  CHECK(*a.read_int<int>() == 4);
  CHECK(a.at_end());
}

TEST_CASE("container counts that cannot fit in the input are rejected") {
  const Bytes array = hex("dd ff ff ff ff 01 02");
  Reader a(array);
  const auto n = a.read_array_header();
  REQUIRE_FALSE(n.ok());
  CHECK(contains(n.error().message, "an array of 4294967295 elements at offset 0"));
  const Bytes map = hex("83 01 02 03 04 05");  // 3 entries need at least 6 bytes
  Reader m(map);
  CHECK_FALSE(m.read_map_header().ok());
  const Bytes wrong = hex("92 01 02");
  Reader w(wrong);
  CHECK_FALSE(w.read_map_header().ok());
}

TEST_CASE("nil and booleans are read strictly") {
  const Bytes bytes = hex("c0 c2 c3 01");
  Reader r(bytes);
  CHECK(r.read_nil().ok());
  CHECK(*r.read_bool() == false);
  CHECK(*r.read_bool() == true);
  CHECK_FALSE(r.read_bool().ok());
  CHECK_FALSE(r.read_nil().ok());
  Reader empty(std::span<const std::uint8_t>{});
  CHECK_FALSE(empty.read_nil().ok());
  CHECK_FALSE(empty.read_bool().ok());
  CHECK_FALSE(empty.peek_kind().ok());
}

TEST_CASE("peek_kind classifies without consuming") {
  const std::vector<std::pair<const char*, Kind>> cases = {
      {"c0", Kind::nil},     {"c3", Kind::boolean},  {"7f", Kind::integer},  {"e0", Kind::integer},
      {"d3", Kind::integer}, {"cb", Kind::floating}, {"a0", Kind::raw},      {"c4", Kind::raw},
      {"93", Kind::array},   {"dd", Kind::array},    {"8f", Kind::map},      {"de", Kind::map},
      {"d4", Kind::ext},     {"c9", Kind::ext},      {"c1", Kind::reserved},
  };
  for (const auto& [text, kind] : cases) {
    const std::string shown = text;  // CAPTURE cannot take a structured binding under clang 14
    CAPTURE(shown);
    const Bytes bytes = hex(text);
    Reader r(bytes);
    CHECK(*r.peek_kind() == kind);
    CHECK(r.position() == 0u);
  }
}

TEST_CASE("skip passes over every kind of value") {
  const Bytes bytes = hex(
      "c0 c2 7f e5 cc 01 cd 00 01 ce 00 00 00 01 cf 00 00 00 00 00 00 00 01 d0 ff d1 ff ff"
      " d2 ff ff ff ff d3 ff ff ff ff ff ff ff ff"
      " ca 3f 80 00 00 cb 3f f0 00 00 00 00 00 00"
      " a2 'hi' d9 01 'x' da 00 01 'x' db 00 00 00 01 'x' c4 01 00 c5 00 01 00 c6 00 00 00 01 00"
      " d4 01 00 d5 01 00 00 d6 01 00 00 00 00 d7 01 00 00 00 00 00 00 00 00"
      " d8 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
      " c7 02 05 aa bb c8 00 01 05 aa c9 00 00 00 00 05"
      " 92 01 81 a1 'k' 93 c0 c3 a0 dc 00 01 80 dd 00 00 00 00 de 00 01 01 02 df 00 00 00 00");
  Reader r(bytes);
  int values = 0;
  while (!r.at_end()) {
    const auto skipped = r.skip();
    REQUIRE_MESSAGE(skipped.ok(), skipped.error().message);
    ++values;
  }
  CHECK(values == 34);
}

TEST_CASE("skip rejects truncated values and the reserved byte") {
  for (const char* text :
       {"ca 00 00 00", "cb 00", "d4 01", "d8 01 00", "c7 02 05 aa", "c7", "c8 00",
        "c9 00 00 00 05 01", "c9 ff ff ff ff 01 02", "92 01", "81 01", "a5 'abc'", "c1", ""}) {
    CAPTURE(text);
    const Bytes bytes = hex(text);
    Reader r(bytes);
    CHECK_FALSE(r.skip().ok());
  }
}

TEST_CASE("skip allows 32 levels of nesting but not 33") {
  const auto nested = [](int depth) {
    Bytes bytes(static_cast<std::size_t>(depth - 1), 0x91);  // arrays of one element
    bytes.push_back(0x90);                                   // the innermost, empty
    return bytes;
  };
  const Bytes ok = nested(Reader::max_depth);
  Reader r(ok);
  CHECK(r.skip().ok());
  CHECK(r.at_end());

  const Bytes too_deep = nested(Reader::max_depth + 1);
  Reader deep(too_deep);
  const auto skipped = deep.skip();
  REQUIRE_FALSE(skipped.ok());
  CHECK(contains(skipped.error().message, "nested more than 32 deep"));

  // Maps count as nesting too, and a deep hostile input is refused without deep recursion.
  Bytes maps;
  for (int i = 0; i < 100000; ++i) {
    maps.push_back(0x81);
    maps.push_back(0xa0);
  }
  maps.push_back(0xc0);
  Reader m(maps);
  CHECK_FALSE(m.skip().ok());
}

TEST_CASE("written values read back exactly") {
  vigil::Rng rng(20240611);
  for (int i = 0; i < 500; ++i) {
    const std::uint64_t u = (std::uint64_t{rng.next_u32()} << 32 | rng.next_u32()) >> rng.below(64);
    const auto s =
        static_cast<std::int64_t>(std::uint64_t{rng.next_u32()} << 32 | rng.next_u32()) >>
        rng.below(64);
    std::string text(rng.below(3) == 0 ? rng.below(70000) : rng.below(40), 'a');
    for (auto& c : text) c = static_cast<char>(rng.below(256));
    Bytes out;
    Writer w(out);
    w.write_uint(u);
    w.write_int(s);
    w.write_string(text);
    w.write_map_header(rng.below(70000));
    Reader r(out);
    CHECK(*r.read_int<std::uint64_t>() == u);
    CHECK(*r.read_int<std::int64_t>() == s);
    CHECK(*r.read_string() == text);
    // The map header claims more entries than bytes remain, so only its kind is checked.
    CHECK(*r.peek_kind() == Kind::map);
  }
}

TEST_CASE("random bytes never crash the reader") {
  vigil::Rng rng(99);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    Bytes bytes(rng.below(65));
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng.next_u32());
    Reader r(bytes);
    while (!r.at_end()) {
      const std::size_t before = r.position();
      if (!r.skip().ok()) break;
      CHECK(r.position() > before);
      ++accepted;
    }
    Reader s(bytes);
    (void)s.read_bytes();
    Reader t(bytes);
    (void)t.read_map_header();
  }
  CHECK(accepted > 0);
}
