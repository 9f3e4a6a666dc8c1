#pragma once

// The keyring fuzz_datagram opens encrypted datagrams with, shared with the seed corpus generator
// so that the corpus holds datagrams sealed under it. Fixed keys: a fuzzer cannot forge an AES-GCM
// tag, so only the sealed seeds get past authentication; mutations of them exercise everything the
// keyring checks before and while authenticating (version, lengths, which key, padding).
#include <array>
#include <cstdint>
#include <vector>

#include <vigil/wire/messages.hpp>
#include "crypto/keyring.hpp"

namespace vigil::fuzz {

inline wire::Bytes key_primary() {  // AES-128: what memberlist's examples use
  return {0x5a, 0x3b, 0x11, 0x90, 0x42, 0xc7, 0x0e, 0x6d,
          0x28, 0xf1, 0x83, 0x4c, 0xb2, 0x07, 0x9e, 0x65};
}

inline wire::Bytes key_secondary() {  // AES-256: a key being rotated out
  wire::Bytes key(32);
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(0xa0 + 7 * i);
  return key;
}

// Both keys, the primary first (it seals); all keys open, as during a rotation.
inline native::Keyring keyring() {
  return native::Keyring::create({key_primary(), key_secondary()}).value();
}

// The secondary key alone, to re-seal what only it opened.
inline native::Keyring secondary_keyring() {
  return native::Keyring::create({key_secondary()}).value();
}

inline constexpr std::array<std::uint8_t, 12> kSeedNonce = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

}  // namespace vigil::fuzz
