#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/wire/cipher.hpp>
#include "crypto/aes_gcm.hpp"

namespace vigil::native {

// memberlist's keyring and encryption envelope, byte for byte (memberlist's keyring.go and
// security.go): AES-GCM keys of 16, 24 or 32 bytes; the first (primary) key seals, and every key
// is tried to open, so a cluster can rotate keys without splitting. A sealed packet is
//
//   [version][12-byte random nonce][ciphertext][16-byte tag]
//
// version 1 without padding (what memberlist writes at protocol version 2 and up, its default), and
// version 0 with PKCS7 padding to the 16-byte block (memberlist at protocol version 1) read too.
class Keyring final : public wire::Cipher {
 public:
  static constexpr std::uint8_t kVersionPadded = 0;
  static constexpr std::uint8_t kVersionPlain = 1;
  static constexpr std::size_t kOverhead = 1 + kGcmNonceSize + kGcmTagSize;  // version 1: 29

  // At least one key, each 16, 24 or 32 bytes; a repeated key is kept once (memberlist's AddKey).
  static Result<Keyring> create(std::vector<wire::Bytes> keys);

  Keyring(Keyring&&) = default;
  Keyring& operator=(Keyring&&) = default;
  Keyring(const Keyring&) = delete;
  Keyring& operator=(const Keyring&) = delete;
  ~Keyring() override;  // wipes the keys

  const std::vector<wire::Bytes>& keys() const { return keys_; }

  Result<wire::Bytes> seal(std::span<const std::uint8_t> plaintext,
                           std::span<const std::uint8_t> aad) const override;
  Result<wire::Bytes> open(std::span<const std::uint8_t> sealed,
                           std::span<const std::uint8_t> aad) const override;
  std::size_t overhead() const override { return kOverhead; }

  // seal() with a chosen version (0 or 1) and nonce: for known-answer tests only, since a nonce
  // must never repeat under one key.
  Result<wire::Bytes> seal_with_nonce(std::uint8_t version, std::span<const std::uint8_t> nonce,
                                      std::span<const std::uint8_t> plaintext,
                                      std::span<const std::uint8_t> aad) const;

 private:
  explicit Keyring(std::vector<wire::Bytes> keys) : keys_(std::move(keys)) {}
  std::vector<wire::Bytes> keys_;
};

}  // namespace vigil::native
