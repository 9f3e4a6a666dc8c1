#include <doctest/doctest.h>

#include <string>
#include <utility>

#include <vigil/view/messages.hpp>
#include "agent/agent_view.hpp"
#include "agent/packet_log.hpp"

// The agent writes its live view through vigil::view: what it sends reads back into the
// protocol's structs with the agent's own values, and writes out again unchanged.

namespace {

struct Fixture {
  vigil::Result<vigil::swim::Node> node = vigil::swim::Node::create(
      vigil::swim::Config::wan(), "agent-a", vigil::swim::Address::from_octets(127, 0, 0, 1, 7946),
      vigil::Rng(3));
  vigil::native::PeerDetectors detectors{vigil::detect::PhiAccrualConfig{}};
  vigil::native::FaultInjector faults{vigil::Rng(4)};
  std::string profile = "wan";
  vigil::native::AgentViewContext context() const {
    REQUIRE(node);
    return {*node, detectors, faults, profile, vigil::Millis{4321}, true, {}};
  }
};

}  // namespace

TEST_CASE(
    "agent view: a snapshot reads back with the agent's own values and writes out unchanged") {
  const Fixture f;
  const nlohmann::json sent = vigil::native::snapshot_json(f.context());
  CHECK(vigil::view::message_type_of(sent) == "snapshot");
  const auto snapshot = sent.get<vigil::view::Snapshot>();
  CHECK(snapshot.self.name == "agent-a");
  CHECK(snapshot.self.address == "127.0.0.1:7946");
  CHECK(snapshot.self.state == vigil::view::MemberState::alive);
  CHECK(snapshot.self.paused);
  CHECK(snapshot.self.time_ms == 4321);
  CHECK(snapshot.self.profile == "wan");
  CHECK(snapshot.config.probe_interval_ms == vigil::swim::Config::wan().probe_interval.count());
  CHECK(snapshot.config.probe_timeout_ms == vigil::swim::Config::wan().probe_timeout.count());
  CHECK(snapshot.members.empty());  // the agent itself is not among its snapshot's members
  CHECK(nlohmann::json(snapshot) == sent);
}

TEST_CASE("agent view: /v1/members lists the agent itself, alive, in the protocol's terms") {
  const Fixture f;
  const auto rows = vigil::view::member_rows_from_json(
      vigil::native::members_json(f.context(), false, /*with_self=*/true));
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].name == "agent-a");
  CHECK(rows[0].state == vigil::view::MemberState::alive);
  CHECK_FALSE(rows[0].gaps.has_value());
  const auto stats = vigil::native::stats_json(f.context());
  CHECK(nlohmann::json(stats.get<vigil::view::Stats>()) == stats);
}

TEST_CASE("agent view: the packet log's entries are the protocol's packets") {
  vigil::native::PacketSighting sighting;
  sighting.at = vigil::Millis{48302};
  sighting.outgoing = true;
  sighting.dropped = true;
  sighting.delay = vigil::Millis{15};
  sighting.size = 118;
  sighting.address = vigil::swim::Address::from_octets(127, 0, 0, 1, 7948);
  vigil::wire::PacketSummary summary;
  summary.kind = vigil::wire::PacketKind::ping_req;
  summary.seq_no = 412;
  summary.target = "node-2";
  summary.rumours.push_back({vigil::wire::PacketKind::alive, "node-4", 3});
  const nlohmann::json entry = vigil::native::packet_json(sighting, summary, "node-3");
  const auto packet = entry.get<vigil::view::Packet>();
  CHECK(packet.t == 48302);
  CHECK(packet.out);
  CHECK_FALSE(packet.tcp);
  CHECK(packet.kind == "ping-req");
  CHECK(packet.peer == "node-3");
  CHECK(packet.delay_ms == 15);
  CHECK(packet.seq == 412u);
  CHECK(packet.target == "node-2");
  REQUIRE(packet.rumours.size() == 1);
  CHECK(packet.rumours[0].node == "node-4");
  CHECK(nlohmann::json(packet) == entry);
}
