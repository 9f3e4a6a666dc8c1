// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <vigil/base/result.hpp>
#include <vigil/wire/messages.hpp>

namespace vigil::wire {

// memberlist's gossip encryption as the codec and the engine see it: something that seals a
// plaintext into [version][12-byte nonce][ciphertext][16-byte tag] and opens what a peer sealed,
// authenticating `aad` (associated data: sent elsewhere or implied, never inside the sealed bytes).
// The core holds no cryptography (the web build has none); the native agent plugs in an AES-GCM
// keyring built on OpenSSL (native/crypto/keyring.hpp).
class Cipher {
 public:
  virtual ~Cipher() = default;

  // Seals with the primary key and a fresh nonce.
  virtual Result<Bytes> seal(std::span<const std::uint8_t> plaintext,
                             std::span<const std::uint8_t> aad) const = 0;
  // Opens with whichever key authenticates the bytes; an error when none does, or when the bytes
  // are too short or of an unknown version. Never reads outside `sealed`.
  virtual Result<Bytes> open(std::span<const std::uint8_t> sealed,
                             std::span<const std::uint8_t> aad) const = 0;
  // The bytes seal() adds to any plaintext (memberlist's encryptOverhead: 29 for version 1), so
  // that piggybacked gossip still fits the datagram budget once sealed and a stream can announce
  // the sealed length it authenticates before sealing.
  virtual std::size_t overhead() const = 0;
};

}  // namespace vigil::wire
