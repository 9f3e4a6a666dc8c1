#include <doctest/doctest.h>

#include <string>

#include "agent/serf_tags.hpp"

using namespace vigil::native;
using vigil::wire::Bytes;

TEST_CASE("tags are the magic byte and a MessagePack map of raw strings, as Serf writes them") {
  const Bytes meta = encode_tags({{"role", "web"}});
  // 0xFF, fixmap of 1, fixstr "role", fixstr "web".
  const Bytes expected = {0xFF, 0x81, 0xA4, 'r', 'o', 'l', 'e', 0xA3, 'w', 'e', 'b'};
  CHECK(meta == expected);
  CHECK(decode_tags(meta) == Tags{{"role", "web"}});
  const Tags two = {{"dc", "eu-1"}, {std::string(kViewTag), "http://10.0.0.7:8081"}};
  CHECK(decode_tags(encode_tags(two)) == two);
}

TEST_CASE("metadata that is not tags reads as no tags, never as an error") {
  CHECK(decode_tags(Bytes{}).empty());
  CHECK(decode_tags(Bytes{'w', 'e', 'b'}).empty());  // an old Serf's bare role
  CHECK(decode_tags(Bytes{0xFF}).empty());
  CHECK(decode_tags(Bytes{0xFF, 0x82, 0xA1, 'a', 0xA1, 'b'}).empty());    // a map cut short
  CHECK(decode_tags(Bytes{0xFF, 0x81, 0xA1, 'a', 0x05}).empty());         // a number as value
  CHECK(decode_tags(Bytes{0xFF, 0xDF, 0xFF, 0xFF, 0xFF, 0xFF}).empty());  // an absurd count
  CHECK(decode_tags(Bytes{0xFF, 0x91, 0xA1, 'a'}).empty());               // an array, not a map
}

TEST_CASE("the advertised view URL swaps a wildcard host for the protocol's bind address") {
  const vigil::swim::Address bind = vigil::swim::Address::from_octets(10, 0, 0, 7, 7946);
  CHECK(advertised_view_url("http://127.0.0.1:8081/", bind) == "http://127.0.0.1:8081");
  CHECK(advertised_view_url("http://0.0.0.0:8081/", bind) == "http://10.0.0.7:8081");
  CHECK(advertised_view_url("https://0.0.0.0:8443/", bind) == "https://10.0.0.7:8443");
  CHECK(advertised_view_url("http://:::8081/", bind) == "http://10.0.0.7:8081");
}

TEST_CASE("an advertised URL must be one and fit memberlist's 512 bytes of metadata") {
  CHECK(check_view_url("http://view.example:80"));
  CHECK(check_view_url("https://10.0.0.7:8443/"));
  CHECK_FALSE(check_view_url("ftp://x"));
  CHECK_FALSE(check_view_url("http://"));
  CHECK_FALSE(check_view_url("http://a b"));
  CHECK_FALSE(check_view_url("http://" + std::string(300, 'a')));
  auto meta = view_meta("http://127.0.0.1:65535");
  REQUIRE(meta);
  CHECK(meta->size() < kMaxMetaBytes);
  CHECK_FALSE(view_meta("http://" + std::string(600, 'a')));
}
