#include <vigil/wire/msgpack.hpp>

namespace vigil::wire::msgpack {

namespace {

std::string hex_byte(std::uint8_t byte) {
  static constexpr char digits[] = "0123456789abcdef";
  return std::string("0x") + digits[byte >> 4] + digits[byte & 0x0f];
}

Kind kind_of(std::uint8_t b) {
  if (b <= 0x7f || b >= 0xe0) return Kind::integer;
  if (b <= 0x8f) return Kind::map;
  if (b <= 0x9f) return Kind::array;
  if (b <= 0xbf) return Kind::raw;
  switch (b) {
    case 0xc0:
      return Kind::nil;
    case 0xc1:
      return Kind::reserved;
    case 0xc2:
    case 0xc3:
      return Kind::boolean;
    case 0xc4:
    case 0xc5:
    case 0xc6:
    case 0xd9:
    case 0xda:
    case 0xdb:
      return Kind::raw;
    case 0xc7:
    case 0xc8:
    case 0xc9:
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:
      return Kind::ext;
    case 0xca:
    case 0xcb:
      return Kind::floating;
    case 0xdc:
    case 0xdd:
      return Kind::array;
    case 0xde:
    case 0xdf:
      return Kind::map;
    default:
      return Kind::integer;  // 0xcc..0xd3
  }
}

std::string_view describe(Kind kind) {
  switch (kind) {
    case Kind::nil:
      return "nil";
    case Kind::boolean:
      return "a boolean";
    case Kind::integer:
      return "an integer";
    case Kind::floating:
      return "a float";
    case Kind::raw:
      return "a string";
    case Kind::array:
      return "an array";
    case Kind::map:
      return "a map";
    case Kind::ext:
      return "an extension value";
    case Kind::reserved:
      return "the never-used byte";
  }
  return "an unknown value";
}

Error end_of_input(std::string_view expected, std::size_t at) {
  return Error{"expected " + std::string(expected) + " at offset " + std::to_string(at) +
               ", found the end of the input"};
}

Error wrong_type(std::string_view expected, std::uint8_t found, std::size_t at) {
  return Error{"expected " + std::string(expected) + " at offset " + std::to_string(at) +
               ", found " + std::string(describe(kind_of(found))) + " (" + hex_byte(found) + ")"};
}

Error runs_past_end(std::string_view what, std::uint64_t length, std::size_t at,
                    std::size_t remaining) {
  return Error{std::string(what) + " of " + std::to_string(length) + " bytes at offset " +
               std::to_string(at) + " runs past the end of the input (" +
               std::to_string(remaining) + " bytes remain)"};
}

}  // namespace

// ---- Writer ----

void Writer::put_be(std::uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out_.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

void Writer::write_nil() {
  out_.push_back(0xc0);
}

void Writer::write_bool(bool value) {
  out_.push_back(value ? 0xc3 : 0xc2);
}

void Writer::write_uint(std::uint64_t value) {
  if (value <= 0x7f) {
    out_.push_back(static_cast<std::uint8_t>(value));
  } else if (value <= 0xff) {
    out_.push_back(0xcc);
    put_be(value, 1);
  } else if (value <= 0xffff) {
    out_.push_back(0xcd);
    put_be(value, 2);
  } else if (value <= 0xffffffffu) {
    out_.push_back(0xce);
    put_be(value, 4);
  } else {
    out_.push_back(0xcf);
    put_be(value, 8);
  }
}

void Writer::write_int(std::int64_t value) {
  if (value >= 0) return write_uint(static_cast<std::uint64_t>(value));
  // Two's-complement bytes: put_be keeps the low bytes of the converted value.
  const auto bits = static_cast<std::uint64_t>(value);
  if (value >= -32) {
    out_.push_back(static_cast<std::uint8_t>(bits));
  } else if (value >= std::numeric_limits<std::int8_t>::min()) {
    out_.push_back(0xd0);
    put_be(bits, 1);
  } else if (value >= std::numeric_limits<std::int16_t>::min()) {
    out_.push_back(0xd1);
    put_be(bits, 2);
  } else if (value >= std::numeric_limits<std::int32_t>::min()) {
    out_.push_back(0xd2);
    put_be(bits, 4);
  } else {
    out_.push_back(0xd3);
    put_be(bits, 8);
  }
}

void Writer::write_raw_header(std::size_t length) {
  if (length < 32) {
    out_.push_back(static_cast<std::uint8_t>(0xa0 | length));
  } else if (length <= 0xffff) {
    out_.push_back(0xda);
    put_be(length, 2);
  } else {
    out_.push_back(0xdb);
    put_be(length, 4);
  }
}

void Writer::write_string(std::string_view value) {
  write_raw_header(value.size());
  out_.insert(out_.end(), value.begin(), value.end());
}

void Writer::write_bytes(std::span<const std::uint8_t> value) {
  if (value.empty()) return write_nil();
  write_raw_header(value.size());
  out_.insert(out_.end(), value.begin(), value.end());
}

void Writer::write_map_header(std::uint32_t entries) {
  if (entries <= 15) {
    out_.push_back(static_cast<std::uint8_t>(0x80 | entries));
  } else if (entries <= 0xffff) {
    out_.push_back(0xde);
    put_be(entries, 2);
  } else {
    out_.push_back(0xdf);
    put_be(entries, 4);
  }
}

void Writer::write_array_header(std::uint32_t elements) {
  if (elements <= 15) {
    out_.push_back(static_cast<std::uint8_t>(0x90 | elements));
  } else if (elements <= 0xffff) {
    out_.push_back(0xdc);
    put_be(elements, 2);
  } else {
    out_.push_back(0xdd);
    put_be(elements, 4);
  }
}

// ---- Reader ----

Result<Kind> Reader::peek_kind() const {
  if (at_end()) return end_of_input("a value", pos_);
  return kind_of(data_[pos_]);
}

Result<std::uint64_t> Reader::take_be(int bytes, std::string_view what) {
  const auto needed = static_cast<std::size_t>(bytes);
  if (remaining() < needed) {
    return Error{"truncated input at offset " + std::to_string(pos_) + ": " + std::string(what) +
                 " needs " + std::to_string(needed) + " bytes, " + std::to_string(remaining()) +
                 " remain"};
  }
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < needed; ++i) value = (value << 8) | data_[pos_ + i];
  pos_ += needed;
  return value;
}

Status Reader::read_nil() {
  if (at_end()) return end_of_input("nil", pos_);
  if (data_[pos_] != 0xc0) return wrong_type("nil", data_[pos_], pos_);
  ++pos_;
  return ok_status();
}

Result<bool> Reader::read_bool() {
  if (at_end()) return end_of_input("a boolean", pos_);
  const std::uint8_t b = data_[pos_];
  if (b != 0xc2 && b != 0xc3) return wrong_type("a boolean", b, pos_);
  ++pos_;
  return b == 0xc3;
}

Result<Integer> Reader::read_integer() {
  if (at_end()) return end_of_input("an integer", pos_);
  const std::size_t at = pos_;
  const std::uint8_t b = data_[pos_];
  if (b <= 0x7f) {
    ++pos_;
    return Integer{false, b};
  }
  if (b >= 0xe0) {
    ++pos_;
    return Integer{true, static_cast<std::uint64_t>(static_cast<std::int64_t>(b) - 256)};
  }
  if (b < 0xcc || b > 0xd3) return wrong_type("an integer", b, at);
  ++pos_;
  const bool is_signed = b >= 0xd0;
  const int width = 1 << ((b - 0xcc) & 3);  // 1, 2, 4 or 8 bytes
  auto bits = take_be(width, is_signed ? "a signed integer" : "an unsigned integer");
  if (!bits) return bits.error();
  std::uint64_t value = *bits;
  const std::uint64_t sign_bit = std::uint64_t{1} << (8 * width - 1);
  if (!is_signed || (value & sign_bit) == 0) return Integer{false, value};
  if (width < 8) value |= ~std::uint64_t{0} << (8 * width);  // sign-extend to 64 bits
  return Integer{true, value};
}

Error Reader::out_of_range(const Integer& value, std::int64_t min, std::uint64_t max,
                           std::size_t at) const {
  const std::string shown = value.negative ? std::to_string(static_cast<std::int64_t>(value.bits))
                                           : std::to_string(value.bits);
  return Error{"integer " + shown + " at offset " + std::to_string(at) + " is out of range [" +
               std::to_string(min) + ", " + std::to_string(max) + "]"};
}

Result<std::span<const std::uint8_t>> Reader::read_raw() {
  if (at_end()) return end_of_input("a string", pos_);
  const std::size_t at = pos_;
  const std::uint8_t b = data_[pos_];
  std::uint64_t length = 0;
  if (b >= 0xa0 && b <= 0xbf) {
    ++pos_;
    length = b & 0x1f;
  } else if (b == 0xc0) {
    ++pos_;
    return std::span<const std::uint8_t>{};
  } else {
    int width = 0;
    switch (b) {
      case 0xd9:
      case 0xc4:
        width = 1;
        break;
      case 0xda:
      case 0xc5:
        width = 2;
        break;
      case 0xdb:
      case 0xc6:
        width = 4;
        break;
      default:
        return wrong_type("a string", b, at);
    }
    ++pos_;
    auto header = take_be(width, "a string length");
    if (!header) return header.error();
    length = *header;
  }
  // Checked before anything is allocated: a five-byte header may claim 4 GiB.
  if (length > remaining()) return runs_past_end("a string", length, at, remaining());
  const auto view = data_.subspan(pos_, static_cast<std::size_t>(length));
  pos_ += view.size();
  return view;
}

Result<std::string> Reader::read_string() {
  auto raw = read_raw();
  if (!raw) return raw.error();
  return std::string(raw->begin(), raw->end());
}

Result<Bytes> Reader::read_bytes() {
  auto raw = read_raw();
  if (!raw) return raw.error();
  return Bytes(raw->begin(), raw->end());
}

Result<std::uint32_t> Reader::read_container_header(bool map) {
  const std::string_view expected = map ? "a map" : "an array";
  if (at_end()) return end_of_input(expected, pos_);
  const std::size_t at = pos_;
  const std::uint8_t b = data_[pos_];
  const std::uint8_t fix = map ? 0x80 : 0x90;
  const std::uint8_t wide16 = map ? 0xde : 0xdc;
  std::uint64_t count = 0;
  if (b >= fix && b <= fix + 15) {
    ++pos_;
    count = b & 0x0f;
  } else if (b == wide16 || b == wide16 + 1) {
    ++pos_;
    auto header = take_be(b == wide16 ? 2 : 4, map ? "a map size" : "an array size");
    if (!header) return header.error();
    count = *header;
  } else {
    return wrong_type(expected, b, at);
  }
  // Every value takes at least one byte, so a larger count is a lie; rejecting it here bounds any
  // loop or reservation a caller makes from it.
  const std::uint64_t min_bytes = map ? 2 * count : count;
  if (min_bytes > remaining()) {
    return Error{std::string(map ? "a map of " : "an array of ") + std::to_string(count) +
                 (map ? " entries" : " elements") + " at offset " + std::to_string(at) +
                 " cannot fit in the " + std::to_string(remaining()) + " bytes that remain"};
  }
  return static_cast<std::uint32_t>(count);
}

Result<std::uint32_t> Reader::read_map_header() {
  return read_container_header(true);
}

Result<std::uint32_t> Reader::read_array_header() {
  return read_container_header(false);
}

Status Reader::skip() {
  return skip_at(0);
}

Status Reader::skip_at(int depth) {
  if (at_end()) return end_of_input("a value", pos_);
  const std::size_t at = pos_;
  const std::uint8_t b = data_[pos_];
  switch (kind_of(b)) {
    case Kind::nil:
    case Kind::boolean:
      ++pos_;
      return ok_status();
    case Kind::integer: {
      auto value = read_integer();
      if (!value) return value.error();
      return ok_status();
    }
    case Kind::raw: {
      auto raw = read_raw();
      if (!raw) return raw.error();
      return ok_status();
    }
    case Kind::map:
    case Kind::array: {
      if (depth >= max_depth) {
        return Error{"values nested more than " + std::to_string(max_depth) + " deep at offset " +
                     std::to_string(at)};
      }
      const bool map = kind_of(b) == Kind::map;
      auto count = read_container_header(map);
      if (!count) return count.error();
      const std::uint64_t values = map ? 2 * std::uint64_t{*count} : *count;
      for (std::uint64_t i = 0; i < values; ++i) {
        auto skipped = skip_at(depth + 1);
        if (!skipped) return skipped;
      }
      return ok_status();
    }
    case Kind::floating:
    case Kind::ext: {
      ++pos_;
      std::uint64_t length = 0;
      if (b == 0xca) {
        length = 4;
      } else if (b == 0xcb) {
        length = 8;
      } else if (b >= 0xd4 && b <= 0xd8) {
        length = 1 + (std::uint64_t{1} << (b - 0xd4));  // type byte + 1, 2, 4, 8 or 16 bytes
      } else {
        auto header = take_be(1 << (b - 0xc7), "an extension length");  // 0xc7..0xc9
        if (!header) return header.error();
        length = 1 + *header;
      }
      if (length > remaining()) {
        return runs_past_end(describe(kind_of(b)), length, at, remaining());
      }
      pos_ += static_cast<std::size_t>(length);
      return ok_status();
    }
    case Kind::reserved:
      break;
  }
  return Error{"the never-used byte " + hex_byte(b) + " at offset " + std::to_string(at) +
               " is not a MessagePack value"};
}

}  // namespace vigil::wire::msgpack
