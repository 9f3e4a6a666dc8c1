#pragma once

#include <emscripten/websocket.h>

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include <vigil/view/messages.hpp>

namespace vigil::web {

// One WebSocket to a real `vigil agent` (docs/websocket.md), and the view it streams: the
// agent's own members, its counters and per-peer phi, and recent events.
class AgentLink {
 public:
  enum class Status { connecting, open, closed, failed };

  struct Member {
    std::optional<view::MemberState> state = view::MemberState::alive;  // nullopt: unknown
    std::string address;  // host:port, as the agent's fault injector names it
    std::uint32_t incarnation = 0;
    double phi = -1;  // < 0: not known yet; infinity when unbounded
    std::vector<double> gaps_ms;
    double mean_ms = 0, std_ms = 0;
    std::map<std::string, std::string> tags;  // its Serf tags (memberlist metadata)
    std::string view;  // a vigil agent's live view (http[s]://host:port); empty for others
    // How the agent's probes of this member ended: failed direct pings, acks that came only
    // through the indirect phase (ping-req or the TCP fallback), probes that failed outright.
    std::uint64_t probes = 0, direct_failed = 0, indirect_acked = 0, failed = 0;
  };

  // One entry of the agent's packet log (docs/websocket.md, "Packet log").
  struct Packet {
    double t_ms = 0;     // the agent's clock
    double page_ms = 0;  // the same moment in this page's clock (performance.now()), estimated
    bool out = false, dropped = false, stream = false;
    std::string kind, peer, target;
    std::uint32_t size = 0;
    std::array<std::uint8_t, 3> rumours{0, 0, 0};  // piggybacked news: suspect, alive, dead
  };
  struct PacketStats {
    std::uint64_t received = 0, skipped = 0, dropped = 0;
    std::map<std::string, std::uint64_t> kinds;
  };
  // ping-req seen in the log: who asked whom to probe whom.
  struct PingReq {
    bool out = false;
    std::string peer, target;
    std::uint64_t count = 0;
    double last_t_ms = 0;
  };

  // "host:port" of the agent's live view, or its URL (http://host:port, https:// for wss).
  explicit AgentLink(std::string address);
  ~AgentLink();
  AgentLink(const AgentLink&) = delete;
  AgentLink& operator=(const AgentLink&) = delete;

  void connect();
  void close();
  bool send(const nlohmann::json& message);
  // Asks the agent for its packet log, or stops; remembered, and asked again on reconnecting.
  void set_packets(bool on);
  bool packets_wanted() const { return packets_wanted_; }
  const std::deque<Packet>& packets() const { return packets_; }
  const PacketStats& packet_stats() const { return packet_stats_; }
  const std::vector<PingReq>& ping_reqs() const { return ping_reqs_; }
  // This page's clock minus the agent's, as best seen so far (the smallest difference at which
  // a message arrived); 0 before the first.
  double clock_offset_ms() const { return clock_offset_ms_; }

  const std::string& address() const { return address_; }
  // host:port, however the address was written: what tells two links to one agent apart.
  const std::string& endpoint() const { return endpoint_; }
  // Whether the WebSocket ever opened: a link that never did may point at a dead agent.
  bool ever_opened() const { return ever_opened_; }
  const std::string& name() const { return name_; }  // the agent's name once known
  Status status() const { return status_; }
  const std::string& last_error() const { return last_error_; }
  const std::map<std::string, Member>& members() const { return members_; }
  const nlohmann::json& counters() const { return counters_; }
  // Addresses this agent's fault injector blocks (sends nothing to), as of its last snapshot.
  const std::vector<std::string>& blocked() const { return blocked_; }
  // The agent itself, as of its last snapshot or stats; nothing before the first.
  const std::optional<view::SelfInfo>& self() const { return self_; }
  const std::deque<std::string>& log() const { return log_; }
  // The agent's answer to the last command: "ok block", or "error invalid: ...".
  const std::string& last_reply() const { return last_reply_; }
  std::uint64_t messages() const { return messages_; }

 private:
  static EM_BOOL on_open(int, const EmscriptenWebSocketOpenEvent*, void* self);
  static EM_BOOL on_message(int, const EmscriptenWebSocketMessageEvent* e, void* self);
  static EM_BOOL on_error(int, const EmscriptenWebSocketErrorEvent*, void* self);
  static EM_BOOL on_close(int, const EmscriptenWebSocketCloseEvent* e, void* self);
  void handle(const nlohmann::json& message);
  void take_view(const nlohmann::json& message);
  void take_members(const std::vector<view::MemberRow>& rows);
  void take_event(const view::Event& event);
  void note(std::string line);
  void take_packets(const view::PacketBatch& batch);
  void take_clock(std::int64_t agent_time_ms);

  std::string address_;
  std::string endpoint_;
  std::string name_;
  bool ever_opened_ = false;
  EMSCRIPTEN_WEBSOCKET_T socket_ = 0;
  Status status_ = Status::closed;
  std::string last_error_;
  std::map<std::string, Member> members_;
  nlohmann::json counters_ = nlohmann::json::object();
  std::vector<std::string> blocked_;
  std::optional<view::SelfInfo> self_;
  std::deque<std::string> log_;
  std::string last_reply_;
  std::uint64_t messages_ = 0;
  bool packets_wanted_ = false;
  std::deque<Packet> packets_;
  PacketStats packet_stats_;
  std::vector<PingReq> ping_reqs_;
  double clock_offset_ms_ = 0;
  bool clock_known_ = false;
};

const char* to_string(AgentLink::Status status);

// host:port of a live view given as host:port or as a URL (scheme and path dropped).
std::string view_endpoint(const std::string& address);

}  // namespace vigil::web
