#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "../wire/hex.hpp"
#include "crypto/aes_gcm.hpp"
#include "crypto/keyring.hpp"
#include "test_keys.hpp"

using namespace vigil::native;
using vigil::crypto_testing::key_of;
using vigil::wire::Bytes;
using vigil::wire::testing::hex;

namespace {

Bytes text(std::string_view s) {
  return Bytes(s.begin(), s.end());
}

Keyring ring(std::vector<Bytes> keys) {
  return Keyring::create(std::move(keys)).value();
}

// memberlist's TestEncryptDecrypt inputs (security_test.go: key 0..15, this plaintext and extra
// data) sealed with the fixed nonce 10 11 .. 1b. The expected bytes were computed independently
// with Python's `cryptography` AESGCM following memberlist's security.go layout: the version
// byte, the nonce, then AESGCM(key).encrypt(nonce, plaintext [+ PKCS7 padding], aad).
const Bytes kNonce = hex("10 11 12 13 14 15 16 17 18 19 1a 1b");
const Bytes kPlain = text("this is a plain text message");
const Bytes kAad = text("random data");
const Bytes kVersion1 = hex(
    "01 10 11 12 13 14 15 16 17 18 19 1a 1b b0 46 6a dc 2f 26 c5 cf 76 fd 2d 99 a6 4e 85 1e 4e d9 "
    "0c f3 16 99 0e cc f6 aa 4e 74 5f 91 0f 5e 8c 3e 7b dd 6b 6e 8c 09 3d 05 d9 b4");
const Bytes kVersion0 = hex(
    "00 10 11 12 13 14 15 16 17 18 19 1a 1b b0 46 6a dc 2f 26 c5 cf 76 fd 2d 99 a6 4e 85 1e 4e d9 "
    "0c f3 16 99 0e cc f6 aa 4e 74 63 01 15 a9 54 dc 0b c2 6b d4 e9 3f 99 9f 08 ed bc 40 3b d5");

}  // namespace

TEST_CASE("keyring: known answers for memberlist's envelope, versions 1 and 0") {
  const Keyring k = ring({key_of(16)});
  auto v1 = k.seal_with_nonce(Keyring::kVersionPlain, kNonce, kPlain, kAad);
  REQUIRE(v1.ok());
  CHECK(*v1 == kVersion1);
  CHECK(v1->size() == kPlain.size() + 29);  // memberlist's encryptedLength(1, n)
  auto v0 = k.seal_with_nonce(Keyring::kVersionPadded, kNonce, kPlain, kAad);
  REQUIRE(v0.ok());
  CHECK(*v0 == kVersion0);
  CHECK(v0->size() == 1 + 12 + 32 + 16);  // 28 bytes padded to 32: encryptedLength(0, 28)
  CHECK(k.open(kVersion1, kAad).value() == kPlain);
  CHECK(k.open(kVersion0, kAad).value() == kPlain);
}

TEST_CASE("keyring: round trips with every key size, version and length") {
  for (std::size_t size : {16u, 24u, 32u}) {
    CAPTURE(size);
    const Keyring k = ring({key_of(size, 7)});
    CHECK(k.overhead() == 29);
    for (std::size_t n : {0u, 1u, 15u, 16u, 17u, 1400u}) {
      CAPTURE(n);
      Bytes plain(n);
      for (std::size_t i = 0; i < n; ++i) plain[i] = static_cast<std::uint8_t>(i * 31);
      for (const Bytes& aad : {Bytes{}, text("blue")}) {
        auto sealed = k.seal(plain, aad);
        REQUIRE(sealed.ok());
        CHECK(sealed->size() == n + k.overhead());
        CHECK((*sealed)[0] == 1);
        CHECK(k.open(*sealed, aad).value() == plain);
        auto padded = k.seal_with_nonce(0, kNonce, plain, aad);
        REQUIRE(padded.ok());
        CHECK(padded->size() == 1 + 12 + (n / 16 + 1) * 16 + 16);
        CHECK(k.open(*padded, aad).value() == plain);
      }
    }
  }
}

TEST_CASE("keyring: fresh nonces, so equal plaintexts seal differently") {
  const Keyring k = ring({key_of(32)});
  const Bytes a = k.seal(kPlain, {}).value(), b = k.seal(kPlain, {}).value();
  CHECK(a != b);
  CHECK(Bytes(a.begin() + 1, a.begin() + 13) != Bytes(b.begin() + 1, b.begin() + 13));
}

TEST_CASE("keyring: rotation: the first key seals, every key opens") {
  const Bytes old_key = key_of(16, 100), new_key = key_of(32, 200);
  const Keyring old_only = ring({old_key});
  const Keyring rotating = ring({new_key, old_key});  // new primary, old still installed
  const Keyring new_only = ring({new_key});
  const Bytes from_old = old_only.seal(kPlain, kAad).value();
  const Bytes from_rotating = rotating.seal(kPlain, kAad).value();
  CHECK(rotating.open(from_old, kAad).value() == kPlain);       // old key still decrypts
  CHECK(new_only.open(from_rotating, kAad).value() == kPlain);  // new key encrypts
  CHECK_FALSE(old_only.open(from_rotating, kAad).ok());
  CHECK_FALSE(new_only.open(from_old, kAad).ok());
  // Installing before switching: [old, new] still seals with old, so old-only members keep up.
  const Keyring installed = ring({old_key, new_key});
  CHECK(old_only.open(installed.seal(kPlain, kAad).value(), kAad).value() == kPlain);
}

TEST_CASE("keyring: keys are checked, repeats kept once") {
  CHECK_FALSE(Keyring::create({}).ok());
  for (std::size_t bad : {0u, 1u, 15u, 17u, 23u, 31u, 33u, 64u}) {
    auto r = Keyring::create({key_of(16), key_of(bad)});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("key 2 has " + std::to_string(bad) + " bytes") !=
          std::string::npos);
  }
  const Keyring k = ring({key_of(16), key_of(24), key_of(16)});
  CHECK(k.keys().size() == 2);
  CHECK(k.keys().front() == key_of(16));
}

TEST_CASE("keyring: tampering with any byte, the aad or the label is refused") {
  const Keyring k = ring({key_of(24)});
  for (const Bytes& sealed :
       {k.seal(kPlain, kAad).value(), k.seal_with_nonce(0, kNonce, kPlain, kAad).value()}) {
    for (std::size_t i = 0; i < sealed.size(); ++i) {
      CAPTURE(i);
      for (std::uint8_t flip : {0x01, 0x80}) {
        if (i == 0 && flip == 0x01) continue;  // 0 <-> 1: see the next test case
        Bytes bad = sealed;
        bad[i] ^= flip;
        CHECK_FALSE(k.open(bad, kAad).ok());  // nonce, ciphertext and tag all count
      }
    }
    CHECK_FALSE(k.open(sealed, {}).ok());
    CHECK_FALSE(k.open(sealed, text("random datA")).ok());
    CHECK_FALSE(k.open(sealed, text("random data ")).ok());
    Bytes longer = sealed;
    longer.push_back(0);
    CHECK_FALSE(k.open(longer, kAad).ok());
  }
  // A label is associated data: the same packet does not open under another cluster's label.
  const Bytes blue = k.seal(kPlain, text("blue")).value();
  CHECK(k.open(blue, text("blue")).ok());
  CHECK_FALSE(k.open(blue, text("red!")).ok());
  CHECK_FALSE(k.open(blue, {}).ok());
}

TEST_CASE("keyring: the version byte is not authenticated, yet changing it forges nothing") {
  // memberlist seals the version byte outside the AEAD. Switching 0 <-> 1 only changes whether
  // the padding is stripped: version 1 read as 0 fails the PKCS7 check (unless its plaintext
  // happens to end like padding), version 0 read as 1 yields the authentic plaintext followed by
  // its authentic padding. No byte that a key holder did not seal ever comes out.
  const Keyring k = ring({key_of(24)});
  Bytes v1 = k.seal(kPlain, kAad).value();
  v1[0] = 0;
  auto as0 = k.open(v1, kAad);
  REQUIRE_FALSE(as0.ok());
  CHECK(as0.error().message.find("PKCS7") != std::string::npos);
  Bytes v0 = k.seal_with_nonce(0, kNonce, kPlain, kAad).value();
  v0[0] = 1;
  auto as1 = k.open(v0, kAad);
  REQUIRE(as1.ok());
  Bytes padded = kPlain;
  padded.insert(padded.end(), 4, 4);  // 28 bytes + 4 of padding
  CHECK(*as1 == padded);
}

TEST_CASE("keyring: truncated, empty and unknown-version inputs are refused without harm") {
  const Keyring k = ring({key_of(16)});
  for (const Bytes& sealed : {kVersion1, kVersion0}) {
    for (std::size_t n = 0; n < sealed.size(); ++n) {
      CAPTURE(n);
      const Bytes cut(sealed.begin(), sealed.begin() + static_cast<std::ptrdiff_t>(n));
      auto r = k.open(cut, kAad);
      CHECK_FALSE(r.ok());
      // The tail is cut off too: an input that ends early never opens.
      const Bytes tail(sealed.end() - static_cast<std::ptrdiff_t>(n), sealed.end());
      CHECK_FALSE(k.open(tail, kAad).ok());
    }
  }
  CHECK(k.open({}, {}).error().message.find("empty") != std::string::npos);
  for (int version = 2; version < 256; ++version) {
    Bytes v = kVersion1;
    v[0] = static_cast<std::uint8_t>(version);
    auto r = k.open(v, kAad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("unsupported encryption version") != std::string::npos);
  }
  // The shortest inputs each version accepts: an empty plaintext.
  CHECK(k.open(k.seal({}, {}).value(), {}).value().empty());
  CHECK(k.seal({}, {}).value().size() == 29);
  CHECK(k.seal_with_nonce(0, kNonce, {}, {}).value().size() == 45);
  CHECK(k.open(k.seal_with_nonce(0, kNonce, {}, {}).value(), {}).value().empty());
  CHECK_FALSE(k.seal_with_nonce(2, kNonce, {}, {}).ok());
  CHECK_FALSE(k.seal_with_nonce(1, Bytes(11), {}, {}).ok());
}

TEST_CASE("keyring: an authentic version 0 payload with bad padding is still refused") {
  const Bytes key = key_of(16);
  const Keyring k = ring({key});
  // Sealed by a key holder but padded wrongly: a last byte of 0 or 17, or inconsistent padding.
  for (const Bytes& inner : {hex("01 02 03 00"), hex("01 02 03 11"), hex("01 02 03 02"), Bytes{}}) {
    Bytes sealed = {0};
    sealed.insert(sealed.end(), kNonce.begin(), kNonce.end());
    Bytes padded_to_block = inner;
    if (!inner.empty()) padded_to_block.insert(padded_to_block.begin(), 16 - inner.size(), 0x41);
    auto body = aes_gcm_seal(key, kNonce, padded_to_block, {}).value();
    sealed.insert(sealed.end(), body.begin(), body.end());
    CHECK_FALSE(k.open(sealed, {}).ok());
  }
}
