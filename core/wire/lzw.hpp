// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include <vigil/base/result.hpp>
#include <vigil/wire/messages.hpp>

// The LZW variant of Go's compress/lzw with least-significant-bit-first packing and 8-bit
// literals: what memberlist uses inside its compress messages (type 9), so vigil can read what
// Serf and Consul send and write what they read.
//
// Codes start 9 bits wide: 0-255 are literals, 256 clears the table, 257 ends the stream and new
// codes count up from 258. The width grows when the next code to assign needs another bit, up to
// 12 bits; at code 4095 the encoder emits a clear code and starts over. There is no "early
// change" (unlike TIFF) and the encoder never emits a leading clear code.
namespace vigil::wire {

// An encoder that keeps its dictionary between calls. Starting over (every call, and at code 4095)
// advances a generation stamp instead of clearing the table, so compressing a 60-byte ping costs
// about as much as its 60 bytes, not a pass over the whole 64 KiB table. Not thread-safe: one
// per thread (lzw_compress keeps one per thread).
class LzwEncoder {
 public:
  LzwEncoder();
  ~LzwEncoder();
  LzwEncoder(const LzwEncoder&) = delete;
  LzwEncoder& operator=(const LzwEncoder&) = delete;

  // Appends the compressed form of `input` to `out`.
  void compress(std::span<const std::uint8_t> input, Bytes& out);

 private:
  class Dictionary;
  std::unique_ptr<Dictionary> dictionary_;
};

// The compressed form of `input`, with this thread's encoder.
Bytes lzw_compress(std::span<const std::uint8_t> input);

// Fails on an invalid code, on a stream that ends before its end code, or when the output would
// exceed `max_output` bytes (a compressed datagram may expand about 500-fold, so the caller bounds
// what it is prepared to hold); `over_limit`, if given, says whether it was the last, so that a
// caller can tell a bomb from corruption. Bytes after the end code are ignored, as Go's reader
// does.
Result<Bytes> lzw_decompress(std::span<const std::uint8_t> input, std::size_t max_output,
                             bool* over_limit = nullptr);

}  // namespace vigil::wire
