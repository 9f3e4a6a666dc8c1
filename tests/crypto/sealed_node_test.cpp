#include <doctest/doctest.h>

#include <memory>
#include <string>

#include <vigil/swim/node.hpp>
#include <vigil/wire/codec.hpp>
#include "crypto/keyring.hpp"
#include "swim/test_addresses.hpp"

using vigil::Millis;
using vigil::native::Keyring;
using namespace vigil::swim;
namespace wire = vigil::wire;

// The engine with a cipher plugged in, as the agent runs it: what it sends is sealed under the
// label and fits the datagram budget; what does not open never reaches the membership rules.
using vigil::swim::testing::addr;

namespace {

wire::Bytes key_of(std::uint8_t first) {
  wire::Bytes k(32);
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(first + i);
  return k;
}

std::shared_ptr<const Keyring> ring(std::uint8_t first) {
  return std::make_shared<Keyring>(Keyring::create({key_of(first)}).value());
}

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// A datagram as a member of `label` holding `cipher` sends it.
wire::Bytes packet(const wire::Message& m, const std::string& label, const Keyring* cipher) {
  wire::Bytes body = wire::encode(m);
  if (cipher) body = cipher->seal(body, bytes_of(label)).value();
  return wire::add_label(label, body).value();
}

wire::Alive alive(int i, const std::string& name) {
  const auto ip = addr(i).ip_bytes();
  return wire::Alive{1, name, wire::Bytes(ip.begin(), ip.end()), 7946, {}, {1, 5, 2, 2, 5, 5}};
}

Node sealed_node(const std::string& label, std::shared_ptr<const Keyring> k,
                 bool compression = true) {
  Config c = Config::lan();
  c.label = label;
  c.compression = compression;
  auto n = Node::create(c, "a", addr(1), vigil::Rng(7)).value();
  n.set_cipher(std::move(k));
  n.add_member(Millis{0}, "b", addr(2));
  n.add_member(Millis{0}, "c", addr(3));
  n.outbox().clear();
  return n;
}

}  // namespace

namespace {

void check_sealed_datagrams(bool compression) {
  const auto k = ring(1);
  Node n = sealed_node("blue", k, compression);
  // Forty members with long names: more news than one datagram holds, so piggybacking fills
  // datagrams up to the budget, which must leave room for the label and the 29-byte envelope.
  // Compressed (memberlist's order: compress, then seal), news is packed by its compressed
  // size, so a datagram within the same budget carries more than the budget in news.
  for (int i = 0; i < 40; ++i) {
    const std::string name = "member-with-a-rather-long-name-" + std::to_string(i);
    n.handle_datagram(Millis{1}, addr(2), packet(alive(10 + i, name), "blue", k.get()));
  }
  REQUIRE(n.member("member-with-a-rather-long-name-39"));
  n.start(Millis{1});
  std::size_t datagrams = 0, largest = 0, compressed = 0, largest_expanded = 0;
  for (Millis now{2}; now < Millis{20000}; now += Millis{50}) {
    n.handle_tick(now);
    for (const auto& d : n.outbox().datagrams) {
      ++datagrams;
      largest = std::max(largest, d.bytes.size());
      CHECK(d.bytes.size() <= n.config().udp_buffer_size);
      auto labelled = wire::strip_label(d.bytes);
      REQUIRE(labelled.ok());
      CHECK(labelled->label == "blue");
      CHECK(labelled->rest[0] == 1);  // encryption version 1
      auto opened = k->open(labelled->rest, bytes_of("blue"));
      REQUIRE(opened.ok());
      CHECK(wire::decode_packet(*opened).ok());
      if ((*opened)[0] == static_cast<std::uint8_t>(wire::MessageType::compress)) {
        ++compressed;
        auto expanded = wire::open_compressed(std::span<const std::uint8_t>(*opened).subspan(1));
        REQUIRE(expanded.ok());
        largest_expanded = std::max(largest_expanded, expanded->size());
      }
      CHECK_FALSE(k->open(labelled->rest, bytes_of("red")).ok());
    }
    n.outbox().clear();
  }
  CHECK(datagrams > 20);
  if (compression) {
    CHECK(compressed > 10);
    CHECK(largest_expanded > n.config().udp_buffer_size);
  } else {
    CHECK(compressed == 0);
    CHECK(largest > n.config().udp_buffer_size - 200);  // the budget was actually exercised
  }
  CHECK(n.counters().datagrams_rejected == 0);
}

}  // namespace

TEST_CASE("sealed engine: every datagram is labelled, sealed under the label and within budget") {
  check_sealed_datagrams(false);
}

TEST_CASE("sealed engine: compressed datagrams are sealed too, and carry more than the budget") {
  check_sealed_datagrams(true);
}

TEST_CASE("sealed engine: forged accusations are dropped and counted, sealed ones obeyed") {
  const auto k = ring(1);
  const auto stranger = ring(99);
  Node n = sealed_node("", k);
  const wire::Suspect suspect{1, "b", "c"};
  const wire::Dead dead{1, "c", "b"};
  for (const auto& m : {wire::Message{suspect}, wire::Message{dead}}) {
    n.handle_datagram(Millis{10}, addr(3), packet(m, "", nullptr));         // plaintext
    n.handle_datagram(Millis{10}, addr(3), packet(m, "", stranger.get()));  // another key
    n.handle_datagram(Millis{10}, addr(3), packet(m, "blue", k.get()));     // another label
  }
  CHECK(n.member("b")->state == MemberState::alive);
  CHECK(n.member("c")->state == MemberState::alive);
  CHECK(n.counters().datagrams_rejected == 6);
  CHECK(n.counters().datagrams_decrypt_failed == 4);
  CHECK(n.counters().datagrams_label_mismatch == 2);
  CHECK(n.counters().suspicions == 0);

  n.handle_datagram(Millis{10}, addr(3), packet(suspect, "", k.get()));
  CHECK(n.member("b")->state == MemberState::suspect);
  CHECK(n.counters().datagrams_rejected == 6);
}
