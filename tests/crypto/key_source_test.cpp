#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "crypto/base64.hpp"
#include "crypto/key_source.hpp"

using namespace vigil::native;
using vigil::wire::Bytes;

namespace {

Bytes text(std::string_view s) {
  return Bytes(s.begin(), s.end());
}

std::string temp_file(const std::string& contents) {
  char path[] = "/tmp/vigil-keyring-test-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  std::ofstream(path) << contents;
  return path;
}

// 16, 24 and 32 bytes, as `serf keygen` prints them (32 bytes).
constexpr const char* k16 = "AAECAwQFBgcICQoLDA0ODw==";
constexpr const char* k24 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX";
constexpr const char* k32 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

}  // namespace

TEST_CASE("base64: RFC 4648's test vectors both ways") {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    CHECK(base64_encode(text(plain)) == encoded);
    CHECK(base64_decode(encoded).value() == text(plain));
  }
  Bytes all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<std::uint8_t>(i);
  CHECK(base64_decode(base64_encode(all)).value() == all);
}

TEST_CASE("base64: malformed text is refused with a reason") {
  for (const char* bad : {"Zg=", "Zg", "Z===", "====", "Zm9v!", "Zm9v Zg==", "Zg==Zg==", "Zm=v",
                          "Zm9-", "Zm9_", "Zg==\n"}) {
    CAPTURE(bad);
    auto r = base64_decode(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("not base64") == 0);
  }
}

TEST_CASE("keys: 16, 24 or 32 bytes of base64") {
  CHECK(parse_key(k16).value().size() == 16);
  CHECK(parse_key(k24).value().size() == 24);
  CHECK(parse_key(k32).value().size() == 32);
  CHECK(parse_key(std::string("  ") + k32 + "\n").value().size() == 32);
  auto short_key = parse_key("AAECAwQFBgcICQ==");
  REQUIRE_FALSE(short_key.ok());
  CHECK(short_key.error().message.find("decodes to 10 bytes; it must be 16, 24 or 32") !=
        std::string::npos);
  CHECK(parse_key("not a key!").error().message.find("not base64") == 0);
  CHECK_FALSE(parse_key("").ok());
}

TEST_CASE("keyring files: a JSON array of base64 keys, the first one primary") {
  auto keys = parse_keyring_json(std::string("[\"") + k32 + "\", \"" + k16 + "\"]");
  REQUIRE(keys.ok());
  REQUIRE(keys->size() == 2);
  CHECK(keys->at(0) == parse_key(k32).value());
  CHECK(keys->at(1) == parse_key(k16).value());

  CHECK(parse_keyring_json("[]").error().message == "no keys in the keyring");
  CHECK(parse_keyring_json("{\"keys\": []}").error().message.find("not a JSON array") == 0);
  CHECK(parse_keyring_json("[\"" + std::string(k16) + "\"")
            .error()
            .message.find("not a JSON array") == 0);
  CHECK(parse_keyring_json("[\"" + std::string(k16) + "\", 7]").error().message ==
        "entry 2 is not a string");
  CHECK(parse_keyring_json("[\"" + std::string(k16) + "\", \"AAAA\"]")
            .error()
            .message.find("entry 2: ") == 0);

  const std::string path = temp_file(std::string("[\n  \"") + k24 + "\"\n]\n");
  CHECK(read_keyring_file(path).value().at(0) == parse_key(k24).value());
  std::remove(path.c_str());
  auto missing = read_keyring_file("/nonexistent/vigil/keyring.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "cannot read '/nonexistent/vigil/keyring.json'");
  const std::string broken = temp_file("not json");
  CHECK(read_keyring_file(broken).error().message.find("'" + broken + "': not a JSON array") == 0);
  std::remove(broken.c_str());
}

TEST_CASE("keys: --encrypt-key becomes the primary of the file's keyring") {
  const Bytes a = parse_key(k16).value(), b = parse_key(k24).value(), c = parse_key(k32).value();
  CHECK(merge_keys(std::nullopt, {a, b}) == std::vector<Bytes>{a, b});
  CHECK(merge_keys(c, {a, b}) == std::vector<Bytes>{c, a, b});
  CHECK(merge_keys(b, {a, b}) == std::vector<Bytes>{b, a});
  CHECK(merge_keys(a, {}) == std::vector<Bytes>{a});
}
