#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <vigil/base/result.hpp>
#include <vigil/wire/messages.hpp>

namespace vigil::native {

// AES-GCM from OpenSSL's libcrypto with a 12-byte nonce and a 16-byte tag; the key's length (16,
// 24 or 32 bytes) selects AES-128, AES-192 or AES-256. The same primitive as Go's
// cipher.NewGCM(aes.NewCipher(key)), which memberlist uses.
inline constexpr std::size_t kGcmNonceSize = 12;
inline constexpr std::size_t kGcmTagSize = 16;

bool valid_aes_key_size(std::size_t bytes);

// ciphertext || tag.
Result<wire::Bytes> aes_gcm_seal(std::span<const std::uint8_t> key,
                                 std::span<const std::uint8_t> nonce,
                                 std::span<const std::uint8_t> plaintext,
                                 std::span<const std::uint8_t> aad);
// The plaintext, or an error when the tag does not authenticate ciphertext, nonce and aad.
Result<wire::Bytes> aes_gcm_open(std::span<const std::uint8_t> key,
                                 std::span<const std::uint8_t> nonce,
                                 std::span<const std::uint8_t> ciphertext_and_tag,
                                 std::span<const std::uint8_t> aad);

}  // namespace vigil::native
