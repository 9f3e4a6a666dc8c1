#include <doctest/doctest.h>

#include "http/origin_policy.hpp"

using vigil::native::OriginPolicy;

TEST_CASE("origins normalise: case, default ports, trailing slash") {
  CHECK(*OriginPolicy::normalize("HTTP://LocalHost:8080") == "http://localhost:8080");
  CHECK(*OriginPolicy::normalize("http://example.com") == "http://example.com:80");
  CHECK(*OriginPolicy::normalize("https://example.com/") == "https://example.com:443");
  CHECK(*OriginPolicy::normalize("http://[::1]:9000") == "http://[::1]:9000");
  CHECK(*OriginPolicy::normalize("null") == "null");
  CHECK(*OriginPolicy::normalize("chrome-extension://abcdef") == "chrome-extension://abcdef");
  CHECK(*OriginPolicy::normalize("http://127.0.0.1:*", true) == "http://127.0.0.1:*");
  for (const char* bad : {"", "127.0.0.1:8080", "://x", "http://", "http://a:0", "http://a:65536",
                          "http://a:80x", "http://a/path", "http://a:1/x", "http://user@a",
                          "http://a?q", "http://a b", "http://[::1", "1http://a", "http://a:*"}) {
    CAPTURE(bad);
    CHECK_FALSE(OriginPolicy::normalize(bad).ok());
  }
}

TEST_CASE("a new policy allows only requests without an Origin") {
  const OriginPolicy p;
  CHECK(p.allows(""));
  CHECK_FALSE(p.allows("http://127.0.0.1:8080"));
  CHECK_FALSE(p.allows("null"));
  CHECK(OriginPolicy::allow_all().allows("http://evil.example"));
}

TEST_CASE("the allow-list matches exact origins, any port with *, and null only when listed") {
  OriginPolicy p;
  REQUIRE(p.allow("http://127.0.0.1:8080/").ok());
  REQUIRE(p.allow("http://LOCALHOST:*").ok());
  CHECK(p.allows("http://127.0.0.1:8080"));
  CHECK(p.allows("HTTP://127.0.0.1:8080"));
  CHECK_FALSE(p.allows("http://127.0.0.1:8081"));
  CHECK_FALSE(p.allows("https://127.0.0.1:8080"));
  CHECK_FALSE(p.allows("http://127.0.0.10:8080"));
  CHECK(p.allows("http://localhost:1"));
  CHECK(p.allows("http://localhost:65535"));
  CHECK(p.allows("http://localhost"));  // the default port 80 is a port too: "*" matches it
  CHECK_FALSE(p.allows("http://localhost.evil.example:80"));
  CHECK_FALSE(p.allows("null"));
  CHECK_FALSE(p.allows("garbage"));
  REQUIRE(p.allow("null").ok());
  CHECK(p.allows("null"));
  CHECK_FALSE(p.allow("http://a/b").ok());
  REQUIRE(p.allow("*").ok());
  CHECK(p.allows("http://evil.example"));
}

TEST_CASE("a server's own origins: its address and the loopback names of its port") {
  const auto own = OriginPolicy::own_origins("127.0.0.1", 8081);
  CHECK(own == std::vector<std::string>{"http://127.0.0.1:8081", "http://localhost:8081"});
  const auto lan = OriginPolicy::own_origins("10.0.0.5", 80);
  CHECK(lan == std::vector<std::string>{"http://10.0.0.5:80", "http://127.0.0.1:80",
                                        "http://localhost:80"});
  const auto any = OriginPolicy::own_origins("0.0.0.0", 9000);
  CHECK(any == std::vector<std::string>{"http://127.0.0.1:9000", "http://localhost:9000"});
  const auto v6 = OriginPolicy::own_origins("::1", 9000);
  CHECK(v6 == std::vector<std::string>{"http://[::1]:9000", "http://127.0.0.1:9000",
                                       "http://localhost:9000"});
  OriginPolicy p;
  for (const auto& o : own) REQUIRE(p.allow(o).ok());
  CHECK(p.allows("http://localhost:8081"));
  CHECK(p.allows("http://127.0.0.1:8081"));
  CHECK_FALSE(p.allows("http://127.0.0.1:8080"));  // another page on this machine
}
