// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include <vigil/base/result.hpp>
#include <vigil/wire/cipher.hpp>
#include <vigil/wire/codec.hpp>
#include <vigil/wire/messages.hpp>

// memberlist's framing of one message (push-pull, ping, ack, error) on a TCP stream: an optional
// label header, then the message itself or, with encryption, an encrypted envelope
//
//   [244][label length][label]  [10][sealed length, u32 big-endian][sealed bytes]
//
// whose sealed bytes authenticate [10][sealed length] followed by the label (memberlist's
// encryptLocalState / decryptRemoteState). Pure framing: the cryptography is the Cipher's.
namespace vigil::wire {

inline constexpr std::size_t kMaxStreamBytes = 20 * 1024 * 1024;  // memberlist's maxPushStateBytes

// Which way a message travels. memberlist writes the label header once per connection, when it
// dials (its transport's DialAddressTimeout); the answer on that connection carries none, and a
// memberlist initiator would read a label header there as an unknown message type. An encrypted
// answer still authenticates the label as associated data.
enum class StreamPart : std::uint8_t { request, reply };

// Frames one message for a stream; an error only for a label over 255 bytes or a failing cipher.
Result<Bytes> frame_stream(std::span<const std::uint8_t> message, std::string_view label,
                           const Cipher* cipher, StreamPart part = StreamPart::request);

struct StreamRead {
  enum class Status : std::uint8_t { incomplete, ready, refused };
  // too_large: a compressed message that expands past the budget (read_stream's
  // expansion_budget), refused as soon as it has arrived whole.
  enum class Refusal : std::uint8_t { none, label, encryption, malformed, too_large };
  Status status = Status::incomplete;
  Refusal refusal = Refusal::none;
  Bytes message;            // ready: one message, type byte first, decrypted and decompressed
  bool compressed = false;  // ready: it came as a compress message
  std::string error;        // refused: why, for a person
};

// Reads one framed message from the start of `received`, everything the stream has delivered so
// far. A request's label header must name `label` (no header when empty); a reply has no header.
// With a cipher the message must be encrypted
// (memberlist's GossipVerifyIncoming) and is ready once its announced length has arrived; without
// one an encrypted message is refused, and a plaintext message is ready once `complete` accepts it
// (plaintext is self-delimiting only to a decoder). A compressed message is whole once its
// compress message is: then it expands within `expansion_budget` into one `complete` accepts, or
// it is refused at once (too_large past the budget, malformed otherwise), since more bytes cannot
// change what it holds. Total: any bytes give one of the three answers.
StreamRead read_stream(std::span<const std::uint8_t> received, std::string_view label,
                       const Cipher* cipher,
                       const std::function<bool(std::span<const std::uint8_t>)>& complete,
                       StreamPart part = StreamPart::request,
                       std::size_t expansion_budget = max_stream_expansion);

}  // namespace vigil::wire
