#include "agent/agent_view.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <type_traits>

#include <vigil/wire/messages.hpp>
#include "agent/serf_tags.hpp"
#include "http/limit_metrics.hpp"
#include "http/prometheus_text.hpp"

namespace vigil::native {

namespace {

using nlohmann::json;

// The label of a per-type counter's slot t.
std::string_view type_name(std::size_t t) {
  return wire::to_string(static_cast<wire::MessageType>(t));
}

constexpr std::size_t kGapsShown = 64;  // recent inter-ack gaps per peer in a snapshot

// A member's Serf tags and, when one of them is a vigil agent's advertisement, its live view.
template <typename Row>
void add_tags(Row& row, const swim::Member* m) {
  row.tags = m ? decode_tags(m->meta) : Tags{};
  if (auto view = row.tags.find(std::string(kViewTag));
      view != row.tags.end() && check_view_url(view->second))
    row.view = view->second;
}

// How this agent's probes of the member ended (all zeros before the first).
view::ProbeCounts probe_counts(const ProbeOutcomes::Peer* p) {
  if (!p) return {};
  return {p->probes, p->direct_failed, p->indirect_acked, p->failed};
}

view::Gaps gaps_of(const detect::PhiAccrual& d) {
  auto gaps = d.window().chronological();
  if (gaps.size() > kGapsShown) gaps.erase(gaps.begin(), gaps.end() - kGapsShown);
  return {std::move(gaps), d.mean_ms(), d.effective_stddev_ms()};
}

}  // namespace

view::SelfInfo self_info(const AgentViewContext& c) {
  const swim::Node& n = c.node;
  const swim::Member* self = n.member(n.name());
  view::SelfInfo info;
  info.name = n.name();
  info.address = n.address().to_string();
  info.incarnation = n.incarnation();
  info.state = self ? self->state : swim::MemberState::alive;
  info.health = n.health_score();
  info.members = n.member_count();
  info.profile = c.profile;
  info.paused = c.paused;
  info.left = n.has_left();
  info.label = n.config().label;
  info.encrypted = n.cipher() != nullptr;
  info.time_ms = c.now.count();
  add_tags(info, self);
  return info;
}

json self_json(const AgentViewContext& c) {
  return self_info(c);
}

std::vector<view::MemberRow> member_rows(const AgentViewContext& c, bool with_gaps,
                                         bool with_self) {
  std::vector<view::MemberRow> rows;
  for (const swim::Member* m : c.node.members()) {
    if (m->name == c.node.name() && !with_self) continue;
    view::MemberRow row;
    row.name = m->name;
    row.address = m->address.to_string();
    row.state = m->state;
    row.incarnation = m->incarnation;
    add_tags(row, m);
    row.phi = c.detectors.phi(m->name, c.now);
    if (c.probe_outcomes) row.probes = probe_counts(c.probe_outcomes->find(m->name));
    if (with_gaps)
      if (const auto* d = c.detectors.find(m->name)) row.gaps = gaps_of(*d);
    rows.push_back(std::move(row));
  }
  return rows;
}

json members_json(const AgentViewContext& c, bool with_gaps, bool with_self) {
  return member_rows(c, with_gaps, with_self);
}

json counters_json(const swim::Counters& k) {
  json out = json::object();
  swim::for_each_counter(k, [&](const swim::CounterInfo& info, const auto& value) {
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, swim::Counters::ByType>) {
      json by_type = json::object();  // the types seen only
      for (std::size_t t = 0; t < value.size(); ++t)
        if (value[t]) by_type[std::string(type_name(t))] = value[t];
      out[std::string(info.key)] = std::move(by_type);
    } else {
      out[std::string(info.key)] = value;
    }
  });
  return out;
}

std::string counters_metrics_text(const swim::Counters& k) {
  std::ostringstream out;
  swim::for_each_counter(k, [&](const swim::CounterInfo& info, const auto& value) {
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, swim::Counters::ByType>) {
      out << "# HELP " << info.metric << " " << info.help << "\n"
          << "# TYPE " << info.metric << " counter\n";
      for (std::size_t t = 0; t < value.size(); ++t)
        if (value[t])
          out << info.metric << "{type=\"" << type_name(t) << "\"} " << value[t] << "\n";
    } else {
      write_counter(out, info.metric, info.help, value);
    }
  });
  return out.str();
}

view::ConfigInfo config_info(const swim::Config& cfg, const std::string& profile) {
  return {.profile = profile,
          .probe_interval_ms = cfg.probe_interval.count(),
          .probe_timeout_ms = cfg.probe_timeout.count(),
          .gossip_interval_ms = cfg.gossip_interval.count(),
          .gossip_nodes = cfg.gossip_nodes,
          .suspicion_mult = cfg.suspicion_mult,
          .suspicion_max_timeout_mult = cfg.suspicion_max_timeout_mult,
          .retransmit_mult = cfg.retransmit_mult,
          .indirect_checks = cfg.indirect_checks,
          .push_pull_interval_ms = cfg.push_pull_interval.count(),
          .join_follow_up_ms = cfg.join_follow_up.count(),
          .reconnect_interval_ms = cfg.reconnect_interval.count(),
          .gossip_to_the_dead_ms = cfg.gossip_to_the_dead_time.count(),
          .lifeguard = {cfg.lifeguard.lha_probe, cfg.lifeguard.lha_suspicion,
                        cfg.lifeguard.buddy_system}};
}

json config_json(const swim::Config& cfg, const std::string& profile) {
  return config_info(cfg, profile);
}

view::FaultsInfo faults_info(const AgentViewContext& c) {
  const FaultSettings& f = c.faults.settings();
  view::FaultsInfo info{.loss = f.loss,
                        .delay_ms = f.delay_ms,
                        .jitter_ms = f.jitter_ms,
                        .on_send = f.on_send,
                        .on_receive = f.on_receive,
                        .blocked = {},
                        .paused_until_ms = c.faults.paused_until().count()};
  for (const auto& a : c.faults.blocked()) info.blocked.push_back(a.to_string());
  return info;
}

json faults_json(const AgentViewContext& c) {
  return faults_info(c);
}

json snapshot_json(const AgentViewContext& c) {
  return view::Snapshot{.self = self_info(c),
                        .members = member_rows(c, true, false),
                        .counters = counters_json(c.node.counters()),
                        .config = config_info(c.node.config(), c.profile),
                        .faults = faults_info(c)};
}

json stats_json(const AgentViewContext& c) {
  return view::Stats{.self = self_info(c),
                     .members = member_rows(c, false, false),
                     .counters = counters_json(c.node.counters())};
}

json event_json(const swim::Event& e) {
  return view::Event{.kind = e.kind,
                     .member = e.member,
                     .incarnation = e.incarnation,
                     .by = e.by,
                     .at_ms = e.at.count()};
}

json user_message_json(const swim::UserMessage& m) {
  static constexpr char kDigits[] = "0123456789abcdef";
  constexpr std::size_t kShown = 256;
  std::string hex;
  const std::size_t shown = std::min(m.payload.size(), kShown);
  hex.reserve(2 * shown);
  for (std::size_t i = 0; i < shown; ++i) {
    hex += kDigits[m.payload[i] >> 4];
    hex += kDigits[m.payload[i] & 0x0f];
  }
  return view::UserMessage{
      .from = m.from.to_string(), .at_ms = m.at.count(), .size = m.payload.size(), .hex = hex};
}

std::string metrics_text(const AgentViewContext& c) {
  std::ostringstream out;
  const swim::Counters& k = c.node.counters();
  std::array<int, view::kMemberStates.size()> by_state{};
  for (const swim::Member* m : c.node.members()) ++by_state[static_cast<std::size_t>(m->state)];
  out << "# HELP vigil_members Members in this agent's view, by state (itself included).\n"
      << "# TYPE vigil_members gauge\n";
  for (auto s : view::kMemberStates)
    out << "vigil_members{state=\"" << view::to_string(s) << "\"} "
        << by_state[static_cast<std::size_t>(s)] << "\n";
  auto counter = [&](const char* name, const char* help, std::uint64_t value) {
    write_counter(out, name, help, value);
  };
  out << counters_metrics_text(k);
  counter("vigil_ws_refused_origins_total",
          "WebSocket upgrades refused with 403 because their Origin is not allowed.",
          c.ws_refusals.origins);
  counter("vigil_ws_rate_limited_total",
          "WebSocket messages dropped by their connection's rate limit.",
          c.ws_refusals.rate_limited);
  counter("vigil_ws_too_large_total", "WebSocket messages refused for exceeding 64 KiB.",
          c.ws_refusals.too_large);
  counter("vigil_http_static_refused_total",
          "Requests for the web app's files refused: a path out of its directory or hidden (403), "
          "a method other than GET or HEAD (405).",
          c.ws_refusals.static_files);
  counter(
      "vigil_http_file_streams_busy_total",
      "Requests for the web app's files answered 503: as many files were being sent as allowed.",
      c.ws_refusals.file_streams_busy);
  counter("vigil_http_file_streams_cut_total",
          "File transfers closed before their end: the client stopped reading past the stall "
          "timeout, or went away.",
          c.ws_refusals.file_streams_cut);
  out << "# HELP vigil_http_file_streams Files of the web app being sent now.\n"
      << "# TYPE vigil_http_file_streams gauge\n"
      << "vigil_http_file_streams " << c.file_streams << "\n";
  out << "# HELP vigil_local_health_multiplier Lifeguard's local health score (0 healthy).\n"
      << "# TYPE vigil_local_health_multiplier gauge\n"
      << "vigil_local_health_multiplier " << c.node.health_score() << "\n";
  out << "# HELP vigil_incarnation This agent's incarnation number.\n# TYPE vigil_incarnation "
         "gauge\n"
      << "vigil_incarnation " << c.node.incarnation() << "\n";
  out << stream_metrics_text(c.streams);
  out << auth_metrics_text(c.auth, c.auth_addresses);
  out << limit_metrics(c.ws_refusals, c.http_load);
  out << packet_log_metrics_text(c.packet_log, c.packet_log_viewers);
  out << ack_trace_metrics_text(c.ack_trace);
  out << line_output_metrics_text(c.output);
  out << join_metrics_text(c.join);
  return out.str();
}

}  // namespace vigil::native
