#include <vigil/wire/lzw.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <string>
#include <vector>

namespace vigil::wire {

namespace {

constexpr std::uint32_t kLiteralWidth = 8;
constexpr std::uint32_t kClear = 1u << kLiteralWidth;  // 256
constexpr std::uint32_t kEnd = kClear + 1;             // 257
constexpr std::uint32_t kMaxWidth = 12;
constexpr std::uint32_t kMaxCode = (1u << kMaxWidth) - 1;  // 4095

class BitWriter {
 public:
  explicit BitWriter(Bytes& out) : out_(out) {}
  void put(std::uint32_t code, std::uint32_t width) {
    bits_ |= code << count_;
    count_ += width;
    while (count_ >= 8) {
      out_.push_back(static_cast<std::uint8_t>(bits_));
      bits_ >>= 8;
      count_ -= 8;
    }
  }
  void flush() {
    if (count_ > 0) out_.push_back(static_cast<std::uint8_t>(bits_));
    bits_ = 0;
    count_ = 0;
  }

 private:
  Bytes& out_;
  std::uint32_t bits_ = 0;
  std::uint32_t count_ = 0;
};

class BitReader {
 public:
  explicit BitReader(std::span<const std::uint8_t> in) : in_(in) {}
  // False when the input ends before `width` more bits.
  bool get(std::uint32_t width, std::uint32_t* code) {
    while (count_ < width) {
      if (at_ == in_.size()) return false;
      bits_ |= static_cast<std::uint32_t>(in_[at_++]) << count_;
      count_ += 8;
    }
    *code = bits_ & ((1u << width) - 1);
    bits_ >>= width;
    count_ -= width;
    return true;
  }

 private:
  std::span<const std::uint8_t> in_;
  std::size_t at_ = 0;
  std::uint32_t bits_ = 0;
  std::uint32_t count_ = 0;
};

}  // namespace

// The encoder's dictionary: (prefix code, next byte) -> code, open addressing over a table four
// times the number of codes. A slot counts only if it carries the current generation, so starting
// over is one increment; the table is really cleared once in 65,535 generations.
class LzwEncoder::Dictionary {
 public:
  static constexpr std::uint32_t kNone = 0xffffffff;
  std::uint32_t find(std::uint32_t prefix, std::uint8_t byte) const {
    const std::uint32_t key = prefix << 8 | byte;
    for (std::uint32_t h = hash(key);; h = (h + 1) & mask_) {
      const Slot& slot = slots_[h];
      if (slot.generation != generation_) return kNone;
      if (slot.key == key) return slot.code;
    }
  }
  void insert(std::uint32_t prefix, std::uint8_t byte, std::uint32_t code) {
    const std::uint32_t key = prefix << 8 | byte;
    std::uint32_t h = hash(key);
    while (slots_[h].generation == generation_) h = (h + 1) & mask_;
    slots_[h] = {key, static_cast<std::uint16_t>(code), generation_};
  }
  // `input` bounds how many codes the next run can define: the table used is twice that, so
  // that a gossip datagram probes 32 KiB of slots rather than all 64 KiB. On a machine running
  // many members the table is cold at every call, and each probe of a large one misses the cache.
  void start_over(std::size_t input) {
    const auto codes = static_cast<std::uint32_t>(std::min<std::size_t>(input, kMaxCode));
    mask_ = std::clamp(std::bit_ceil(2 * codes), kMinSize, kSize) - 1;
    if (++generation_ != 0) return;
    slots_.fill({});
    generation_ = 1;
  }

 private:
  static constexpr std::uint32_t kSize = 2u << kMaxWidth;  // under half full at 4,095 codes
  static constexpr std::uint32_t kMinSize = 1024;
  std::uint32_t hash(std::uint32_t key) const { return (key >> 12 ^ key) & mask_; }
  struct Slot {
    std::uint32_t key = 0;
    std::uint16_t code = 0;
    std::uint16_t generation = 0;  // 0 is never current
  };
  std::array<Slot, kSize> slots_{};
  std::uint16_t generation_ = 1;
  std::uint32_t mask_ = kSize - 1;
};

LzwEncoder::LzwEncoder() : dictionary_(std::make_unique<Dictionary>()) {}
LzwEncoder::~LzwEncoder() = default;

void LzwEncoder::compress(std::span<const std::uint8_t> input, Bytes& out) {
  Dictionary& dictionary = *dictionary_;
  dictionary.start_over(input.size());
  BitWriter writer(out);
  std::uint32_t width = kLiteralWidth + 1;
  std::uint32_t next = kEnd;  // the code implied by the next emission
  std::uint32_t overflow = 1u << width;

  // Emitting a code defines the next one; the width follows, and at the last code the table
  // starts over behind a clear code.
  const auto advance = [&]() -> bool {
    ++next;
    if (next == overflow) {
      ++width;
      overflow <<= 1;
    }
    if (next != kMaxCode) return true;
    writer.put(kClear, width);
    width = kLiteralWidth + 1;
    next = kEnd;
    overflow = 1u << width;
    dictionary.start_over(input.size());
    return false;
  };

  if (!input.empty()) {
    std::uint32_t code = input[0];
    for (std::size_t i = 1; i < input.size(); ++i) {
      const std::uint8_t byte = input[i];
      if (const std::uint32_t known = dictionary.find(code, byte); known != Dictionary::kNone) {
        code = known;
        continue;
      }
      writer.put(code, width);
      const std::uint32_t prefix = code;
      code = byte;
      if (advance()) dictionary.insert(prefix, byte, next);
    }
    writer.put(code, width);
    advance();
  }
  writer.put(kEnd, width);
  writer.flush();
}

Bytes lzw_compress(std::span<const std::uint8_t> input) {
  thread_local LzwEncoder encoder;
  Bytes out;
  out.reserve(input.size() / 2 + 16);
  encoder.compress(input, out);
  return out;
}

Result<Bytes> lzw_decompress(std::span<const std::uint8_t> input, std::size_t max_output,
                             bool* over_limit) {
  if (over_limit) *over_limit = false;
  constexpr std::uint32_t kNoCode = 0xffff;
  // Left uninitialised: zeroing 16 KiB cost more than decoding a whole gossip datagram. Every
  // entry is written before it is read: a code is accepted only below `hi`, and every code from
  // 258 up to `hi` was defined on the way.
  std::array<std::uint8_t, 1u << kMaxWidth> suffix;
  std::array<std::uint16_t, 1u << kMaxWidth> prefix;
  std::array<std::uint8_t, 1u << kMaxWidth> expansion;  // one code's bytes, written backwards

  Bytes out;
  out.reserve(std::min(max_output, 4 * input.size()));
  BitReader reader(input);
  std::uint32_t width = kLiteralWidth + 1;
  std::uint32_t hi = kEnd;  // the highest code defined so far, or about to be
  std::uint32_t overflow = 1u << width;
  std::uint32_t last = kNoCode;

  for (;;) {
    std::uint32_t code = 0;
    if (!reader.get(width, &code)) return Error{"lzw: the stream ends without an end code"};
    if (code == kClear) {
      width = kLiteralWidth + 1;
      hi = kEnd;
      overflow = 1u << width;
      last = kNoCode;
      continue;
    }
    if (code == kEnd) return out;
    if (code > hi || (code == hi && last == kNoCode))
      return Error{"lzw: invalid code " + std::to_string(code) + " (highest defined " +
                   std::to_string(hi) + ")"};

    // Expand the code into `expansion`, back to front; code == hi is the one code not yet in the
    // table: the previous expansion followed by its own first byte.
    std::size_t at = expansion.size();
    std::uint32_t c = code;
    if (code < kClear) {
      expansion[--at] = static_cast<std::uint8_t>(code);
    } else {
      if (code == hi) {
        std::uint32_t head = last;
        while (head >= kClear) head = prefix[head];
        expansion[--at] = static_cast<std::uint8_t>(head);
        c = last;
      }
      while (c >= kClear) {
        expansion[--at] = suffix[c];
        c = prefix[c];
      }
      expansion[--at] = static_cast<std::uint8_t>(c);
    }
    const std::size_t length = expansion.size() - at;
    if (out.size() + length > max_output) {
      if (over_limit) *over_limit = true;
      return Error{"lzw: output larger than the " + std::to_string(max_output) + " bytes allowed"};
    }
    out.insert(out.end(), expansion.begin() + static_cast<std::ptrdiff_t>(at), expansion.end());

    if (last != kNoCode) {
      suffix[hi] = expansion[at];
      prefix[hi] = static_cast<std::uint16_t>(last);
    }
    last = code;
    ++hi;
    if (hi >= overflow) {
      if (width == kMaxWidth) {
        // The table is full: codes stop being defined until the encoder's clear code.
        last = kNoCode;
        --hi;
      } else {
        ++width;
        overflow <<= 1;
      }
    }
  }
}

}  // namespace vigil::wire
