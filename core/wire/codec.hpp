// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/wire/messages.hpp>

// memberlist's UDP framing: single messages, compound messages, the CRC wrapper and the label
// header, plus the push-pull exchange. Decoding is total: every byte string yields either a value
// or an Error, never undefined behaviour, an exception or an allocation larger than the input.
namespace vigil::wire {

// Compound messages may contain compound messages; memberlist does not bound that, we do.
// A compressed message counts as one level too, so framings cannot nest without limit.
inline constexpr int max_compound_depth = 4;

// The most one compressed message may expand to where no budget is given (open_compressed and
// expand_compressed without one). LZW can expand input about 500-fold, so without a bound a few
// hostile bytes could claim a huge allocation.
inline constexpr std::size_t max_decompressed_size = std::size_t{1} << 20;

// What all the compressed messages of one datagram may expand to together, nested ones included.
// A bound on each message alone is not one on the datagram: 34 compressed user messages of 1 MiB
// fit in one 64 KB datagram, 34 MiB once expanded, and ten such datagrams a second took a core
// and 300 MB. No member sends that much: memberlist packs a datagram's messages up to its
// UDPBufferSize before compressing them and refuses user messages larger than that buffer, UDP
// carries at most 65,507 bytes, and vigil packs its own news within this too (Node::news_budget),
// where a full datagram at the default 1,400 bytes expands to some 4 KB. So compression never
// lets a datagram carry more than an uncompressed one could, and a datagram over the budget is
// an attack or a bug: it is refused whole.
inline constexpr std::size_t max_datagram_expansion = std::size_t{64} << 10;

// What one stream message (a full-state exchange, a ping or an ack) may expand to. The native
// agent reads at most 4 MiB from a stream (StreamLimits in native/agent/stream_link.hpp), so
// with the same bound on the expanded message compression cannot make a stream hold more than
// it could send plainly, and a state too large for one is refused either way. 4 MiB holds some
// 7,000 members at memberlist's 512-byte metadata cap, and the default max_members (16,384) at
// the 100 to 250 bytes a member takes with Serf's tags (memberlist allows a stream 20 MiB:
// kMaxStreamBytes).
inline constexpr std::size_t max_stream_expansion = std::size_t{4} << 20;

// Bytes that compressed messages may still expand to, shared by all of those in one datagram or
// stream message; `exceeded` records that an expansion was refused for going past it (rather
// than for being corrupt), so that the caller can count bombs apart from garbage.
struct ExpansionBudget {
  std::size_t left = max_datagram_expansion;
  bool exceeded = false;
};

// Appends [type byte][msgpack map] (User: [8][payload]) to `out`.
void encode(const Message& message, Bytes& out);
Bytes encode(const Message& message);

// Decodes exactly one message, starting with its type byte. Compound, CRC, compressed and
// encrypted framings are errors here: decode_packet unwraps the first two.
Result<Message> decode_message(std::span<const std::uint8_t> bytes);

// [7][count u8][count big-endian u16 lengths][parts].
Result<Bytes> make_compound(const std::vector<Bytes>& parts);

struct CompoundParts {
  std::vector<std::span<const std::uint8_t>> parts;  // views into the input
  std::size_t truncated = 0;                         // parts announced but cut off
};

// Splits the body of a compound message (the bytes after its type byte) as memberlist does: a
// missing count or length table is an error, while parts cut off by the end of the datagram are
// only counted in `truncated`.
Result<CompoundParts> split_compound(std::span<const std::uint8_t> after_type_byte);

// memberlist's compress message, [9][{Algo: 0, Buf: LZW(payload)}], where the payload is a
// message or a compound (Go compress/lzw, LSB first, 8-bit literals; Algo 0 is the only one).
Bytes make_compressed(std::span<const std::uint8_t> payload);

// The payload of a compress message, given the bytes after its type byte. Fails on an unknown
// algorithm, a malformed map, a corrupt LZW stream or one expanding beyond what is left of
// `budget` (then marked exceeded); what it expands to is taken from the budget.
Result<Bytes> open_compressed(std::span<const std::uint8_t> after_type_byte,
                              ExpansionBudget& budget);
// The same with a budget of max_decompressed_size for this message alone.
Result<Bytes> open_compressed(std::span<const std::uint8_t> after_type_byte);

// Whether `message` is a compress message (its first byte is type 9).
bool is_compressed(std::span<const std::uint8_t> message);

// `message` itself, or the payload of a compress message, expanded into `storage` within
// `budget` (or max_decompressed_size, without one).
Result<std::span<const std::uint8_t>> expand_compressed(std::span<const std::uint8_t> message,
                                                        Bytes& storage, ExpansionBudget& budget);
Result<std::span<const std::uint8_t>> expand_compressed(std::span<const std::uint8_t> message,
                                                        Bytes& storage);

// [12][CRC-32 (IEEE) of message, big-endian][message].
Bytes add_crc(std::span<const std::uint8_t> message);

// [244][length u8][label][packet]; an empty label leaves the packet unchanged. Labels longer than
// 255 bytes are an error.
Result<Bytes> add_label(std::string_view label, std::span<const std::uint8_t> packet);

struct Labelled {
  std::string label;                   // empty when the packet had no label header
  std::span<const std::uint8_t> rest;  // a view into the input
};

Result<Labelled> strip_label(std::span<const std::uint8_t> packet);

// Decodes a whole datagram after its label has been stripped: verifies and removes a CRC wrapper,
// splits compound messages and expands compressed ones (nested at most max_compound_depth deep
// together, expanding to at most `budget` bytes all together) and decodes every part. Any bad or
// truncated part, or a datagram over its budget, fails the whole packet: nothing in it is
// returned.
Result<std::vector<Message>> decode_packet(std::span<const std::uint8_t> packet,
                                           ExpansionBudget& budget);
// The same within max_datagram_expansion.
Result<std::vector<Message>> decode_packet(std::span<const std::uint8_t> packet);

// One node state of a push-pull exchange, borrowing its bytes (from a member table when
// encoding, from the received buffer when decoding), so that exchanging a thousand members costs
// no allocation per member.
struct PushNodeStateView {
  // Versions sent as a msgpack array of integers are not contiguous in the buffer; up to this
  // many are copied inline (memberlist sends six).
  static constexpr std::size_t kMaxInlineVersions = 16;

  std::string_view name;
  std::span<const std::uint8_t> addr;
  std::uint16_t port = 0;
  std::span<const std::uint8_t> meta;
  std::uint32_t incarnation = 0;
  NodeState state = NodeState::alive;

  std::span<const std::uint8_t> vsn() const {
    return vsn_inline_ ? std::span<const std::uint8_t>(vsn_copy_.data(), vsn_copy_length_) : vsn_;
  }
  void set_vsn(std::span<const std::uint8_t> borrowed) {
    vsn_ = borrowed;
    vsn_inline_ = false;
  }
  bool copy_vsn(std::span<const std::uint8_t> versions);  // false if too many

 private:
  std::span<const std::uint8_t> vsn_;
  std::array<std::uint8_t, kMaxInlineVersions> vsn_copy_{};
  std::uint8_t vsn_copy_length_ = 0;
  bool vsn_inline_ = false;
};

struct PushPullView {
  bool join = false;
  std::vector<PushNodeStateView> nodes;
  std::span<const std::uint8_t> user_state;
};

// [6][{Nodes, UserStateLen, Join}][one map per node][user state bytes].
void encode_push_pull(bool join, std::span<const PushNodeStateView> nodes,
                      std::span<const std::uint8_t> user_state, Bytes& out);
void encode_push_pull(const PushPull& push_pull, Bytes& out);
// The views point into `bytes`, which must outlive them. All node states are checked before
// anything is returned, so a corrupt exchange is rejected whole.
Result<PushPullView> decode_push_pull_view(std::span<const std::uint8_t> bytes);
Result<PushPull> decode_push_pull(std::span<const std::uint8_t> bytes);

}  // namespace vigil::wire
