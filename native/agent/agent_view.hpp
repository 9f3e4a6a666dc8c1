#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include <vigil/base/time.hpp>
#include <vigil/swim/node.hpp>
#include <vigil/view/messages.hpp>
#include "agent/ack_trace.hpp"
#include "agent/auth_limiter.hpp"
#include "agent/fault_injector.hpp"
#include "agent/join_retry.hpp"
#include "agent/line_output.hpp"
#include "agent/packet_log.hpp"
#include "agent/peer_detectors.hpp"
#include "agent/probe_outcomes.hpp"
#include "agent/stream_link.hpp"
#include "http/lws_host.hpp"

namespace vigil::native {

// JSON and Prometheus renderings of an agent's view (docs/websocket.md documents the shapes).
struct AgentViewContext {
  const swim::Node& node;
  const PeerDetectors& detectors;
  const FaultInjector& faults;
  const std::string& profile;
  Millis now;
  bool paused;
  LwsHost::Refusals ws_refusals;   // what the HTTP server and its WebSocket turned away
  std::size_t file_streams = 0;    // static files being sent now
  LwsHost::Load http_load{};       // connections and unsent answers held now
  StreamStats streams{};           // protocol-port TCP streams turned away or cut short
  AuthLimiter::Counters auth{};    // wrong tokens and the commands refused for them
  std::size_t auth_addresses = 0;  // remote addresses the token limiter tracks
  const ProbeOutcomes* probe_outcomes = nullptr;  // per peer: direct pings failed, indirect acks
  PacketLog::Counters packet_log{};
  std::size_t packet_log_viewers = 0;
  AckTrace::Counters ack_trace{};
  LineOutput::Counters output{};  // event lines on standard output
  JoinCounters join{};            // join addresses asked and left for later
};

// The messages of the live view (vigil::view) from an agent's state, and their JSON.
view::SelfInfo self_info(const AgentViewContext& c);
std::vector<view::MemberRow> member_rows(const AgentViewContext& c, bool with_gaps, bool with_self);
view::ConfigInfo config_info(const swim::Config& config, const std::string& profile);
view::FaultsInfo faults_info(const AgentViewContext& c);

nlohmann::json self_json(const AgentViewContext& c);
// The members this node knows (itself too when `with_self`, as /v1/members lists them): name,
// address, state, incarnation, Serf tags ("tags"), a vigil agent's live-view URL ("view"), and
// phi when known.
nlohmann::json members_json(const AgentViewContext& c, bool with_gaps, bool with_self = false);
nlohmann::json counters_json(const swim::Counters& counters);
// The same counters in Prometheus text, one family each (per-type ones labelled {type="..."}).
std::string counters_metrics_text(const swim::Counters& counters);
nlohmann::json config_json(const swim::Config& config, const std::string& profile);
nlohmann::json faults_json(const AgentViewContext& c);
nlohmann::json snapshot_json(const AgentViewContext& c);
nlohmann::json stats_json(const AgentViewContext& c);
nlohmann::json event_json(const swim::Event& event);
// A user message (Serf's events and queries): its size and, in hex, its first 256 bytes.
nlohmann::json user_message_json(const swim::UserMessage& message);
std::string metrics_text(const AgentViewContext& c);

}  // namespace vigil::native
