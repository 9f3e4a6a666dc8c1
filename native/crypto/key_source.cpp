#include "crypto/key_source.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "crypto/aes_gcm.hpp"
#include "crypto/base64.hpp"

namespace vigil::native {

namespace {

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

constexpr std::size_t kMaxKeyringFile = 1 << 20;

}  // namespace

Result<wire::Bytes> parse_key(std::string_view base64) {
  auto key = base64_decode(trim(base64));
  if (!key) return key.error();
  if (!valid_aes_key_size(key->size())) {
    return Error{"the key decodes to " + std::to_string(key->size()) +
                 " bytes; it must be 16, 24 or 32 (AES-128, -192, -256)"};
  }
  return key;
}

Result<std::vector<wire::Bytes>> parse_keyring_json(std::string_view json) {
  const auto doc = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_array()) {
    return Error{"not a JSON array of base64 keys (like [\"KEY1\", \"KEY2\"])"};
  }
  if (doc.empty()) return Error{"no keys in the keyring"};
  std::vector<wire::Bytes> keys;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    if (!doc[i].is_string()) return Error{"entry " + std::to_string(i + 1) + " is not a string"};
    auto key = parse_key(doc[i].get<std::string>());
    if (!key) return Error{"entry " + std::to_string(i + 1) + ": " + key.error().message};
    keys.push_back(std::move(key).value());
  }
  return keys;
}

Result<std::vector<wire::Bytes>> read_keyring_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot read '" + path + "'"};
  std::string text;
  char buf[4096];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxKeyringFile) return Error{"'" + path + "' is too large for a keyring"};
  }
  if (in.bad()) return Error{"cannot read '" + path + "'"};
  auto keys = parse_keyring_json(text);
  if (!keys) return Error{"'" + path + "': " + keys.error().message};
  return keys;
}

std::vector<wire::Bytes> merge_keys(const std::optional<wire::Bytes>& primary,
                                    std::vector<wire::Bytes> keys) {
  if (!primary) return keys;
  keys.erase(std::remove(keys.begin(), keys.end(), *primary), keys.end());
  keys.insert(keys.begin(), *primary);
  return keys;
}

}  // namespace vigil::native
