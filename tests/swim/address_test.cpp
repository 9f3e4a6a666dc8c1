#include <doctest/doctest.h>

#include <set>
#include <unordered_set>

#include <vigil/base/rng.hpp>
#include <vigil/swim/address.hpp>
#include <vigil/swim/node.hpp>
#include <vigil/wire/codec.hpp>

using vigil::Millis;
using namespace vigil::swim;
namespace wire = vigil::wire;

namespace {

Address v6(std::initializer_list<std::uint8_t> bytes, std::uint16_t port) {
  std::array<std::uint8_t, 16> ip{};
  std::copy(bytes.begin(), bytes.end(), ip.begin());
  return Address::from_v6(ip, port);
}

const Address kLoopback6 = v6({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 7946);
const Address kDoc6 = v6({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x2a}, 80);

wire::Bytes bytes_of(const Address& a) {
  const auto b = a.ip_bytes();
  return wire::Bytes(b.begin(), b.end());
}

}  // namespace

TEST_CASE("IPv4 addresses keep their text, number and 4 wire bytes") {
  const Address a = Address::from_octets(127, 0, 0, 1, 7946);
  CHECK(a.is_v4());
  CHECK(a.v4() == 0x7F000001u);
  CHECK(a.to_string() == "127.0.0.1:7946");
  CHECK(a.ip_text() == "127.0.0.1");
  CHECK(bytes_of(a) == wire::Bytes{127, 0, 0, 1});
  CHECK(Address::from_v4(0x0A000203u, 1) == Address::from_octets(10, 0, 2, 3, 1));
  CHECK(Address{}.to_string() == "0.0.0.0:0");
}

TEST_CASE("IPv6 addresses print in brackets, RFC 5952 style, and carry 16 wire bytes") {
  CHECK_FALSE(kLoopback6.is_v4());
  CHECK(kLoopback6.to_string() == "[::1]:7946");
  CHECK(kDoc6.to_string() == "[2001:db8::1:0:0:2a]:80");
  CHECK(v6({}, 1).to_string() == "[::]:1");
  CHECK(v6({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 1).ip_text() == "fe80::");
  CHECK(bytes_of(kLoopback6).size() == 16);
  CHECK(bytes_of(kLoopback6).back() == 1);
}

TEST_CASE("memberlist's Addr bytes read back as the address they came from") {
  for (const Address& a : {Address::from_octets(10, 1, 2, 3, 7946), kLoopback6, kDoc6}) {
    auto back = Address::from_bytes(bytes_of(a), a.port);
    REQUIRE(back);
    CHECK(*back == a);
  }
  // An IPv4-mapped 16-byte address is the IPv4 address, sent back as 4 bytes.
  const wire::Bytes mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 168, 1, 9};
  auto m = Address::from_bytes(mapped, 5);
  REQUIRE(m);
  CHECK(*m == Address::from_octets(192, 168, 1, 9, 5));
  CHECK(bytes_of(*m).size() == 4);
  CHECK_FALSE(Address::from_bytes(wire::Bytes{1, 2, 3}, 1));
  CHECK_FALSE(Address::from_bytes(wire::Bytes(17, 0), 1));
}

TEST_CASE("addresses order, compare and hash by address and port") {
  const Address a = Address::from_octets(10, 0, 0, 1, 1), b = Address::from_octets(10, 0, 0, 1, 2);
  const Address c = Address::from_octets(10, 0, 0, 2, 1);
  CHECK(a < b);
  CHECK(b < c);
  std::set<Address> ordered = {c, kLoopback6, a, b, a};
  CHECK(ordered.size() == 4);
  std::unordered_set<Address> hashed = {a, b, c, kLoopback6, kDoc6, a};
  CHECK(hashed.size() == 5);
  CHECK(hashed.count(Address::from_octets(10, 0, 0, 1, 2)) == 1);
  CHECK(std::hash<Address>{}(a) != std::hash<Address>{}(b));
}

TEST_CASE("the wire codec carries IPv4 and IPv6 addresses through alive, ping and push-pull") {
  for (const Address& a : {Address::from_octets(127, 0, 0, 1, 7946), kLoopback6}) {
    CAPTURE(a.to_string());
    const wire::Bytes ip = bytes_of(a);
    auto alive =
        wire::decode_message(wire::encode(wire::Alive{3, "n", ip, a.port, {}, {1, 5, 2, 2, 5, 5}}));
    REQUIRE(alive.ok());
    const auto& al = std::get<wire::Alive>(*alive);
    CHECK(al.addr.size() == (a.is_v4() ? 4u : 16u));
    CHECK(Address::from_bytes(al.addr, al.port) == a);

    auto ping = wire::decode_message(wire::encode(wire::Ping{7, "n", ip, a.port, "m"}));
    REQUIRE(ping.ok());
    const auto& p = std::get<wire::Ping>(*ping);
    CHECK(Address::from_bytes(p.source_addr, p.source_port) == a);

    // A node at `a` puts its own address into its full-state exchange, 4 or 16 bytes.
    auto node = Node::create(Config::lan(), "n", a, vigil::Rng(1)).value();
    node.join(Millis{0}, {Address::from_octets(10, 9, 9, 9, 1)});
    REQUIRE(node.outbox().streams.size() == 1);
    auto state = wire::decode_push_pull(node.outbox().streams[0].bytes);
    REQUIRE(state.ok());
    REQUIRE(state->nodes.size() == 1);
    CHECK(state->nodes[0].addr == ip);
    CHECK(Address::from_bytes(state->nodes[0].addr, state->nodes[0].port) == a);
  }
}

TEST_CASE("a member learned at an IPv6 address is probed there") {
  auto a = Node::create(Config::lan(), "a", kLoopback6, vigil::Rng(3)).value();
  auto b = Node::create(Config::lan(), "b",
                        v6({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 7947), vigil::Rng(4))
               .value();
  a.start(Millis{0});
  b.start(Millis{0});
  a.join(Millis{0}, {b.address()});
  REQUIRE(a.outbox().streams.size() == 1);
  const auto request = a.outbox().streams[0];
  auto reply = b.handle_stream(Millis{1}, a.address(), request.bytes);
  REQUIRE(reply.ok());
  a.handle_stream_reply(Millis{2}, request.id, *reply);
  REQUIRE(a.member("b"));
  CHECK(a.member("b")->address == b.address());
  REQUIRE(b.member("a"));
  CHECK(b.member("a")->address == kLoopback6);
  a.outbox().clear();
  for (Millis t{2}; t < Millis{5000}; t += Millis{50}) a.handle_tick(t);
  bool probed = false;
  for (const auto& d : a.outbox().datagrams) probed = probed || d.to == b.address();
  CHECK(probed);
}
