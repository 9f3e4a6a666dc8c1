#include "crypto/aes_gcm.hpp"

#include <openssl/evp.h>

#include <climits>
#include <memory>

namespace vigil::native {

namespace {

struct CtxFree {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using Ctx = std::unique_ptr<EVP_CIPHER_CTX, CtxFree>;

const EVP_CIPHER* gcm_for(std::size_t key_size) {
  switch (key_size) {
    case 16:
      return EVP_aes_128_gcm();
    case 24:
      return EVP_aes_192_gcm();
    case 32:
      return EVP_aes_256_gcm();
    default:
      return nullptr;
  }
}

Status check_sizes(std::span<const std::uint8_t> key, std::span<const std::uint8_t> nonce,
                   std::size_t text, std::size_t aad) {
  if (!gcm_for(key.size())) {
    return Error{"an AES key has 16, 24 or 32 bytes, not " + std::to_string(key.size())};
  }
  if (nonce.size() != kGcmNonceSize) return Error{"an AES-GCM nonce has 12 bytes"};
  if (text > INT_MAX / 2 || aad > INT_MAX / 2) return Error{"too large for AES-GCM"};
  return ok_status();
}

}  // namespace

bool valid_aes_key_size(std::size_t bytes) {
  return gcm_for(bytes) != nullptr;
}

Result<wire::Bytes> aes_gcm_seal(std::span<const std::uint8_t> key,
                                 std::span<const std::uint8_t> nonce,
                                 std::span<const std::uint8_t> plaintext,
                                 std::span<const std::uint8_t> aad) {
  if (auto s = check_sizes(key, nonce, plaintext.size(), aad.size()); !s) return s.error();
  Ctx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) return Error{"out of memory for AES-GCM"};
  wire::Bytes out(plaintext.size() + kGcmTagSize);
  int n = 0;
  bool ok = EVP_EncryptInit_ex(ctx.get(), gcm_for(key.size()), nullptr, nullptr, nullptr) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kGcmNonceSize, nullptr) == 1 &&
            EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, key.data(), nonce.data()) == 1;
  if (ok && !aad.empty())
    ok = EVP_EncryptUpdate(ctx.get(), nullptr, &n, aad.data(), static_cast<int>(aad.size())) == 1;
  int written = 0;
  if (ok && !plaintext.empty()) {
    ok = EVP_EncryptUpdate(ctx.get(), out.data(), &n, plaintext.data(),
                           static_cast<int>(plaintext.size())) == 1;
    written = n;
  }
  if (ok) {
    ok = EVP_EncryptFinal_ex(ctx.get(), out.data() + written, &n) == 1;
    written += n;
  }
  if (ok) {
    ok = static_cast<std::size_t>(written) == plaintext.size() &&
         EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kGcmTagSize,
                             out.data() + plaintext.size()) == 1;
  }
  if (!ok) return Error{"AES-GCM encryption failed"};
  return out;
}

Result<wire::Bytes> aes_gcm_open(std::span<const std::uint8_t> key,
                                 std::span<const std::uint8_t> nonce,
                                 std::span<const std::uint8_t> ciphertext_and_tag,
                                 std::span<const std::uint8_t> aad) {
  if (auto s = check_sizes(key, nonce, ciphertext_and_tag.size(), aad.size()); !s) return s.error();
  if (ciphertext_and_tag.size() < kGcmTagSize) return Error{"AES-GCM input shorter than its tag"};
  const std::size_t text = ciphertext_and_tag.size() - kGcmTagSize;
  std::uint8_t tag[kGcmTagSize];
  std::copy(ciphertext_and_tag.begin() + static_cast<std::ptrdiff_t>(text),
            ciphertext_and_tag.end(), tag);
  Ctx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) return Error{"out of memory for AES-GCM"};
  wire::Bytes out(text);
  int n = 0;
  bool ok = EVP_DecryptInit_ex(ctx.get(), gcm_for(key.size()), nullptr, nullptr, nullptr) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kGcmNonceSize, nullptr) == 1 &&
            EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr, key.data(), nonce.data()) == 1;
  if (ok && !aad.empty())
    ok = EVP_DecryptUpdate(ctx.get(), nullptr, &n, aad.data(), static_cast<int>(aad.size())) == 1;
  int written = 0;
  if (ok && text > 0) {
    ok = EVP_DecryptUpdate(ctx.get(), out.data(), &n, ciphertext_and_tag.data(),
                           static_cast<int>(text)) == 1;
    written = n;
  }
  if (ok) ok = EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kGcmTagSize, tag) == 1;
  // Final checks the tag: nothing decrypted is returned unless it authenticates.
  std::uint8_t none[kGcmTagSize];  // GCM's final step writes nothing; never hand it a null pointer
  if (ok) ok = EVP_DecryptFinal_ex(ctx.get(), text > 0 ? out.data() + written : none, &n) == 1;
  if (!ok) return Error{"message authentication failed"};
  return out;
}

}  // namespace vigil::native
