#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <vigil/wire/codec.hpp>
#include "agent/commands.hpp"
#include "agent/packet_log.hpp"
#include "agent/probe_outcomes.hpp"
#include "crypto/keyring.hpp"

using vigil::Millis;
using vigil::native::PacketLog;
using vigil::native::PacketLogLimits;
using vigil::native::ProbeOutcomes;

namespace {

int batches_entries(const std::string& batch) {
  return static_cast<int>(nlohmann::json::parse(batch)["packets"].size());
}

}  // namespace

TEST_CASE("the packet log describes nothing while nobody asked, and only what a viewer takes") {
  PacketLog log;
  int described = 0;
  auto describe = [&] {
    ++described;
    return nlohmann::json{{"kind", "ping"}};
  };
  CHECK_FALSE(log.active());
  log.record(Millis{0}, describe);
  CHECK(described == 0);
  CHECK(log.flush(Millis{0}, [](auto) { return std::size_t{0}; }).empty());

  log.subscribe(7, true);
  CHECK(log.active());
  // A burst of 1,000 at one instant: the bucket's burst is taken, the rest skipped undescribed.
  for (int i = 0; i < 1000; ++i) log.record(Millis{1000}, describe);
  CHECK(described == static_cast<int>(PacketLogLimits::kBurst));
  auto out = log.flush(Millis{1000}, [](auto) { return std::size_t{0}; });
  REQUIRE(out.size() == 1);
  CHECK(out[0].first == 7);
  const auto batch = nlohmann::json::parse(out[0].second);
  CHECK(batch["type"] == "packets");
  CHECK(batch["packets"].size() == PacketLogLimits::kBurst);
  CHECK(batch["skipped"] == 1000 - PacketLogLimits::kBurst);
  CHECK(log.counters().sent == PacketLogLimits::kBurst);
  CHECK(log.counters().skipped == 1000 - PacketLogLimits::kBurst);

  // Over ten seconds at 1,000 a second, the rate gets through (plus the refilled burst).
  int sent = 0;
  for (int t = 1001; t <= 11000; ++t) {
    log.record(Millis{t}, describe);
    if (t % 100 == 0)
      for (const auto& [id, b] : log.flush(Millis{t}, [](auto) { return std::size_t{0}; }))
        sent += batches_entries(b);
  }
  CHECK(sent <= PacketLogLimits::kPacketsPerSecond * 10 + PacketLogLimits::kBurst);
  CHECK(sent >= PacketLogLimits::kPacketsPerSecond * 10 - 1);

  log.subscribe(7, false);
  CHECK_FALSE(log.active());
}

TEST_CASE(
    "a viewer whose queue is full is not sent batches, and hears of them when it catches up") {
  PacketLog log;
  log.subscribe(1, true);
  log.subscribe(2, true);
  for (int i = 0; i < 5; ++i) log.record(Millis{0}, [] { return nlohmann::json{{"kind", "ack"}}; });
  std::size_t queued_of_1 = PacketLogLimits::kMaxViewerQueueBytes + 1;
  auto queued = [&](vigil::native::LwsHost::ClientId id) {
    return id == 1 ? queued_of_1 : std::size_t{0};
  };
  auto out = log.flush(Millis{100}, queued);
  REQUIRE(out.size() == 1);
  CHECK(out[0].first == 2);
  CHECK(batches_entries(out[0].second) == 5);
  CHECK(log.counters().skipped == 5);
  queued_of_1 = 0;
  out = log.flush(Millis{200}, queued);
  REQUIRE(out.size() == 1);
  const auto batch = nlohmann::json::parse(out[0].second);
  CHECK(out[0].first == 1);
  CHECK(batch["packets"].empty());
  CHECK(batch["skipped"] == 5);
  log.forget(1);
  log.forget(2);
  CHECK_FALSE(log.active());
}

TEST_CASE("a wire datagram is summarized from its plaintext, labels and all") {
  auto config = vigil::swim::Config::profile("lan").value();
  config.label = "blue";
  auto node = vigil::swim::Node::create(
                  config, "a", vigil::swim::Address::from_octets(127, 0, 0, 1, 7946), vigil::Rng(1))
                  .value();
  vigil::wire::Bytes ping;
  vigil::wire::encode(vigil::wire::Ping{9, "b", {}, 0, "a"}, ping);
  const auto labelled = vigil::wire::add_label("blue", ping).value();
  const auto s = vigil::native::summarize_wire_datagram(node, labelled);
  CHECK(s.kind == vigil::wire::PacketKind::ping);
  CHECK(s.seq_no == 9);
  CHECK(s.target == "b");
  const auto foreign = vigil::wire::add_label("red", ping).value();
  CHECK(vigil::native::summarize_wire_datagram(node, foreign).kind ==
        vigil::wire::PacketKind::unknown);
  CHECK(vigil::native::summarize_stream_message(ping).kind == vigil::wire::PacketKind::ping);

  // With a keyring the sealed datagram is opened first, as the engine opens it.
  auto keyring = std::make_shared<vigil::native::Keyring>(
      vigil::native::Keyring::create({vigil::wire::Bytes(16, 7)}).value());
  node.set_cipher(keyring);
  const std::string label = "blue";
  const std::span<const std::uint8_t> aad(reinterpret_cast<const std::uint8_t*>(label.data()),
                                          label.size());
  const auto sealed = vigil::wire::add_label("blue", keyring->seal(ping, aad).value()).value();
  CHECK(vigil::native::summarize_wire_datagram(node, sealed).kind == vigil::wire::PacketKind::ping);
  CHECK(vigil::native::summarize_wire_datagram(node, labelled).kind ==
        vigil::wire::PacketKind::unknown);
}

TEST_CASE("probe outcomes per peer: direct failures, indirect acks, failures") {
  ProbeOutcomes o;
  o.add({"b", Millis{1}, true, Millis{1}, true});
  o.add({"b", Millis{2}, true, Millis{300}, false});
  o.add({"b", Millis{3}, false, Millis{1000}, false});
  const auto* b = o.find("b");
  REQUIRE(b);
  CHECK(b->probes == 3);
  CHECK(b->direct_failed == 2);
  CHECK(b->indirect_acked == 1);
  CHECK(b->failed == 1);
  o.forget("b");
  CHECK(o.find("b") == nullptr);
}

TEST_CASE("asking for the packet log needs no token, and a boolean") {
  using vigil::native::parse_command;
  auto on = parse_command(R"({"type":"packets","on":true})", "secret");
  REQUIRE(std::holds_alternative<vigil::native::Command>(on.result));
  const auto& command = std::get<vigil::native::Command>(on.result);
  REQUIRE(std::holds_alternative<vigil::native::command::Packets>(command));
  CHECK(std::get<vigil::native::command::Packets>(command).on);
  for (const char* bad : {R"({"type":"packets"})", R"({"type":"packets","on":1})"}) {
    auto parsed = parse_command(bad, "secret");
    REQUIRE(std::holds_alternative<vigil::native::CommandError>(parsed.result));
    CHECK(std::get<vigil::native::CommandError>(parsed.result).code == "invalid");
  }
}
