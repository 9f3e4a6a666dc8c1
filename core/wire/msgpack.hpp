// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <vigil/base/result.hpp>

namespace vigil::wire {

// The same alias as in wire/messages.hpp (redeclaring an alias to the same type is allowed), so
// this encoding layer does not depend on the message definitions.
using Bytes = std::vector<std::uint8_t>;

}  // namespace vigil::wire

// The subset of MessagePack that memberlist speaks, written the way Go's codec library does with
// its default handle, and read liberally enough to accept what any codec version might send.
namespace vigil::wire::msgpack {

// Appends MessagePack values to a byte vector. Every value takes its smallest encoding.
class Writer {
 public:
  explicit Writer(Bytes& out) : out_(out) {}

  void write_nil();
  void write_bool(bool value);
  void write_uint(std::uint64_t value);
  // Non-negative values are written exactly as write_uint does, as Go's codec writes them.
  void write_int(std::int64_t value);
  // Strings and byte arrays are both written as the old-spec "raw" type (fixstr, 0xda, 0xdb),
  // never str8 (0xd9) or bin: memberlist decoders built before the 2013 spec revision reject
  // those. Lengths must stay below 2^32, which a datagram always does.
  void write_string(std::string_view value);
  // An empty byte array is written as nil, as Go writes a nil []byte.
  void write_bytes(std::span<const std::uint8_t> value);
  void write_map_header(std::uint32_t entries);
  void write_array_header(std::uint32_t elements);

 private:
  void write_raw_header(std::size_t length);
  void put_be(std::uint64_t value, int bytes);

  Bytes& out_;
};

// What the next value is, judged from its first byte.
enum class Kind { nil, boolean, integer, floating, raw, array, map, ext, reserved };

// An integer as it appeared on the wire: `bits` is the value itself when it is non-negative and
// its two's-complement pattern when negative, so both uint64 and int64 fit losslessly.
struct Integer {
  bool negative = false;
  std::uint64_t bits = 0;
};

// Reads MessagePack values from a byte span. Every read is bounds-checked and returns an Error
// naming the offset rather than reading past the end; after an error the position is unspecified
// and the reader should be abandoned.
class Reader {
 public:
  // Containers nested deeper than this are rejected by skip(), so hostile input cannot drive the
  // recursion arbitrarily deep.
  static constexpr int max_depth = 32;

  explicit Reader(std::span<const std::uint8_t> data, std::size_t position = 0)
      : data_(data), pos_(position < data.size() ? position : data.size()) {}

  std::size_t position() const { return pos_; }
  std::size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }
  std::span<const std::uint8_t> rest() const { return data_.subspan(pos_); }

  // The kind of the next value, without consuming it.
  Result<Kind> peek_kind() const;

  Status read_nil();
  Result<bool> read_bool();
  // Any integer format: positive and negative fixint, uint8..uint64, int8..int64.
  Result<Integer> read_integer();
  // An integer that must fit in T; values outside T's range are an error, never truncated.
  template <std::integral T>
  requires(!std::same_as<T, bool>) Result<T> read_int();
  // A raw string in any format (fixstr, str8/16/32, bin8/16/32) as a view into the input; nil
  // reads as empty because Go writes an empty []byte as nil.
  Result<std::span<const std::uint8_t>> read_raw();
  Result<std::string> read_string();
  Result<Bytes> read_bytes();
  // The number of entries (key-value pairs) or elements. A count that could not possibly fit in
  // the remaining bytes (each value takes at least one) is rejected here, so callers can loop over
  // it without further checks.
  Result<std::uint32_t> read_map_header();
  Result<std::uint32_t> read_array_header();
  // Skips one complete value of any type, including floats, extensions and nested containers.
  Status skip();

 private:
  Status skip_at(int depth);
  Result<std::uint64_t> take_be(int bytes, std::string_view what);
  Result<std::uint32_t> read_container_header(bool map);
  Error out_of_range(const Integer& value, std::int64_t min, std::uint64_t max,
                     std::size_t at) const;

  std::span<const std::uint8_t> data_;
  std::size_t pos_;
};

template <std::integral T>
requires(!std::same_as<T, bool>) Result<T> Reader::read_int() {
  const std::size_t at = pos_;
  auto value = read_integer();
  if (!value) return value.error();
  if (value->negative) {
    if constexpr (std::is_signed_v<T>) {
      const auto s = static_cast<std::int64_t>(value->bits);
      if (s >= static_cast<std::int64_t>(std::numeric_limits<T>::min())) return static_cast<T>(s);
    }
  } else if (value->bits <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
    return static_cast<T>(value->bits);
  }
  return out_of_range(*value, static_cast<std::int64_t>(std::numeric_limits<T>::min()),
                      static_cast<std::uint64_t>(std::numeric_limits<T>::max()), at);
}

}  // namespace vigil::wire::msgpack
