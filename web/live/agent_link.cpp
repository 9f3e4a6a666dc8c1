#include "live/agent_link.hpp"

#include <emscripten/emscripten.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "ui/page_wake.hpp"

namespace vigil::web {

namespace {

constexpr std::size_t kLogLines = 200;
// Recent packets kept per agent: a few seconds of a small cluster, at most 2.5 s of the agent's
// 200-a-second limit. Counts (PacketStats) cover everything.
constexpr std::size_t kPacketsKept = 500;
constexpr std::size_t kPingReqPairs = 64;  // distinct (direction, peer, target) ping-req routes

// Field access that never throws, whatever the server sends.
std::string text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

double number(const nlohmann::json& j, const char* key, double fallback) {
  auto it = j.find(key);
  return (it != j.end() && it->is_number()) ? it->get<double>() : fallback;
}

}  // namespace

const char* to_string(AgentLink::Status status) {
  switch (status) {
    case AgentLink::Status::connecting:
      return "connecting";
    case AgentLink::Status::open:
      return "connected";
    case AgentLink::Status::closed:
      return "disconnected";
    case AgentLink::Status::failed:
      return "failed";
  }
  return "?";
}

std::string view_endpoint(const std::string& address) {
  std::string rest = address;
  if (const auto scheme = rest.find("://"); scheme != std::string::npos)
    rest = rest.substr(scheme + 3);
  return rest.substr(0, rest.find('/'));
}

AgentLink::AgentLink(std::string address)
    : address_(std::move(address)), endpoint_(view_endpoint(address_)), name_(address_) {}

AgentLink::~AgentLink() {
  close();
}

void AgentLink::connect() {
  close();
  // A view advertised as https is reached over TLS, and so is every agent from a page loaded over
  // https (browsers block ws:// there as mixed content).
  const bool page_secure = emscripten_run_script_int("location.protocol === 'https:' ? 1 : 0") == 1;
  const bool tls = page_secure || address_.rfind("https://", 0) == 0;
  const std::string url = (tls ? "wss://" : "ws://") + endpoint_ + "/ws";
  EmscriptenWebSocketCreateAttributes attributes;
  emscripten_websocket_init_create_attributes(&attributes);
  attributes.url = url.c_str();
  attributes.protocols = "vigil.v1";
  attributes.createOnMainThread = EM_TRUE;
  socket_ = emscripten_websocket_new(&attributes);
  if (socket_ <= 0) {
    status_ = Status::failed;
    last_error_ = "this browser cannot open a WebSocket to " + url;
    socket_ = 0;
    return;
  }
  status_ = Status::connecting;
  last_error_.clear();
  emscripten_websocket_set_onopen_callback(socket_, this, &AgentLink::on_open);
  emscripten_websocket_set_onmessage_callback(socket_, this, &AgentLink::on_message);
  emscripten_websocket_set_onerror_callback(socket_, this, &AgentLink::on_error);
  emscripten_websocket_set_onclose_callback(socket_, this, &AgentLink::on_close);
}

void AgentLink::close() {
  if (!socket_) return;
  // Detach first: no callback may reach a link that is going away.
  emscripten_websocket_set_onopen_callback(socket_, nullptr, nullptr);
  emscripten_websocket_set_onmessage_callback(socket_, nullptr, nullptr);
  emscripten_websocket_set_onerror_callback(socket_, nullptr, nullptr);
  emscripten_websocket_set_onclose_callback(socket_, nullptr, nullptr);
  emscripten_websocket_close(socket_, 1000, "bye");
  emscripten_websocket_delete(socket_);
  socket_ = 0;
  status_ = Status::closed;
}

void AgentLink::set_packets(bool on) {
  if (on == packets_wanted_) return;
  packets_wanted_ = on;
  send({{"type", "packets"}, {"on", on}});  // if not open yet, on_open asks
}

bool AgentLink::send(const nlohmann::json& message) {
  if (!socket_ || status_ != Status::open) return false;
  return emscripten_websocket_send_utf8_text(socket_, message.dump().c_str()) ==
         EMSCRIPTEN_RESULT_SUCCESS;
}

void AgentLink::note(std::string line) {
  log_.push_front(std::move(line));
  if (log_.size() > kLogLines) log_.pop_back();
}

EM_BOOL AgentLink::on_open(int, const EmscriptenWebSocketOpenEvent*, void* self) {
  auto* link = static_cast<AgentLink*>(self);
  link->status_ = Status::open;
  link->ever_opened_ = true;
  if (link->packets_wanted_) link->send({{"type", "packets"}, {"on", true}});
  request_frames();
  return EM_TRUE;
}

EM_BOOL AgentLink::on_error(int, const EmscriptenWebSocketErrorEvent*, void* self) {
  auto* link = static_cast<AgentLink*>(self);
  link->status_ = Status::failed;
  link->last_error_ = "connection error (is the agent running at " + link->address_ + "?)";
  request_frames();
  return EM_TRUE;
}

EM_BOOL AgentLink::on_close(int, const EmscriptenWebSocketCloseEvent* e, void* self) {
  auto* link = static_cast<AgentLink*>(self);
  if (link->status_ != Status::failed) link->status_ = Status::closed;
  if (link->last_error_.empty())
    link->last_error_ = "closed (code " + std::to_string(e ? e->code : 0) + ")";
  request_frames();
  return EM_TRUE;
}

EM_BOOL AgentLink::on_message(int, const EmscriptenWebSocketMessageEvent* e, void* self) {
  auto* link = static_cast<AgentLink*>(self);
  if (!e || !e->isText) return EM_TRUE;
  std::size_t n = e->numBytes;
  while (n > 0 && e->data[n - 1] == 0) --n;  // the text arrives NUL-terminated
  const auto message =
      nlohmann::json::parse(reinterpret_cast<const char*>(e->data),
                            reinterpret_cast<const char*>(e->data) + n, nullptr, false);
  if (message.is_discarded() || !message.is_object()) return EM_TRUE;
  ++link->messages_;
  link->handle(message);
  request_frames();
  return EM_TRUE;
}

void AgentLink::take_members(const nlohmann::json& list) {
  if (!list.is_array()) return;
  std::map<std::string, Member> fresh;
  for (const auto& m : list) {
    if (!m.is_object()) continue;
    const std::string name = text(m, "name");
    if (name.empty()) continue;
    Member member;
    auto old = members_.find(name);
    if (old != members_.end()) member = old->second;  // stats carry no gaps: keep the last ones
    member.state = text(m, "state");
    member.address = text(m, "address");
    member.incarnation = static_cast<std::uint32_t>(number(m, "incarnation", 0));
    if (auto it = m.find("phi"); it != m.end())
      member.phi = it->is_number() ? it->get<double>() : std::numeric_limits<double>::infinity();
    if (auto it = m.find("gaps_ms"); it != m.end() && it->is_array()) {
      member.gaps_ms.clear();
      for (const auto& g : *it)
        if (g.is_number()) member.gaps_ms.push_back(g.get<double>());
      member.mean_ms = number(m, "mean_ms", 0);
      member.std_ms = number(m, "std_ms", 0);
    }
    member.tags.clear();
    if (auto it = m.find("tags"); it != m.end() && it->is_object())
      for (const auto& [key, value] : it->items())
        if (value.is_string()) member.tags[key] = value.get<std::string>();
    member.view = text(m, "view");
    if (auto it = m.find("probes"); it != m.end() && it->is_object()) {
      member.probes = static_cast<std::uint64_t>(number(*it, "total", 0));
      member.direct_failed = static_cast<std::uint64_t>(number(*it, "direct_failed", 0));
      member.indirect_acked = static_cast<std::uint64_t>(number(*it, "indirect_acked", 0));
      member.failed = static_cast<std::uint64_t>(number(*it, "failed", 0));
    }
    fresh[name] = std::move(member);
  }
  members_ = std::move(fresh);
}

void AgentLink::take_clock(const nlohmann::json& self) {
  auto it = self.find("time_ms");
  if (it == self.end() || !it->is_number()) return;
  // A message arrives after it was written, never before: the smallest difference is the best.
  const double offset = emscripten_get_now() - it->get<double>();
  if (!clock_known_ || offset < clock_offset_ms_) clock_offset_ms_ = offset;
  clock_known_ = true;
}

void AgentLink::take_packets(const nlohmann::json& batch) {
  packet_stats_.skipped += static_cast<std::uint64_t>(number(batch, "skipped", 0));
  auto list = batch.find("packets");
  if (list == batch.end() || !list->is_array()) return;
  for (const auto& p : *list) {
    if (!p.is_object()) continue;
    Packet packet;
    packet.t_ms = number(p, "t", 0);
    packet.page_ms = packet.t_ms + clock_offset_ms_;
    packet.out = text(p, "dir") == "out";
    packet.stream = text(p, "via") == "tcp";
    packet.dropped = p.value("dropped", false);
    packet.kind = text(p, "kind");
    packet.peer = text(p, "peer");
    packet.target = text(p, "target");
    packet.size = static_cast<std::uint32_t>(number(p, "size", 0));
    if (auto r = p.find("rumours"); r != p.end() && r->is_array())
      for (const auto& news : *r) {
        if (!news.is_object()) continue;
        const std::string kind = text(news, "kind");
        const int k = kind == "suspect" ? 0 : kind == "alive" ? 1 : kind == "dead" ? 2 : -1;
        if (k >= 0 && packet.rumours[static_cast<std::size_t>(k)] < 255)
          ++packet.rumours[static_cast<std::size_t>(k)];
      }
    ++packet_stats_.received;
    ++packet_stats_.kinds[packet.kind];
    if (packet.dropped) ++packet_stats_.dropped;
    if (packet.kind == "ping-req") {
      auto route = std::find_if(ping_reqs_.begin(), ping_reqs_.end(), [&](const PingReq& r) {
        return r.out == packet.out && r.peer == packet.peer && r.target == packet.target;
      });
      if (route == ping_reqs_.end() && ping_reqs_.size() < kPingReqPairs)
        route = ping_reqs_.insert(ping_reqs_.end(),
                                  PingReq{packet.out, packet.peer, packet.target, 0, 0});
      if (route != ping_reqs_.end()) {
        ++route->count;
        route->last_t_ms = packet.t_ms;
      }
    }
    packets_.push_back(std::move(packet));
    if (packets_.size() > kPacketsKept) packets_.pop_front();
  }
}

void AgentLink::handle(const nlohmann::json& m) {
  const std::string type = text(m, "type");
  if (type == "snapshot" || type == "stats") {
    if (auto it = m.find("self"); it != m.end() && it->is_object()) {
      self_ = *it;
      if (!text(self_, "name").empty()) name_ = text(self_, "name");
      take_clock(self_);
    }
    if (auto it = m.find("counters"); it != m.end() && it->is_object()) counters_ = *it;
    if (auto it = m.find("members"); it != m.end()) take_members(*it);
    if (auto f = m.find("faults"); f != m.end() && f->is_object())
      if (auto b = f->find("blocked"); b != f->end() && b->is_array()) {
        blocked_.clear();
        for (const auto& a : *b)
          if (a.is_string() && blocked_.size() < 256) blocked_.push_back(a.get<std::string>());
      }
  } else if (type == "packets") {
    take_packets(m);
  } else if (type == "event") {
    const std::string kind = text(m, "kind"), member = text(m, "member"), by = text(m, "by");
    char line[256];
    std::snprintf(line, sizeof line, "%8.2fs  %s: %s %s #%u%s%s", number(m, "at_ms", 0) / 1000.0,
                  name_.c_str(), kind.c_str(), member.c_str(),
                  static_cast<unsigned>(number(m, "incarnation", 0)), by.empty() ? "" : " by ",
                  by.c_str());
    note(line);
    auto it = members_.find(member);
    if (it != members_.end() && (kind == "suspect" || kind == "dead" || kind == "left" ||
                                 kind == "alive" || kind == "join")) {
      it->second.state = (kind == "join") ? "alive" : kind;
      it->second.incarnation =
          static_cast<std::uint32_t>(number(m, "incarnation", it->second.incarnation));
    }
  } else if (type == "error") {
    last_error_ = text(m, "code") + ": " + text(m, "message");
    last_reply_ = "error " + last_error_;
    note("error from " + name_ + ": " + last_error_);
  } else if (type == "ok") {
    if (text(m, "command") != "packets") note(name_ + " did " + text(m, "command"));
    last_reply_ = "ok " + text(m, "command");
  }
}

}  // namespace vigil::web
