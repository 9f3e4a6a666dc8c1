#include <doctest/doctest.h>

#include <vigil/wire/codec.hpp>
#include <vigil/wire/stream_frame.hpp>
#include "../wire/hex.hpp"
#include "crypto/keyring.hpp"
#include "test_keys.hpp"

using namespace vigil::native;
using vigil::crypto_testing::key_of;
using vigil::wire::Bytes;
using vigil::wire::frame_stream;
using vigil::wire::read_stream;
using vigil::wire::StreamRead;
using vigil::wire::testing::hex;

namespace {

// An empty push-pull: [6]{Nodes: 0, UserStateLen: 0, Join: false}.
const Bytes kPushPull = hex("06 83 a5 'Nodes' 00 ac 'UserStateLen' 00 a4 'Join' c2");

bool decodes(std::span<const std::uint8_t> m) {
  return vigil::wire::decode_push_pull_view(m).ok();
}

StreamRead read(const Bytes& received, std::string_view label, const Keyring* k) {
  return read_stream(received, label, k, decodes);
}

}  // namespace

TEST_CASE(
    "stream framing: a known answer for label + encryption (memberlist's encryptLocalState)") {
  // Computed with Python's `cryptography` AESGCM following memberlist's net.go: label header,
  // [10][sealed length u32 BE], then the version 1 envelope whose aad is [10][length] + "blue".
  // Key 00..1f, nonce a0..ab.
  const Bytes expected =
      hex("f4 04 'blue' 0a 00 00 00 3a 01 a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab e0 9b d9 63 2a af 67 "
          "cc 62 "
          "c9 d2 a0 62 08 93 aa 11 d8 3c 5c f7 d9 42 c8 d6 61 4f e8 bd 27 c1 01 5e 82 8a 7b 44 29 "
          "b1 dc "
          "4e 60 56 21 ee");
  const Keyring k = Keyring::create({key_of(32)}).value();
  auto r = read(expected, "blue", &k);
  REQUIRE(r.status == StreamRead::Status::ready);
  CHECK(r.message == kPushPull);
  // And the envelope we write has that very layout (only the random nonce differs).
  const Bytes mine = frame_stream(kPushPull, "blue", &k).value();
  REQUIRE(mine.size() == expected.size());
  CHECK(Bytes(mine.begin(), mine.begin() + 12) == Bytes(expected.begin(), expected.begin() + 12));
}

TEST_CASE("stream framing: round trips with and without label and keys") {
  const Keyring k = Keyring::create({key_of(16)}).value();
  for (std::string_view label : {"", "blue"}) {
    for (const Keyring* cipher : {static_cast<const Keyring*>(nullptr), &k}) {
      CAPTURE(label);
      CAPTURE(cipher != nullptr);
      const Bytes framed = frame_stream(kPushPull, label, cipher).value();
      auto r = read(framed, label, cipher);
      REQUIRE(r.status == StreamRead::Status::ready);
      CHECK(r.message == kPushPull);
      // Every prefix is only "incomplete", never a refusal or a crash.
      for (std::size_t n = 0; n < framed.size(); ++n) {
        const Bytes cut(framed.begin(), framed.begin() + static_cast<std::ptrdiff_t>(n));
        CHECK(read(cut, label, cipher).status == StreamRead::Status::incomplete);
      }
    }
  }
  CHECK(frame_stream(kPushPull, "", nullptr).value() == kPushPull);
  CHECK_FALSE(frame_stream(kPushPull, std::string(256, 'x'), &k).ok());
}

TEST_CASE("stream framing: wrong labels, keys and plaintext are refused") {
  const Keyring k = Keyring::create({key_of(16)}).value();
  const Keyring other = Keyring::create({key_of(16, 99)}).value();
  using R = StreamRead::Refusal;
  auto refusal = [](const StreamRead& r) {
    return r.status == StreamRead::Status::refused ? r.refusal : R::none;
  };
  const Bytes sealed = frame_stream(kPushPull, "", &k).value();
  const Bytes blue = frame_stream(kPushPull, "blue", &k).value();
  const Bytes plain = frame_stream(kPushPull, "", nullptr).value();
  CHECK(refusal(read(sealed, "", &other)) == R::encryption);   // another key
  CHECK(refusal(read(plain, "", &k)) == R::encryption);        // plaintext where a key is set
  CHECK(refusal(read(sealed, "", nullptr)) == R::encryption);  // encrypted, no key here
  CHECK(refusal(read(blue, "", &k)) == R::label);              // a label where none is used
  CHECK(refusal(read(sealed, "blue", &k)) == R::label);        // no label where one is required
  CHECK(refusal(read(blue, "bleu", &k)) == R::label);
  CHECK(refusal(read(hex("f4 00 06"), "", &k)) == R::label);  // an empty label header
  // A rewritten label header: the label is authenticated, so the envelope does not open.
  Bytes relabelled = blue;
  std::copy_n("reds", 4, relabelled.begin() + 2);
  CHECK(refusal(read(relabelled, "reds", &k)) == R::encryption);
  // The announced length is authenticated too.
  Bytes shorter = sealed;
  shorter[4] -= 1;
  CHECK(refusal(read(shorter, "", &k)) == R::encryption);
  Bytes longer = sealed;
  longer[4] += 1;
  CHECK(read(longer, "", &k).status == StreamRead::Status::incomplete);
  // Over memberlist's 20 MiB limit: refused before waiting for it.
  CHECK(refusal(read(hex("0a 01 40 00 01"), "", &k)) == R::malformed);
  // Any flipped byte after the length is refused.
  for (std::size_t i = 5; i < sealed.size(); ++i) {
    Bytes bad = sealed;
    bad[i] ^= 0x20;
    CHECK(refusal(read(bad, "", &k)) == R::encryption);
  }
}

TEST_CASE("stream framing: a reply carries no label header, as memberlist answers") {
  const Keyring k = Keyring::create({key_of(16)}).value();
  const Keyring other = Keyring::create({key_of(16, 99)}).value();
  using vigil::wire::StreamPart;
  auto reply = [](const Bytes& b, std::string_view label, const Keyring* c) {
    return read_stream(b, label, c, decodes, StreamPart::reply);
  };
  // Plaintext: the message alone, whatever the label (memberlist checks it only on the request).
  CHECK(frame_stream(kPushPull, "blue", nullptr, StreamPart::reply).value() == kPushPull);
  CHECK(reply(kPushPull, "blue", nullptr).status == StreamRead::Status::ready);
  // Encrypted: [10][length][sealed], the label still authenticated as associated data.
  const Bytes sealed = frame_stream(kPushPull, "blue", &k, StreamPart::reply).value();
  REQUIRE(sealed.size() == 5 + kPushPull.size() + 29);
  CHECK(sealed[0] == 10);
  auto r = reply(sealed, "blue", &k);
  REQUIRE(r.status == StreamRead::Status::ready);
  CHECK(r.message == kPushPull);
  CHECK(reply(sealed, "red", &k).status == StreamRead::Status::refused);
  CHECK(reply(sealed, "blue", &other).status == StreamRead::Status::refused);
  // A request-style header where an answer is due is refused.
  const Bytes request = frame_stream(kPushPull, "blue", &k).value();
  CHECK(request[0] == 244);
  auto headed = reply(request, "blue", &k);
  CHECK(headed.status == StreamRead::Status::refused);
  CHECK(headed.refusal == StreamRead::Refusal::label);
  for (std::size_t n = 0; n < sealed.size(); ++n) {
    const Bytes cut(sealed.begin(), sealed.begin() + static_cast<std::ptrdiff_t>(n));
    CHECK(reply(cut, "blue", &k).status == StreamRead::Status::incomplete);
  }
}

TEST_CASE("stream framing: a compressed message is expanded and flagged, sealed or not") {
  const Keyring k = Keyring::create({key_of(32)}).value();
  const Bytes compressed = vigil::wire::make_compressed(kPushPull);
  for (const Keyring* cipher : {static_cast<const Keyring*>(nullptr), &k}) {
    CAPTURE(cipher != nullptr);
    const Bytes framed = frame_stream(compressed, "blue", cipher).value();
    auto r = read(framed, "blue", cipher);
    REQUIRE(r.status == StreamRead::Status::ready);
    CHECK(r.message == kPushPull);
    CHECK(r.compressed);
    // Not all there yet: incomplete, never refused.
    const Bytes cut(framed.begin(), framed.end() - 1);
    CHECK(read(cut, "blue", cipher).status == StreamRead::Status::incomplete);
    auto plain = read(frame_stream(kPushPull, "blue", cipher).value(), "blue", cipher);
    REQUIRE(plain.status == StreamRead::Status::ready);
    CHECK_FALSE(plain.compressed);
  }
}
