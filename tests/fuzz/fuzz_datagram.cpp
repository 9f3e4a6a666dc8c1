// libFuzzer target: the whole receive path of a datagram and of a stream message.
//
// The same bytes go through every entry point of core/wire, each of which checks its own type
// byte: label strip, the encrypted envelope (native/crypto's keyring, as the agent plugs it in),
// CRC wrapper, compound split, compressed (LZW) messages, every single-message decoder, push-pull
// decoding and stream framing. Invariants (a violation traps):
//  - no crash, no undefined behaviour (ASan + UBSan);
//  - a decoded message re-encodes to bytes that decode to the same value, and re-encoding that
//    value gives the same bytes again (encoding is canonical);
//  - a decoded packet's messages, framed again in a compound (plain, CRC-wrapped and compressed),
//    decode to the same list;
//  - a stripped label put back gives the original datagram;
//  - an envelope that opens re-seals, under the key that opened it and with its nonce and
//    version, to the very same bytes (no malleable padding or version);
//  - split_compound accounts for every announced part;
//  - LZW: compressing any bytes and decompressing gives them back; decompression never exceeds
//    its bound;
//  - a decoded push-pull exchange round-trips, and its borrowing view agrees with the owning one;
//  - a stream message read from the input frames again to bytes that read back to it.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <vigil/wire/codec.hpp>
#include <vigil/wire/lzw.hpp>
#include <vigil/wire/stream_frame.hpp>
#include "fuzz_keys.hpp"

namespace {

using namespace vigil;
using namespace vigil::wire;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

const native::Keyring& ring() {
  static const native::Keyring keys = fuzz::keyring();
  return keys;
}

const native::Keyring& secondary_ring() {
  static const native::Keyring keys = fuzz::secondary_keyring();
  return keys;
}

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

void check_message_round_trip(const Message& message) {
  const Bytes once = encode(message);
  const auto again = decode_message(once);
  check(again.ok());
  check(*again == message);
  check(encode(*again) == once);
}

void check_packet(std::span<const std::uint8_t> packet) {
  const auto decoded = decode_packet(packet);
  if (!decoded) return;
  std::vector<Bytes> parts;
  for (const Message& message : *decoded) {
    check_message_round_trip(message);
    parts.push_back(encode(message));
  }
  // Nested compounds flatten to more messages than one flat compound holds (255 parts of at
  // most 65535 bytes each); only then may framing them again fail.
  auto compound = make_compound(parts);
  if (!compound) {
    bool too_big = parts.size() > 255;
    for (const Bytes& part : parts) too_big = too_big || part.size() > 0xffff;
    check(too_big);
    return;
  }
  const Bytes flat = parts.size() == 1 ? parts.front() : *compound;
  for (const Bytes& framed : {*compound, add_crc(*compound), make_compressed(flat)}) {
    const auto reframed = decode_packet(framed);
    check(reframed.ok());
    check(*reframed == *decoded);
  }
  if (decoded->size() == 1) {
    const auto single = decode_packet(add_crc(parts.front()));
    check(single.ok() && *single == *decoded);
  }
}

// What an agent with a keyring does after stripping the label: open the envelope (the label is
// its associated data), then decode the packet inside.
void check_sealed(std::span<const std::uint8_t> sealed, std::string_view label) {
  const auto opened = ring().open(sealed, bytes_of(label));
  if (!opened) return;
  const std::uint8_t version = sealed[0];
  const auto nonce = sealed.subspan(1, native::kGcmNonceSize);
  const auto primary = ring().seal_with_nonce(version, nonce, *opened, bytes_of(label));
  const auto secondary = secondary_ring().seal_with_nonce(version, nonce, *opened, bytes_of(label));
  check(primary.ok() && secondary.ok());
  const Bytes input(sealed.begin(), sealed.end());
  check(*primary == input || *secondary == input);
  check_packet(*opened);
}

void check_push_pull(std::span<const std::uint8_t> bytes) {
  const auto view = decode_push_pull_view(bytes);
  const auto owned = decode_push_pull(bytes);
  check(view.ok() == owned.ok());
  if (!owned) return;
  check(view->nodes.size() == owned->nodes.size());
  check(view->join == owned->join);
  check(view->user_state.size() == owned->user_state.size());
  for (std::size_t i = 0; i < owned->nodes.size(); ++i) {
    check(view->nodes[i].name == owned->nodes[i].name);
    const auto vsn = view->nodes[i].vsn();
    check(Bytes(vsn.begin(), vsn.end()) == owned->nodes[i].vsn);
  }
  Bytes once;
  encode_push_pull(*owned, once);
  const auto again = decode_push_pull(once);
  check(again.ok());
  check(*again == *owned);
  Bytes twice;
  encode_push_pull(*again, twice);
  check(twice == once);
}

void check_lzw(std::span<const std::uint8_t> input) {
  // Small bound so that the fuzzer also finds streams that hit it.
  constexpr std::size_t bound = 4096;
  if (const auto out = lzw_decompress(input, bound)) check(out->size() <= bound);
  const auto back = lzw_decompress(lzw_compress(input), input.size());
  check(back.ok());
  check(*back == Bytes(input.begin(), input.end()));
}

// The TCP side: one framed message (label header, encrypted envelope) read from the input as if
// the stream had delivered it, for both directions and with and without encryption.
void check_stream(std::span<const std::uint8_t> input) {
  const auto complete = [](std::span<const std::uint8_t> b) {
    return decode_push_pull_view(b).ok() || decode_message(b).ok();
  };
  struct Side {
    std::string_view label;
    const Cipher* cipher;
    StreamPart part;
  };
  const Side sides[] = {{"", nullptr, StreamPart::request},
                        {"fz", nullptr, StreamPart::request},
                        {"fz", &ring(), StreamPart::request},
                        {"fz", &ring(), StreamPart::reply}};
  for (const Side& side : sides) {
    const StreamRead read = read_stream(input, side.label, side.cipher, complete, side.part);
    if (read.status == StreamRead::Status::refused) check(!read.error.empty());
    if (read.status != StreamRead::Status::ready) continue;
    check(!read.message.empty());
    if (!side.cipher) check(complete(read.message));
    const auto framed = frame_stream(read.message, side.label, side.cipher, side.part);
    check(framed.ok());
    const StreamRead again = read_stream(*framed, side.label, side.cipher, complete, side.part);
    check(again.status == StreamRead::Status::ready);
    check(again.message == read.message);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);

  // What a node does with a datagram: strip the label, then decode the packet (or open it first,
  // with encryption on).
  const auto labelled = strip_label(input);
  if (labelled) {
    check(labelled->rest.size() <= input.size());
    if (!labelled->label.empty()) {
      const auto relabelled = add_label(labelled->label, labelled->rest);
      check(relabelled.ok());
      check(Bytes(input.begin(), input.end()) == *relabelled);
    }
    check_packet(labelled->rest);
    check_sealed(labelled->rest, labelled->label);
  }
  // Each decoder on its own, from the first byte (decode_packet already saw these bytes when
  // they carried no label, and fails at once on a label header).
  if (!labelled) check_packet(input);
  if (const auto message = decode_message(input)) check_message_round_trip(*message);
  if (!input.empty()) {
    if (const auto split = split_compound(input.subspan(1))) {
      check(split->parts.size() + split->truncated == input[1]);
      for (const auto part : split->parts) {
        check(part.data() >= input.data() && part.data() + part.size() <= input.data() + size);
        if (const auto message = decode_message(part)) check_message_round_trip(*message);
      }
    }
    if (const auto payload = open_compressed(input.subspan(1))) {
      check(payload->size() <= max_decompressed_size);
    }
  }
  check_push_pull(input);
  check_lzw(input);
  check_stream(input);
  return 0;
}
