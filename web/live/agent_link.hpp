#pragma once

#include <emscripten/websocket.h>

#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace vigil::web {

// One WebSocket to a real `vigil agent` (docs/websocket.md), and the view it streams: the
// agent's own members, its counters and per-peer phi, and recent events.
class AgentLink {
 public:
  enum class Status { connecting, open, closed, failed };

  struct Member {
    std::string state = "alive";
    std::uint32_t incarnation = 0;
    double phi = -1;  // < 0: not known yet; infinity when unbounded
    std::vector<double> gaps_ms;
    double mean_ms = 0, std_ms = 0;
    std::map<std::string, std::string> tags;  // its Serf tags (memberlist metadata)
    std::string view;  // a vigil agent's live view (http[s]://host:port); empty for others
  };

  // "host:port" of the agent's live view, or its URL (http://host:port, https:// for wss).
  explicit AgentLink(std::string address);
  ~AgentLink();
  AgentLink(const AgentLink&) = delete;
  AgentLink& operator=(const AgentLink&) = delete;

  void connect();
  void close();
  bool send(const nlohmann::json& message);

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
  const nlohmann::json& self() const { return self_; }
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
  void take_members(const nlohmann::json& list);
  void note(std::string line);

  std::string address_;
  std::string endpoint_;
  std::string name_;
  bool ever_opened_ = false;
  EMSCRIPTEN_WEBSOCKET_T socket_ = 0;
  Status status_ = Status::closed;
  std::string last_error_;
  std::map<std::string, Member> members_;
  nlohmann::json counters_ = nlohmann::json::object();
  nlohmann::json self_ = nlohmann::json::object();
  std::deque<std::string> log_;
  std::string last_reply_;
  std::uint64_t messages_ = 0;
};

const char* to_string(AgentLink::Status status);

// host:port of a live view given as host:port or as a URL (scheme and path dropped).
std::string view_endpoint(const std::string& address);

}  // namespace vigil::web
