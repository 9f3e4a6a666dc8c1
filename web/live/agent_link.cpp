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

// Where a rumour of each state is counted in Packet::rumours.
std::optional<std::size_t> rumour_slot(std::optional<view::MemberState> state) {
  if (!state) return std::nullopt;
  switch (*state) {
    case view::MemberState::suspect:
      return 0;
    case view::MemberState::alive:
      return 1;
    case view::MemberState::dead:
      return 2;
    default:
      return std::nullopt;
  }
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
  send({{view::key::type, view::message_type::packets},
        {view::key::on, on}});  // if not open yet, on_open asks
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
  if (link->packets_wanted_)
    link->send({{view::key::type, view::message_type::packets}, {view::key::on, true}});
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

void AgentLink::take_members(const std::vector<view::MemberRow>& rows) {
  std::map<std::string, Member> fresh;
  for (const view::MemberRow& row : rows) {
    if (row.name.empty()) continue;
    Member member;
    auto old = members_.find(row.name);
    if (old != members_.end()) member = old->second;  // stats carry no gaps: keep the last ones
    member.state = row.state;
    member.address = row.address;
    member.incarnation = row.incarnation;
    if (row.phi) member.phi = *row.phi;
    if (row.gaps) {
      member.gaps_ms = row.gaps->gaps_ms;
      member.mean_ms = row.gaps->mean_ms;
      member.std_ms = row.gaps->std_ms;
    }
    member.tags = row.tags;
    member.view = row.view.value_or("");
    if (row.probes) {
      member.probes = row.probes->total;
      member.direct_failed = row.probes->direct_failed;
      member.indirect_acked = row.probes->indirect_acked;
      member.failed = row.probes->failed;
    }
    fresh[row.name] = std::move(member);
  }
  members_ = std::move(fresh);
}

void AgentLink::take_clock(std::int64_t agent_time_ms) {
  // A message arrives after it was written, never before: the smallest difference is the best.
  const double offset = emscripten_get_now() - static_cast<double>(agent_time_ms);
  if (!clock_known_ || offset < clock_offset_ms_) clock_offset_ms_ = offset;
  clock_known_ = true;
}

void AgentLink::take_packets(const view::PacketBatch& batch) {
  packet_stats_.skipped += batch.skipped;
  for (const view::Packet& p : batch.packets) {
    Packet packet;
    packet.t_ms = static_cast<double>(p.t);
    packet.page_ms = packet.t_ms + clock_offset_ms_;
    packet.out = p.out;
    packet.stream = p.tcp;
    packet.dropped = p.dropped;
    packet.kind = p.kind;
    packet.peer = p.peer;
    packet.target = p.target.value_or("");
    packet.size = static_cast<std::uint32_t>(p.size);
    for (const view::Rumour& news : p.rumours)
      if (auto k = rumour_slot(view::member_state_from_string(news.kind));
          k && packet.rumours[*k] < 255)
        ++packet.rumours[*k];
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

// A snapshot or stats: each part the message carries replaces the last one seen.
void AgentLink::take_view(const nlohmann::json& m) {
  namespace key = view::key;
  if (auto it = m.find(key::self); it != m.end() && it->is_object()) {
    self_ = it->get<view::SelfInfo>();
    if (!self_->name.empty()) name_ = self_->name;
    if (it->contains(key::time_ms)) take_clock(self_->time_ms);
  }
  if (auto it = m.find(key::counters); it != m.end() && it->is_object()) counters_ = *it;
  if (auto it = m.find(key::members); it != m.end() && it->is_array())
    take_members(view::member_rows_from_json(*it));
  if (auto f = m.find(key::faults);
      f != m.end() && f->is_object() && f->value(key::blocked, nlohmann::json()).is_array()) {
    blocked_ = f->get<view::FaultsInfo>().blocked;
    if (blocked_.size() > 256) blocked_.resize(256);
  }
}

void AgentLink::take_event(const view::Event& e) {
  const std::string kind = e.kind ? std::string(swim::to_string(*e.kind)) : "unknown";
  char line[256];
  std::snprintf(line, sizeof line, "%8.2fs  %s: %s %s #%u%s%s",
                static_cast<double>(e.at_ms) / 1000.0, name_.c_str(), kind.c_str(),
                e.member.c_str(), static_cast<unsigned>(e.incarnation), e.by.empty() ? "" : " by ",
                e.by.c_str());
  note(line);
  auto it = members_.find(e.member);
  if (it == members_.end() || !e.kind) return;
  if (auto state = view::state_after(*e.kind)) {
    it->second.state = *state;
    it->second.incarnation = e.incarnation;
  }
}

void AgentLink::handle(const nlohmann::json& m) {
  const std::string type = view::message_type_of(m);
  if (type == view::message_type::snapshot || type == view::message_type::stats) {
    take_view(m);
  } else if (type == view::message_type::packets) {
    take_packets(m.get<view::PacketBatch>());
  } else if (type == view::message_type::event) {
    take_event(m.get<view::Event>());
  } else if (type == view::message_type::error) {
    const auto e = m.get<view::Error>();
    last_error_ = e.code + ": " + e.message;
    last_reply_ = "error " + last_error_;
    note("error from " + name_ + ": " + last_error_);
  } else if (type == view::message_type::ok) {
    const auto ok = m.get<view::Ok>();
    if (ok.command != view::message_type::packets) note(name_ + " did " + ok.command);
    last_reply_ = "ok " + ok.command;
  }
}

}  // namespace vigil::web
