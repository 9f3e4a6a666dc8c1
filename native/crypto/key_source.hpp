#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/wire/messages.hpp>

// Where an agent's gossip keys come from, as Serf takes them: `-encrypt KEY` and `-keyring-file`.
namespace vigil::native {

// One base64 key of 16, 24 or 32 bytes (surrounding whitespace ignored).
Result<wire::Bytes> parse_key(std::string_view base64);

// A JSON array of base64 keys, as Serf's keyring file; the first is the primary key. An empty
// array, a non-string entry or a bad key is an error naming the entry.
Result<std::vector<wire::Bytes>> parse_keyring_json(std::string_view json);
Result<std::vector<wire::Bytes>> read_keyring_file(const std::string& path);

// The keyring an agent uses: the file's keys with `primary` (from --encrypt-key) first, once
// (memberlist's SecretKey added to and made primary of a Keyring).
std::vector<wire::Bytes> merge_keys(const std::optional<wire::Bytes>& primary,
                                    std::vector<wire::Bytes> keys);

}  // namespace vigil::native
