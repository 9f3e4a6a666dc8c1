#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "http/listen_socket.hpp"

using vigil::native::address_text;
using vigil::native::is_loopback;
using vigil::native::is_loopback_host_header;
using vigil::native::open_listen_sockets;

namespace {

sockaddr_storage v4(const char* text) {
  sockaddr_storage s{};
  auto* a = reinterpret_cast<sockaddr_in*>(&s);
  a->sin_family = AF_INET;
  ::inet_pton(AF_INET, text, &a->sin_addr);
  return s;
}

sockaddr_storage v6(const char* text) {
  sockaddr_storage s{};
  auto* a = reinterpret_cast<sockaddr_in6*>(&s);
  a->sin6_family = AF_INET6;
  ::inet_pton(AF_INET6, text, &a->sin6_addr);
  return s;
}

const sockaddr* sa(const sockaddr_storage& s) {
  return reinterpret_cast<const sockaddr*>(&s);
}

}  // namespace

TEST_CASE("loopback peers: 127.0.0.0/8, ::1 and IPv4-mapped 127.x, nothing else") {
  CHECK(is_loopback(sa(v4("127.0.0.1"))));
  CHECK(is_loopback(sa(v4("127.200.3.4"))));
  CHECK_FALSE(is_loopback(sa(v4("10.0.0.1"))));
  CHECK_FALSE(is_loopback(sa(v4("128.0.0.1"))));
  CHECK(is_loopback(sa(v6("::1"))));
  CHECK(is_loopback(sa(v6("::ffff:127.0.0.9"))));
  CHECK_FALSE(is_loopback(sa(v6("::ffff:10.0.0.1"))));
  CHECK_FALSE(is_loopback(sa(v6("fe80::1"))));
  CHECK(address_text(sa(v6("::ffff:127.0.0.9"))) == "127.0.0.9");
  CHECK(address_text(sa(v6("2001:db8::1"))) == "2001:db8::1");
  CHECK(address_text(sa(v4("10.1.2.3"))) == "10.1.2.3");
}

TEST_CASE("Host headers that name this machine, and those a rebinding page would send") {
  for (const char* ok :
       {"localhost", "localhost:8080", "LocalHost:8080", "localhost.", "app.localhost:80",
        "127.0.0.1", "127.0.0.1:8080", "127.9.9.9:1", "[::1]", "[::1]:8080"})
    CHECK_MESSAGE(is_loopback_host_header(ok), ok);
  for (const char* bad :
       {"", "evil.example", "evil.example:8080", "localhost.evil.example", "evil-localhost",
        "10.0.0.1:8080", "[::2]:8080", "[::1", "[::1]x", "127.0.0.1.nip.io", "0.0.0.0:8080"})
    CHECK_FALSE_MESSAGE(is_loopback_host_header(bad), bad);
}

TEST_CASE("listen sockets sit on exactly the address given; bad ones fail without leaking") {
  // An ephemeral port found by the kernel, then bound again exactly.
  const int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_storage any = v4("127.0.0.1");
  REQUIRE(::bind(probe, sa(any), sizeof(sockaddr_in)) == 0);
  socklen_t length = sizeof any;
  REQUIRE(::getsockname(probe, reinterpret_cast<sockaddr*>(&any), &length) == 0);
  const int port = ntohs(reinterpret_cast<sockaddr_in*>(&any)->sin_port);
  ::close(probe);
  auto bound = open_listen_sockets("127.0.0.1", port);
  REQUIRE(bound);
  REQUIRE(bound->size() == 1);
  CHECK(bound->front().address == "127.0.0.1:" + std::to_string(port));
  sockaddr_storage got{};
  length = sizeof got;
  REQUIRE(::getsockname(bound->front().fd, reinterpret_cast<sockaddr*>(&got), &length) == 0);
  CHECK(address_text(sa(got)) == "127.0.0.1");
  // The same address again: in use, named in the error.
  auto again = open_listen_sockets("127.0.0.1", port);
  REQUIRE_FALSE(again);
  CHECK(again.error().message.find("127.0.0.1:" + std::to_string(port)) != std::string::npos);
  CHECK(again.error().message.find("another program listens there") != std::string::npos);
  ::close(bound->front().fd);
  // Not an address of this machine (TEST-NET-1), and a port out of range.
  auto foreign = open_listen_sockets("192.0.2.1", port);
  REQUIRE_FALSE(foreign);
  CHECK(foreign.error().message.find("not an address of this machine") != std::string::npos);
  CHECK_FALSE(open_listen_sockets("127.0.0.1", 0));
  CHECK_FALSE(open_listen_sockets("127.0.0.1", 65536));
  CHECK_FALSE(open_listen_sockets("", port));
}
