#include <doctest/doctest.h>

#include <string>

#include "../wire/hex.hpp"
#include "crypto/aes_gcm.hpp"

using namespace vigil::native;
using vigil::wire::Bytes;
using vigil::wire::testing::hex;

namespace {

// The test cases of McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)" (the
// specification NIST adopted as SP 800-38D), as Go's crypto/cipher tests them: memberlist
// encrypts with exactly this primitive. Recomputed here with Python's `cryptography` AESGCM.
struct Vector {
  const char* name;
  const char* key;
  const char* nonce;
  const char* plaintext;
  const char* aad;
  const char* ciphertext;
  const char* tag;
};

constexpr const char* kP =
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6"
    "b525b16aedf5aa0de657ba637b39";
constexpr const char* kA = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
constexpr const char* kN = "cafebabefacedbaddecaf888";

const Vector kVectors[] = {
    {"test case 2 (AES-128, zero key and nonce)", "00000000000000000000000000000000",
     "000000000000000000000000", "00000000000000000000000000000000", "",
     "0388dace60b6a392f328c2b971b2fe78", "ab6e47d42cec13bdf53a67b21257bddf"},
    {"test case 4 (AES-128, with aad)", "feffe9928665731c6d6a8f9467308308", kN, kP, kA,
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac8"
     "4aa051ba30b396a0aac973d58e091",
     "5bc94fbc3221a5db94fae95ae7121a47"},
    {"test case 10 (AES-192, with aad)", "feffe9928665731c6d6a8f9467308308feffe9928665731c", kN, kP,
     kA,
     "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c7d773d00c144c525ac619d18c84"
     "a3f4718e2448b2fe324d9ccda2710",
     "2519498e80f1478f37ba55bd6d27618c"},
    {"test case 16 (AES-256, with aad)",
     "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", kN, kP, kA,
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b10568"
     "28838c5f61e6393ba7a0abcc9f662",
     "76fc6ece0f4e1768cddf8853bb2d551b"},
};

// hex() reads pairs separated by spaces; these vectors are unbroken runs.
Bytes h(const char* s) {
  std::string spaced;
  for (std::size_t i = 0; s[i]; i += 2) {
    spaced += s[i];
    spaced += s[i + 1];
    spaced += ' ';
  }
  return hex(spaced);
}

}  // namespace

TEST_CASE("AES-GCM reproduces the GCM specification's test cases") {
  for (const auto& v : kVectors) {
    CAPTURE(v.name);
    const Bytes key = h(v.key), nonce = h(v.nonce), p = h(v.plaintext), a = h(v.aad);
    Bytes expected = h(v.ciphertext);
    const Bytes tag = h(v.tag);
    expected.insert(expected.end(), tag.begin(), tag.end());
    auto sealed = aes_gcm_seal(key, nonce, p, a);
    REQUIRE(sealed.ok());
    CHECK(*sealed == expected);
    auto opened = aes_gcm_open(key, nonce, expected, a);
    REQUIRE(opened.ok());
    CHECK(*opened == p);
  }
}

TEST_CASE("AES-GCM refuses anything altered, and bad sizes") {
  const auto& v = kVectors[1];
  const Bytes key = h(v.key), nonce = h(v.nonce), a = h(v.aad);
  Bytes sealed = aes_gcm_seal(key, nonce, h(v.plaintext), a).value();
  for (std::size_t i = 0; i < sealed.size(); ++i) {
    Bytes bad = sealed;
    bad[i] ^= 0x01;
    CHECK_FALSE(aes_gcm_open(key, nonce, bad, a).ok());
  }
  Bytes other_aad = a;
  other_aad.back() ^= 0x80;
  CHECK_FALSE(aes_gcm_open(key, nonce, sealed, other_aad).ok());
  CHECK_FALSE(aes_gcm_open(key, nonce, sealed, {}).ok());
  Bytes other_nonce = nonce;
  other_nonce[0] ^= 1;
  CHECK_FALSE(aes_gcm_open(key, other_nonce, sealed, a).ok());
  CHECK_FALSE(aes_gcm_open(key, nonce, Bytes(15), a).ok());
  CHECK_FALSE(aes_gcm_seal(Bytes(15), nonce, {}, {}).ok());
  CHECK_FALSE(aes_gcm_seal(key, Bytes(8), {}, {}).ok());
  CHECK(valid_aes_key_size(16));
  CHECK(valid_aes_key_size(24));
  CHECK(valid_aes_key_size(32));
  CHECK_FALSE(valid_aes_key_size(0));
  CHECK_FALSE(valid_aes_key_size(31));
}
