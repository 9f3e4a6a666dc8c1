#include <vigil/view/messages.hpp>

#include <cmath>
#include <limits>

namespace vigil::view {

namespace {

// Readers that leave `out` as it was when the field is missing or of another type.
void read(const Json& j, const char* k, std::string& out) {
  if (auto it = j.find(k); it != j.end() && it->is_string()) out = it->get<std::string>();
}

void read(const Json& j, const char* k, bool& out) {
  if (auto it = j.find(k); it != j.end() && it->is_boolean()) out = it->get<bool>();
}

void read(const Json& j, const char* k, double& out) {
  if (auto it = j.find(k); it != j.end() && it->is_number()) out = it->get<double>();
}

// Integers arrive as JSON numbers; a fraction or a value out of range reads as the nearest
// integer the field holds.
template <typename Int>
void read(const Json& j, const char* k, Int& out) {
  auto it = j.find(k);
  if (it == j.end() || !it->is_number()) return;
  if (it->is_number_unsigned()) {
    const auto u = it->get<std::uint64_t>();
    out = u > static_cast<std::uint64_t>(std::numeric_limits<Int>::max())
              ? std::numeric_limits<Int>::max()
              : static_cast<Int>(u);
  } else if (it->is_number_integer()) {
    const auto i = it->get<std::int64_t>();
    if (i < static_cast<std::int64_t>(std::numeric_limits<Int>::min()))
      out = std::numeric_limits<Int>::min();
    else if (std::is_unsigned_v<Int> ||
             i <= static_cast<std::int64_t>(std::numeric_limits<Int>::max()))
      out = static_cast<Int>(i);
    else
      out = std::numeric_limits<Int>::max();
  } else {
    const double d = it->get<double>();
    if (!std::isfinite(d)) return;
    if (d <= static_cast<double>(std::numeric_limits<Int>::min()))
      out = std::numeric_limits<Int>::min();
    else if (d >= static_cast<double>(std::numeric_limits<Int>::max()))
      out = std::numeric_limits<Int>::max();
    else
      out = static_cast<Int>(d);
  }
}

template <typename T>
void read(const Json& j, const char* k, std::optional<T>& out) {
  if (!j.contains(k)) return;
  T value{};
  read(j, k, value);
  out = value;
}

// A struct read from an object field: an absent or non-object field keeps the default.
template <typename T>
void read_object(const Json& j, const char* k, T& out) {
  if (auto it = j.find(k); it != j.end() && it->is_object()) from_json(*it, out);
}

void read_state(const Json& j, std::optional<MemberState>& out) {
  std::string name;
  read(j, key::state, name);
  out = member_state_from_string(name);
}

void read_tags(const Json& j, Tags& out) {
  out.clear();
  if (auto it = j.find(key::tags); it != j.end() && it->is_object())
    for (const auto& [k, v] : it->items())
      if (v.is_string()) out[k] = v.get<std::string>();
}

void read_strings(const Json& j, const char* k, std::vector<std::string>& out) {
  if (auto it = j.find(k); it != j.end() && it->is_array()) {
    out.clear();
    for (const auto& s : *it)
      if (s.is_string()) out.push_back(s.get<std::string>());
  }
}

template <typename T>
void read_list(const Json& j, const char* k, std::vector<T>& out) {
  if (auto it = j.find(k); it != j.end() && it->is_array()) {
    out.clear();
    for (const auto& item : *it)
      if (item.is_object()) out.push_back(item.get<T>());
  }
}

// JSON has no infinity: an unbounded phi travels as null.
Json number_or_null(double x) {
  return std::isfinite(x) ? Json(x) : Json(nullptr);
}

void write_tags(Json& j, const Tags& tags, const std::optional<std::string>& view) {
  j[key::tags] = tags.empty() ? Json::object() : Json(tags);
  if (view) j[key::view] = *view;
}

}  // namespace

std::optional<swim::EventKind> event_kind_from_string(std::string_view name) {
  for (auto k = static_cast<std::uint8_t>(swim::EventKind::join);
       k <= static_cast<std::uint8_t>(swim::EventKind::conflict); ++k)
    if (swim::to_string(static_cast<swim::EventKind>(k)) == name)
      return static_cast<swim::EventKind>(k);
  return std::nullopt;
}

std::optional<MemberState> state_after(swim::EventKind kind) {
  switch (kind) {
    case swim::EventKind::join:
    case swim::EventKind::alive:
      return MemberState::alive;
    case swim::EventKind::suspect:
      return MemberState::suspect;
    case swim::EventKind::dead:
      return MemberState::dead;
    case swim::EventKind::left:
      return MemberState::left;
    default:
      return std::nullopt;
  }
}

std::string message_type_of(const Json& message) {
  std::string type;
  if (message.is_object()) read(message, key::type, type);
  return type;
}

void to_json(Json& j, const ProbeCounts& v) {
  j = {{key::total, v.total},
       {key::direct_failed, v.direct_failed},
       {key::indirect_acked, v.indirect_acked},
       {key::failed, v.failed}};
}

void from_json(const Json& j, ProbeCounts& v) {
  if (!j.is_object()) return;
  read(j, key::total, v.total);
  read(j, key::direct_failed, v.direct_failed);
  read(j, key::indirect_acked, v.indirect_acked);
  read(j, key::failed, v.failed);
}

void to_json(Json& j, const MemberRow& v) {
  j = {{key::name, v.name},
       {key::address, v.address},
       {key::state, std::string(state_name(v.state))},
       {key::incarnation, v.incarnation}};
  write_tags(j, v.tags, v.view);
  if (v.phi) j[key::phi] = number_or_null(*v.phi);
  if (v.probes) j[key::probes] = *v.probes;
  if (v.gaps) {
    j[key::gaps_ms] = v.gaps->gaps_ms;
    j[key::mean_ms] = v.gaps->mean_ms;
    j[key::std_ms] = v.gaps->std_ms;
  }
}

void from_json(const Json& j, MemberRow& v) {
  if (!j.is_object()) return;
  read(j, key::name, v.name);
  read(j, key::address, v.address);
  read_state(j, v.state);
  read(j, key::incarnation, v.incarnation);
  read_tags(j, v.tags);
  v.view.reset();
  read(j, key::view, v.view);
  if (auto it = j.find(key::phi); it != j.end())
    v.phi = it->is_number() ? it->get<double>() : std::numeric_limits<double>::infinity();
  if (auto it = j.find(key::probes); it != j.end() && it->is_object())
    v.probes = it->get<ProbeCounts>();
  if (auto it = j.find(key::gaps_ms); it != j.end() && it->is_array()) {
    Gaps gaps;
    for (const auto& g : *it)
      if (g.is_number()) gaps.gaps_ms.push_back(g.get<double>());
    read(j, key::mean_ms, gaps.mean_ms);
    read(j, key::std_ms, gaps.std_ms);
    v.gaps = std::move(gaps);
  }
}

void to_json(Json& j, const SelfInfo& v) {
  j = {{key::name, v.name},
       {key::address, v.address},
       {key::incarnation, v.incarnation},
       {key::state, std::string(state_name(v.state))},
       {key::health, v.health},
       {key::members, v.members},
       {key::profile, v.profile},
       {key::paused, v.paused},
       {key::left, v.left},
       {key::label, v.label},
       {key::encrypted, v.encrypted},
       {key::time_ms, v.time_ms}};
  write_tags(j, v.tags, v.view);
}

void from_json(const Json& j, SelfInfo& v) {
  if (!j.is_object()) return;
  read(j, key::name, v.name);
  read(j, key::address, v.address);
  read(j, key::incarnation, v.incarnation);
  read_state(j, v.state);
  read(j, key::health, v.health);
  read(j, key::members, v.members);
  read(j, key::profile, v.profile);
  read(j, key::paused, v.paused);
  read(j, key::left, v.left);
  read(j, key::label, v.label);
  read(j, key::encrypted, v.encrypted);
  read(j, key::time_ms, v.time_ms);
  read_tags(j, v.tags);
  v.view.reset();
  read(j, key::view, v.view);
}

void to_json(Json& j, const LifeguardSwitches& v) {
  j = {{key::lha_probe, v.lha_probe},
       {key::lha_suspicion, v.lha_suspicion},
       {key::buddy_system, v.buddy_system}};
}

void from_json(const Json& j, LifeguardSwitches& v) {
  if (!j.is_object()) return;
  read(j, key::lha_probe, v.lha_probe);
  read(j, key::lha_suspicion, v.lha_suspicion);
  read(j, key::buddy_system, v.buddy_system);
}

void to_json(Json& j, const ConfigInfo& v) {
  j = {{key::profile, v.profile},
       {key::probe_interval_ms, v.probe_interval_ms},
       {key::probe_timeout_ms, v.probe_timeout_ms},
       {key::gossip_interval_ms, v.gossip_interval_ms},
       {key::gossip_nodes, v.gossip_nodes},
       {key::suspicion_mult, v.suspicion_mult},
       {key::suspicion_max_timeout_mult, v.suspicion_max_timeout_mult},
       {key::retransmit_mult, v.retransmit_mult},
       {key::indirect_checks, v.indirect_checks},
       {key::push_pull_interval_ms, v.push_pull_interval_ms},
       {key::join_follow_up_ms, v.join_follow_up_ms},
       {key::reconnect_interval_ms, v.reconnect_interval_ms},
       {key::gossip_to_the_dead_ms, v.gossip_to_the_dead_ms},
       {key::lifeguard, v.lifeguard}};
}

void from_json(const Json& j, ConfigInfo& v) {
  if (!j.is_object()) return;
  read(j, key::profile, v.profile);
  read(j, key::probe_interval_ms, v.probe_interval_ms);
  read(j, key::probe_timeout_ms, v.probe_timeout_ms);
  read(j, key::gossip_interval_ms, v.gossip_interval_ms);
  read(j, key::gossip_nodes, v.gossip_nodes);
  read(j, key::suspicion_mult, v.suspicion_mult);
  read(j, key::suspicion_max_timeout_mult, v.suspicion_max_timeout_mult);
  read(j, key::retransmit_mult, v.retransmit_mult);
  read(j, key::indirect_checks, v.indirect_checks);
  read(j, key::push_pull_interval_ms, v.push_pull_interval_ms);
  read(j, key::join_follow_up_ms, v.join_follow_up_ms);
  read(j, key::reconnect_interval_ms, v.reconnect_interval_ms);
  read(j, key::gossip_to_the_dead_ms, v.gossip_to_the_dead_ms);
  read_object(j, key::lifeguard, v.lifeguard);
}

void to_json(Json& j, const FaultsInfo& v) {
  j = {{key::loss, v.loss},
       {key::delay_ms, v.delay_ms},
       {key::jitter_ms, v.jitter_ms},
       {key::on_send, v.on_send},
       {key::on_receive, v.on_receive},
       {key::blocked, v.blocked},
       {key::paused_until_ms, v.paused_until_ms}};
}

void from_json(const Json& j, FaultsInfo& v) {
  if (!j.is_object()) return;
  read(j, key::loss, v.loss);
  read(j, key::delay_ms, v.delay_ms);
  read(j, key::jitter_ms, v.jitter_ms);
  read(j, key::on_send, v.on_send);
  read(j, key::on_receive, v.on_receive);
  read_strings(j, key::blocked, v.blocked);
  read(j, key::paused_until_ms, v.paused_until_ms);
}

void to_json(Json& j, const Snapshot& v) {
  j = {{key::type, message_type::snapshot}, {key::self, v.self},     {key::members, v.members},
       {key::counters, v.counters},         {key::config, v.config}, {key::faults, v.faults}};
}

void from_json(const Json& j, Snapshot& v) {
  if (!j.is_object()) return;
  read_object(j, key::self, v.self);
  read_list(j, key::members, v.members);
  if (auto it = j.find(key::counters); it != j.end() && it->is_object()) v.counters = *it;
  read_object(j, key::config, v.config);
  read_object(j, key::faults, v.faults);
}

void to_json(Json& j, const Stats& v) {
  j = {{key::type, message_type::stats},
       {key::self, v.self},
       {key::members, v.members},
       {key::counters, v.counters}};
}

void from_json(const Json& j, Stats& v) {
  if (!j.is_object()) return;
  read_object(j, key::self, v.self);
  read_list(j, key::members, v.members);
  if (auto it = j.find(key::counters); it != j.end() && it->is_object()) v.counters = *it;
}

void to_json(Json& j, const Event& v) {
  j = {{key::type, message_type::event},
       {key::kind, v.kind ? std::string(swim::to_string(*v.kind)) : std::string("unknown")},
       {key::member, v.member},
       {key::incarnation, v.incarnation},
       {key::at_ms, v.at_ms}};
  if (!v.by.empty()) j[key::by] = v.by;
}

void from_json(const Json& j, Event& v) {
  if (!j.is_object()) return;
  std::string kind;
  read(j, key::kind, kind);
  v.kind = event_kind_from_string(kind);
  read(j, key::member, v.member);
  read(j, key::incarnation, v.incarnation);
  read(j, key::by, v.by);
  read(j, key::at_ms, v.at_ms);
}

void to_json(Json& j, const UserMessage& v) {
  j = {{key::type, message_type::user},
       {key::from, v.from},
       {key::at_ms, v.at_ms},
       {key::size, v.size},
       {key::hex, v.hex}};
}

void from_json(const Json& j, UserMessage& v) {
  if (!j.is_object()) return;
  read(j, key::from, v.from);
  read(j, key::at_ms, v.at_ms);
  read(j, key::size, v.size);
  read(j, key::hex, v.hex);
}

void to_json(Json& j, const Rumour& v) {
  j = {{key::kind, v.kind}, {key::node, v.node}, {key::incarnation, v.incarnation}};
}

void from_json(const Json& j, Rumour& v) {
  if (!j.is_object()) return;
  read(j, key::kind, v.kind);
  read(j, key::node, v.node);
  read(j, key::incarnation, v.incarnation);
}

void to_json(Json& j, const Packet& v) {
  j = {{key::t, v.t},
       {key::dir, v.out ? "out" : "in"},
       {key::via, v.tcp ? "tcp" : "udp"},
       {key::kind, v.kind},
       {key::peer, v.peer},
       {key::address, v.address},
       {key::size, v.size},
       {key::dropped, v.dropped}};
  if (v.delay_ms) j[key::delay_ms] = *v.delay_ms;
  if (v.target) j[key::target] = *v.target;
  if (v.seq) j[key::seq] = *v.seq;
  if (!v.rumours.empty()) j[key::rumours] = v.rumours;
}

void from_json(const Json& j, Packet& v) {
  if (!j.is_object()) return;
  read(j, key::t, v.t);
  std::string dir, via;
  read(j, key::dir, dir);
  read(j, key::via, via);
  v.out = dir == "out";
  v.tcp = via == "tcp";
  read(j, key::kind, v.kind);
  read(j, key::peer, v.peer);
  read(j, key::address, v.address);
  read(j, key::size, v.size);
  read(j, key::dropped, v.dropped);
  read(j, key::delay_ms, v.delay_ms);
  read(j, key::seq, v.seq);
  read(j, key::target, v.target);
  read_list(j, key::rumours, v.rumours);
}

void to_json(Json& j, const PacketBatch& v) {
  j = {{key::type, message_type::packets},
       {key::at_ms, v.at_ms},
       {key::packets, v.packets},
       {key::skipped, v.skipped},
       {key::skipped_total, v.skipped_total}};
}

void from_json(const Json& j, PacketBatch& v) {
  if (!j.is_object()) return;
  read(j, key::at_ms, v.at_ms);
  read_list(j, key::packets, v.packets);
  read(j, key::skipped, v.skipped);
  read(j, key::skipped_total, v.skipped_total);
}

void to_json(Json& j, const Ok& v) {
  j = {{key::type, message_type::ok}, {key::command, v.command}};
  if (v.on) j[key::on] = *v.on;
  if (v.max_per_s) j[key::max_per_s] = *v.max_per_s;
}

void from_json(const Json& j, Ok& v) {
  if (!j.is_object()) return;
  read(j, key::command, v.command);
  read(j, key::on, v.on);
  read(j, key::max_per_s, v.max_per_s);
}

void to_json(Json& j, const Error& v) {
  j = {{key::type, message_type::error}, {key::code, v.code}, {key::message, v.message}};
  if (v.command) j[key::command] = *v.command;
  if (v.dropped) j[key::dropped] = *v.dropped;
}

void from_json(const Json& j, Error& v) {
  if (!j.is_object()) return;
  read(j, key::code, v.code);
  read(j, key::message, v.message);
  read(j, key::command, v.command);
  read(j, key::dropped, v.dropped);
}

std::vector<MemberRow> member_rows_from_json(const Json& list) {
  std::vector<MemberRow> rows;
  if (!list.is_array()) return rows;
  for (const auto& m : list)
    if (m.is_object()) rows.push_back(m.get<MemberRow>());
  return rows;
}

}  // namespace vigil::view
