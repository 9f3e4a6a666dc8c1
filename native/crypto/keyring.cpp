#include "crypto/keyring.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>
#include <string>

namespace vigil::native {

namespace {

constexpr std::size_t kBlock = 16;  // AES block: the PKCS7 padding unit of version 0

// The shortest sealed packet of each version: an empty plaintext (padded to one whole block in
// version 0), as memberlist's encryptedLength(vsn, 0).
std::size_t min_sealed(std::uint8_t version) {
  return 1 + kGcmNonceSize + (version == Keyring::kVersionPadded ? kBlock : 0) + kGcmTagSize;
}

}  // namespace

Result<Keyring> Keyring::create(std::vector<wire::Bytes> keys) {
  if (keys.empty()) return Error{"a keyring needs at least one key"};
  std::vector<wire::Bytes> unique;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (!valid_aes_key_size(keys[i].size())) {
      return Error{"key " + std::to_string(i + 1) + " has " + std::to_string(keys[i].size()) +
                   " bytes; an AES key has 16, 24 or 32"};
    }
    if (std::find(unique.begin(), unique.end(), keys[i]) == unique.end()) unique.push_back(keys[i]);
  }
  for (auto& k : keys) OPENSSL_cleanse(k.data(), k.size());
  return Keyring(std::move(unique));
}

Keyring::~Keyring() {
  for (auto& k : keys_) OPENSSL_cleanse(k.data(), k.size());
}

Result<wire::Bytes> Keyring::seal(std::span<const std::uint8_t> plaintext,
                                  std::span<const std::uint8_t> aad) const {
  std::uint8_t nonce[kGcmNonceSize];
  if (RAND_bytes(nonce, sizeof nonce) != 1) return Error{"no random bytes for a nonce"};
  return seal_with_nonce(kVersionPlain, nonce, plaintext, aad);
}

Result<wire::Bytes> Keyring::seal_with_nonce(std::uint8_t version,
                                             std::span<const std::uint8_t> nonce,
                                             std::span<const std::uint8_t> plaintext,
                                             std::span<const std::uint8_t> aad) const {
  if (version > kVersionPlain)
    return Error{"unknown encryption version " + std::to_string(version)};
  if (nonce.size() != kGcmNonceSize) return Error{"an AES-GCM nonce has 12 bytes"};
  wire::Bytes padded;
  if (version == kVersionPadded) {
    // PKCS7: 1 to 16 bytes, each holding the count, so that unpadding is unambiguous.
    const std::size_t more = kBlock - plaintext.size() % kBlock;
    padded.assign(plaintext.begin(), plaintext.end());
    padded.insert(padded.end(), more, static_cast<std::uint8_t>(more));
    plaintext = padded;
  }
  auto body = aes_gcm_seal(keys_.front(), nonce, plaintext, aad);
  if (!padded.empty()) OPENSSL_cleanse(padded.data(), padded.size());
  if (!body) return body.error();
  wire::Bytes out;
  out.reserve(1 + nonce.size() + body->size());
  out.push_back(version);
  out.insert(out.end(), nonce.begin(), nonce.end());
  out.insert(out.end(), body->begin(), body->end());
  return out;
}

Result<wire::Bytes> Keyring::open(std::span<const std::uint8_t> sealed,
                                  std::span<const std::uint8_t> aad) const {
  if (sealed.empty()) return Error{"empty encrypted payload"};
  const std::uint8_t version = sealed[0];
  if (version > kVersionPlain) {
    return Error{"unsupported encryption version " + std::to_string(version)};
  }
  if (sealed.size() < min_sealed(version)) {
    return Error{"encrypted payload too short: " + std::to_string(sealed.size()) + " bytes"};
  }
  const auto nonce = sealed.subspan(1, kGcmNonceSize);
  const auto body = sealed.subspan(1 + kGcmNonceSize);
  for (const auto& key : keys_) {
    auto plain = aes_gcm_open(key, nonce, body, aad);
    if (!plain) continue;
    if (version == kVersionPlain) return plain;
    // Authentic, so padded by a key holder; still checked rather than trusted.
    const std::size_t more = plain->empty() ? 0 : plain->back();
    const bool valid = more >= 1 && more <= kBlock && more <= plain->size() &&
                       std::all_of(plain->end() - static_cast<std::ptrdiff_t>(more), plain->end(),
                                   [&](std::uint8_t b) { return b == more; });
    if (!valid) return Error{"bad PKCS7 padding in an authentic version 0 payload"};
    plain->resize(plain->size() - more);
    return plain;
  }
  return Error{"no installed key could decrypt the message"};
}

}  // namespace vigil::native
