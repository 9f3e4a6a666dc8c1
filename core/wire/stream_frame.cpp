#include <vigil/wire/stream_frame.hpp>

#include <optional>

#include <vigil/wire/codec.hpp>
#include <vigil/wire/msgpack.hpp>

namespace vigil::wire {

namespace {

constexpr auto kEncrypt = static_cast<std::uint8_t>(MessageType::encrypt);
constexpr auto kLabel = static_cast<std::uint8_t>(MessageType::has_label);
constexpr std::size_t kEnvelopeHeader = 5;  // [10][length u32]

StreamRead refuse(StreamRead::Refusal why, std::string error) {
  StreamRead r;
  r.status = StreamRead::Status::refused;
  r.refusal = why;
  r.error = std::move(error);
  return r;
}

StreamRead ready(Bytes message, bool compressed) {
  StreamRead r;
  r.status = StreamRead::Status::ready;
  r.message = std::move(message);
  r.compressed = compressed;
  return r;
}

// [10][length] followed by the label: what the envelope authenticates.
Bytes envelope_aad(std::span<const std::uint8_t> header, std::string_view label) {
  Bytes aad(header.begin(), header.end());
  aad.insert(aad.end(), label.begin(), label.end());
  return aad;
}

std::string quoted(std::string_view s) {
  return "'" + std::string(s) + "'";
}

// memberlist compresses stream messages too (EnableCompression, on by default in Serf); the
// message inside is what the caller asked for. Refused when it does not expand: over the budget
// (a bomb), or corrupt.
struct Expanded {
  std::optional<Bytes> message;
  StreamRead refusal;
};
Expanded expand(std::span<const std::uint8_t> message, std::size_t budget_bytes) {
  ExpansionBudget budget{budget_bytes};
  Bytes storage;
  auto plain = expand_compressed(message, storage, budget);
  if (!plain) {
    if (budget.exceeded)
      return {std::nullopt,
              refuse(StreamRead::Refusal::too_large, "compressed stream message expands past " +
                                                         std::to_string(budget_bytes) + " bytes")};
    return {std::nullopt, refuse(StreamRead::Refusal::malformed,
                                 "compressed stream message: " + plain.error().message)};
  }
  if (plain->data() == storage.data()) return {std::move(storage), {}};
  return {Bytes(plain->begin(), plain->end()), {}};
}

// Whether a compress message has arrived whole: its map reads to its end. Until then more bytes
// may complete it, and expanding a part of it would only fail.
bool compress_message_arrived(std::span<const std::uint8_t> message) {
  msgpack::Reader r(message, 1);
  return r.skip().ok();
}

}  // namespace

Result<Bytes> frame_stream(std::span<const std::uint8_t> message, std::string_view label,
                           const Cipher* cipher, StreamPart part) {
  const bool labelled = part == StreamPart::request && !label.empty();
  if (label.size() > 255) return add_label(label, message);  // the same error
  if (!cipher) return labelled ? add_label(label, message) : Bytes(message.begin(), message.end());
  // The sealed length is known before sealing: the cipher adds exactly its overhead (version 1).
  const std::size_t sealed_size = message.size() + cipher->overhead();
  if (sealed_size > 0xffffffffu) return Error{"stream message too large to encrypt"};
  const std::uint8_t header[kEnvelopeHeader] = {
      kEncrypt, static_cast<std::uint8_t>(sealed_size >> 24),
      static_cast<std::uint8_t>(sealed_size >> 16), static_cast<std::uint8_t>(sealed_size >> 8),
      static_cast<std::uint8_t>(sealed_size)};
  auto sealed = cipher->seal(message, envelope_aad(header, label));
  if (!sealed) return sealed.error();
  if (sealed->size() != sealed_size) return Error{"the cipher's overhead is not what it announced"};
  Bytes envelope(header, header + kEnvelopeHeader);
  envelope.insert(envelope.end(), sealed->begin(), sealed->end());
  return labelled ? add_label(label, envelope) : Result<Bytes>(std::move(envelope));
}

StreamRead read_stream(std::span<const std::uint8_t> received, std::string_view label,
                       const Cipher* cipher,
                       const std::function<bool(std::span<const std::uint8_t>)>& complete,
                       StreamPart part, std::size_t expansion_budget) {
  using Refusal = StreamRead::Refusal;
  auto rest = received;
  if (rest.empty()) return {};
  if (part == StreamPart::reply) {
    if (rest[0] == kLabel) return refuse(Refusal::label, "a label header in a reply");
  } else if (rest[0] == kLabel) {
    if (rest.size() < 2) return {};
    const std::size_t length = rest[1];
    if (length == 0) return refuse(Refusal::label, "label header present but empty");
    if (rest.size() < 2 + length) return {};
    const auto got = rest.subspan(2, length);
    const std::string_view theirs(reinterpret_cast<const char*>(got.data()), got.size());
    if (theirs != label) {
      return refuse(Refusal::label,
                    "stream labelled " + quoted(theirs) +
                        (label.empty() ? ", expected none" : ", expected " + quoted(label)));
    }
    rest = rest.subspan(2 + length);
  } else if (!label.empty()) {
    return refuse(Refusal::label, "stream without a label, expected " + quoted(label));
  }
  if (rest.empty()) return {};

  const bool sealed = rest[0] == kEncrypt;
  if (!cipher) {
    if (sealed) return refuse(Refusal::encryption, "stream is encrypted and no key is configured");
    if (!is_compressed(rest)) {
      if (!complete(rest)) return {};
      return ready(Bytes(rest.begin(), rest.end()), false);
    }
    // Until the compress message is whole it may simply not have fully arrived. Whole, it holds
    // what it will ever hold: a bomb or a message the caller cannot accept is refused now, not
    // held open until the host's deadline.
    if (!compress_message_arrived(rest)) return {};
    auto inner = expand(rest, expansion_budget);
    if (!inner.message) return inner.refusal;
    if (!complete(*inner.message))
      return refuse(Refusal::malformed, "a compressed stream message holds no whole message");
    return ready(std::move(*inner.message), true);
  }
  if (!sealed)
    return refuse(Refusal::encryption, "encryption is configured but the stream is not encrypted");
  if (rest.size() < kEnvelopeHeader) return {};
  const std::size_t length = (std::size_t{rest[1]} << 24) | (std::size_t{rest[2]} << 16) |
                             (std::size_t{rest[3]} << 8) | std::size_t{rest[4]};
  if (length > kMaxStreamBytes) {
    return refuse(Refusal::malformed, "encrypted stream announces " + std::to_string(length) +
                                          " bytes, over the limit of " +
                                          std::to_string(kMaxStreamBytes));
  }
  if (rest.size() - kEnvelopeHeader < length) return {};
  auto opened = cipher->open(rest.subspan(kEnvelopeHeader, length),
                             envelope_aad(rest.first(kEnvelopeHeader), label));
  if (!opened) return refuse(Refusal::encryption, opened.error().message);
  if (opened->empty()) return refuse(Refusal::malformed, "encrypted stream holds an empty message");
  auto inner = expand(*opened, expansion_budget);
  if (!inner.message) return inner.refusal;
  return ready(std::move(*inner.message), is_compressed(*opened));
}

}  // namespace vigil::wire
