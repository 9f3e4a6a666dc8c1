#include "panels/live_panel.hpp"

#include <emscripten.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string_view>

#include <vigil/lab/trace_replay.hpp>

#include "panels/panel_layout.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

namespace {

constexpr double kSnapshotEveryMs = 2000;  // gaps come only in snapshots: ask the selected agent

using view::MemberState;

std::string state_text(std::optional<MemberState> state) {
  return std::string(view::state_name(state));
}

}  // namespace

LivePanel::LivePanel(const UrlParams& params) {
  if (auto a = params.text("agents"))
    std::snprintf(addresses_, sizeof addresses_, "%s", a->c_str());
  if (auto t = params.text("token")) std::snprintf(token_, sizeof token_, "%s", t->c_str());
  if (auto p = params.text("packets")) show_packets_ = *p == "1";
  if (addresses_[0]) {
    demo_checked_ = true;
    connect_all();
  }
}

// When the page is served by `vigil demo`, its shell fetched /v1/demo into window.vigilDemo.
void LivePanel::take_demo_config() {
  if (demo_checked_) return;
  const char* json = emscripten_run_script_string(
      "window.vigilDemo === undefined ? '' : JSON.stringify(window.vigilDemo)");
  if (!json || !*json) return;  // not fetched yet
  demo_checked_ = true;
  const auto demo = nlohmann::json::parse(json, nullptr, false);
  if (demo.is_discarded() || !demo.is_object()) return;
  std::string list;
  if (auto it = demo.find("agents"); it != demo.end() && it->is_array())
    for (const auto& a : *it)
      if (a.is_object() && a.contains("http") && a["http"].is_string())
        list += (list.empty() ? "" : ",") + a["http"].get<std::string>();
  std::snprintf(addresses_, sizeof addresses_, "%s", list.c_str());
  if (auto it = demo.find("token"); it != demo.end() && it->is_string())
    std::snprintf(token_, sizeof token_, "%s", it->get<std::string>().c_str());
  if (!list.empty()) connect_all();
}

void LivePanel::connect_all() {
  links_.clear();
  // Split by hand: std::stringstream would pull iostreams and locales into the wasm (~65 KB).
  const std::string_view list(addresses_);
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    std::string item(list.substr(start, comma - start));
    start = comma + 1;
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (item.empty()) continue;
    links_.push_back(std::make_unique<AgentLink>(item));
    links_.back()->connect();
  }
  selected_agent_ = 0;
  selected_peer_ = 0;
  peer_.clear();
  peer_chosen_ = false;
  dropped_.clear();
}

void LivePanel::add_agent(const std::string& view) {
  if (links_.size() >= kMaxAgents) return;
  links_.push_back(std::make_unique<AgentLink>(view));
  links_.back()->connect();
  // The list in the box (and the page's URL) names every agent followed: host:port, as typed,
  // unless the view is served over TLS.
  const std::string item = view.rfind("http://", 0) == 0 ? view_endpoint(view) : view;
  const std::string list = addresses_[0] ? std::string(addresses_) + "," + item : item;
  if (list.size() < sizeof addresses_)
    std::snprintf(addresses_, sizeof addresses_, "%s", list.c_str());
}

const AgentLink* LivePanel::selected_link() const {
  if (links_.empty()) return nullptr;
  return links_[static_cast<std::size_t>(
                    std::clamp(selected_agent_, 0, static_cast<int>(links_.size()) - 1))]
      .get();
}

namespace {

bool gone(std::optional<MemberState> state) {
  return state && view::gone(*state);
}

// A link knows its agent's name once a snapshot arrived; before that its name is its address.
bool named(const AgentLink& l) {
  return l.self().has_value() && !l.self()->name.empty();
}

}  // namespace

void LivePanel::drop_dead_links() {
  for (std::size_t i = 0; i < links_.size();) {
    const AgentLink& l = *links_[i];
    const bool unreachable = !l.ever_opened() && (l.status() == AgentLink::Status::failed ||
                                                  l.status() == AgentLink::Status::closed);
    std::string dead_name;
    if (unreachable)
      for (const auto& other : links_)
        if (other->status() == AgentLink::Status::open)
          for (const auto& [name, m] : other->members())
            if (gone(m.state) &&
                (name == l.name() || (!m.view.empty() && view_endpoint(m.view) == l.endpoint())))
              dead_name = name;
    if (dead_name.empty()) {
      ++i;
      continue;
    }
    dropped_.insert(dead_name);
    links_.erase(links_.begin() + static_cast<std::ptrdiff_t>(i));
    if (selected_agent_ >= static_cast<int>(i) && selected_agent_ > 0) --selected_agent_;
  }
}

void LivePanel::discover() {
  std::set<std::string> followed_names, followed_endpoints, vigil_agents;
  for (const auto& l : links_) {
    followed_endpoints.insert(l->endpoint());
    if (named(*l)) {
      followed_names.insert(l->name());
      vigil_agents.insert(l->name());
    }
  }
  std::vector<Discovered> found;
  std::set<std::string> listed;
  for (const auto& l : links_)
    for (const auto& [name, m] : l->members()) {
      listed.insert(name);
      if (m.view.empty()) continue;
      vigil_agents.insert(name);
      if (gone(m.state) || followed_names.count(name) ||
          followed_endpoints.count(view_endpoint(m.view)))
        continue;
      const std::string& agent = name;  // a structured binding cannot be captured (clang 14)
      if (std::none_of(found.begin(), found.end(),
                       [&](const Discovered& d) { return d.name == agent; }))
        found.push_back({agent, m.view});
    }
  std::sort(found.begin(), found.end(),
            [](const Discovered& a, const Discovered& b) { return a.name < b.name; });
  discovered_ = std::move(found);
  observed_only_.clear();
  for (const auto& name : listed)
    if (!vigil_agents.count(name)) observed_only_.insert(name);
}

void LivePanel::pick_peer() {
  const auto& names = names_cache_;
  const AgentLink* agent = selected_link();
  const bool listed = std::find(names.begin(), names.end(), peer_) != names.end();
  if (peer_chosen_ && listed) return;
  peer_chosen_ = false;
  peer_.clear();
  if (!agent) return;
  for (const auto& n : names) {
    if (n == agent->name()) continue;
    auto it = agent->members().find(n);
    if (it != agent->members().end() && it->second.state == MemberState::alive) {
      peer_ = n;
      return;
    }
  }
  // Nobody alive: any member the agent lists, so that unblocking stays possible.
  if (!agent->members().empty()) peer_ = agent->members().begin()->first;
}

void LivePanel::save(UrlParams& p) const {
  if (addresses_[0])
    p.set("agents", addresses_);
  else
    p.erase("agents");
  if (show_packets_)
    p.set("packets", "1");
  else
    p.erase("packets");
}

void LivePanel::advance(double) {
  take_demo_config();
  // Wall time, not frame time: frames come only when news arrives, and news comes in bursts.
  const double now = emscripten_get_now();
  if (now - last_snapshot_at_ms_ >= kSnapshotEveryMs && !links_.empty()) {
    last_snapshot_at_ms_ = now;
    const auto i = static_cast<std::size_t>(
        std::clamp(selected_agent_, 0, static_cast<int>(links_.size()) - 1));
    links_[i]->send({{"type", "snapshot"}});
  }
  drop_dead_links();
  // Links added since (discovered, reconnected) ask too; a link asks only when this changes.
  for (const auto& l : links_) l->set_packets(show_packets_);
  discover();
  names_cache_ = member_names();
  pick_peer();
  const auto at = std::find(names_cache_.begin(), names_cache_.end(), peer_);
  selected_peer_ = at == names_cache_.end() ? 0 : static_cast<int>(at - names_cache_.begin());
}

std::vector<std::string> LivePanel::member_names() const {
  std::set<std::string> names;
  for (const auto& l : links_) {
    // An agent that never answered has only its address for a name: no column of its own.
    if (named(*l)) names.insert(l->name());
    for (const auto& [name, m] : l->members()) names.insert(name);
  }
  return {names.begin(), names.end()};
}

void LivePanel::draw() {
  // On a phone the packet ring takes a square of the whole width, with its legend under it:
  // the plots need that much more room when packets are shown.
  const float base_em = show_packets_ && screen::narrow() ? 70.0f : 40.0f;
  // On a phone the plots' box is as tall as what it held last frame (the tables grow with the
  // cluster), while the plots keep sizes taken from the base: sized from the box, they would
  // grow it in turn.
  const float plots_em = screen::narrow() ? std::max(base_em, narrow_plots_em_) : base_em;
  panel_layout(
      {"live", 22.0f, 0.4f, plots_em}, [&] { draw_controls(); },
      [&](float h) {
        if (screen::narrow()) h = base_em * ImGui::GetFontSize();
        // A matrix cell needs room for a state's colour at least; on a phone, past a few members,
        // the agents' views read better as a list.
        const float min_cell = ImGui::GetFontSize() * 1.6f;
        const bool matrix_fits = static_cast<float>(names_cache_.size()) * min_cell <
                                 ImGui::GetContentRegionAvail().x * 0.8f;
        const float top = h * 0.55f;
        if (show_packets_ && !screen::narrow()) {
          // The views and the packets side by side: what each agent believes, and why.
          const float width = ImGui::GetContentRegionAvail().x;
          ImGui::BeginChild("live-views", ImVec2(width * 0.5f, top), false);
          draw_matrix(top);
          ImGui::EndChild();
          ImGui::SameLine();
          draw_ring(ImVec2(ImGui::GetContentRegionAvail().x, top));
        } else {
          if (screen::narrow() && !matrix_fits)
            draw_agent_list(show_packets_ ? top * 0.5f : top);
          else
            draw_matrix(show_packets_ ? top * 0.5f : top);
          if (show_packets_) {
            const float width = ImGui::GetContentRegionAvail().x;
            draw_ring(ImVec2(width, screen::narrow() ? width + ring::legend_height(width) +
                                                           ImGui::GetStyle().ItemSpacing.y
                                                     : top * 0.5f));
          }
        }
        draw_peer(h * 0.45f - ImGui::GetStyle().ItemSpacing.y);
        if (screen::narrow()) narrow_plots_em_ = ImGui::GetCursorPosY() / ImGui::GetFontSize();
      });
}

void LivePanel::draw_discovered() {
  if (!discovered_.empty()) {
    section("Discovered");
    hint("%zu more agent%s in this cluster serve%s a live view: add %s.", discovered_.size(),
         discovered_.size() == 1 ? "" : "s", discovered_.size() == 1 ? "s" : "",
         discovered_.size() == 1 ? "it" : "them");
    const bool room = links_.size() < kMaxAgents;
    constexpr std::size_t kButtonsShown = 16;  // past these, "add all" takes the rest
    std::string add;
    ImGui::BeginDisabled(!room);
    for (std::size_t i = 0; i < discovered_.size() && i < kButtonsShown; ++i) {
      const std::string label = "+ " + discovered_[i].name;
      if (i == 0 ? button(label.c_str()) : row_button(label.c_str())) add = discovered_[i].view;
    }
    const bool all = row_button("add all");
    ImGui::EndDisabled();
    if (discovered_.size() > kButtonsShown)
      hint("and %zu more", discovered_.size() - kButtonsShown);
    if (!room) hint("one view follows at most %zu agents", kMaxAgents);
    if (!add.empty()) add_agent(add);
    if (all)
      for (const auto& d : discovered_) add_agent(d.view);
  }
  if (!observed_only_.empty()) {
    std::string list;
    for (const auto& n : observed_only_) list += (list.empty() ? "" : ", ") + n;
    hint("observed only (columns marked *, no live view of their own, e.g. Serf or Consul): %s",
         list.c_str());
  }
  if (!dropped_.empty()) {
    std::string list;
    for (const auto& n : dropped_) list += (list.empty() ? "" : ", ") + n;
    hint("not followed: %s, dead or left in the other agents' views", list.c_str());
  }
}

void LivePanel::draw_controls() {
  ImGui::TextWrapped(
      "Real agents (`vigil agent`, or `vigil demo`) stream their own views here over WebSocket.");
  section("Agents");
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##addresses", "127.0.0.1:8081,127.0.0.1:8082", addresses_,
                           sizeof addresses_);
  if (button(links_.empty() ? "connect" : "reconnect")) connect_all();
  for (std::size_t i = 0; i < links_.size(); ++i) {
    const AgentLink& l = *links_[i];
    const bool ok = l.status() == AgentLink::Status::open;
    ImGui::TextColored(plot::to_vec4(ok ? plot::palette().alive : plot::palette().error),
                       "%s  %s  %s", named(l) ? l.name().c_str() : "?", l.endpoint().c_str(),
                       to_string(l.status()));
    if (!ok && !l.last_error().empty()) hint("  %s", l.last_error().c_str());
  }
  draw_discovered();

  section("Fault injection");
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##token", "the agents' token", token_, sizeof token_,
                           ImGuiInputTextFlags_Password);
  const bool can = token_[0] != 0 && !links_.empty();
  if (!links_.empty()) {
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6);
    ImGui::SliderInt("agent", &selected_agent_, 0, static_cast<int>(links_.size()) - 1,
                     links_[static_cast<std::size_t>(std::clamp(
                                selected_agent_, 0, static_cast<int>(links_.size()) - 1))]
                         ->name()
                         .c_str());
  }
  const auto names = names_cache_;
  if (!names.empty()) {
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6);
    selected_peer_ = std::clamp(selected_peer_, 0, static_cast<int>(names.size()) - 1);
    if (ImGui::SliderInt("peer", &selected_peer_, 0, static_cast<int>(names.size()) - 1,
                         names[static_cast<std::size_t>(selected_peer_)].c_str())) {
      selected_peer_ = std::clamp(selected_peer_, 0, static_cast<int>(names.size()) - 1);
      peer_ = names[static_cast<std::size_t>(selected_peer_)];
      peer_chosen_ = true;
    }
  }
  ImGui::BeginDisabled(!can);
  AgentLink* agent = links_.empty()
                         ? nullptr
                         : links_[static_cast<std::size_t>(std::clamp(
                                      selected_agent_, 0, static_cast<int>(links_.size()) - 1))]
                               .get();
  const std::string peer = peer_;
  const std::string token = token_;
  ImGui::PushItemWidth(-ImGui::GetFontSize() * 6);
  slider("loss (%)", &loss_pct_, 0, 90, "%.0f");
  slider("delay (ms)", &delay_ms_, 0, 2000, "%.0f");
  ImGui::PopItemWidth();
  if (button("inject") && agent)
    agent->send({{"type", "inject"},
                 {"token", token},
                 {"loss", loss_pct_ / 100.0},
                 {"delay_ms", delay_ms_},
                 {"direction", "send"}});
  if (row_button("clear") && agent) agent->send({{"type", "inject"}, {"token", token}});
  if (row_button("pause 2 s") && agent)
    agent->send({{"type", "pause"}, {"token", token}, {"ms", pause_ms_}});
  // A snapshot after each: it carries the blocks, which the ring draws as cut links.
  if (button("block -> peer") && agent && !peer.empty()) {
    agent->send({{"type", "block"}, {"token", token}, {"peer", peer}});
    agent->send({{"type", "snapshot"}});
  }
  if (row_button("unblock") && agent && !peer.empty()) {
    agent->send({{"type", "unblock"}, {"token", token}, {"peer", peer}});
    agent->send({{"type", "snapshot"}});
  }
  if (row_button("leave") && agent) agent->send({{"type", "leave"}, {"token", token}});
  ImGui::EndDisabled();
  if (!can) hint("enter the token (printed by vigil demo / vigil agent) to inject faults");

  section("Packets");
  ImGui::Checkbox("show packets", &show_packets_);
  if (show_packets_)
    draw_packet_list();
  else
    hint("each agent's own datagrams, as it sends and receives them (at most 200 a second each)");

  section("Events");
  ImGui::BeginChild("live-log", ImVec2(0, box_height(12.0f)), true);
  ImGui::PushTextWrapPos(0.0f);
  for (const auto& l : links_)
    for (const auto& line : l->log()) ImGui::TextUnformatted(line.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
}

plot::HeatCell LivePanel::heat_cell(int row, int col, void* self) {
  const auto* panel = static_cast<const LivePanel*>(self);
  const AgentLink& link = *panel->links_[static_cast<std::size_t>(row)];
  const std::string& name = panel->names_cache_[static_cast<std::size_t>(col)];
  if (name == link.name()) return {plot::palette().self, 0};
  auto it = link.members().find(name);
  if (it == link.members().end()) return {plot::palette().unknown, 0};
  ImU32 c = ring::state_color(it->second.state);
  if (link.status() != AgentLink::Status::open)
    c = plot::colors::with_alpha(c, 70);  // a stale view
  return {c, view::severity(it->second.state)};
}

void LivePanel::draw_agent_list(float height) {
  hint("each agent's view of the cluster");
  const ImGuiTableFlags flags =
      ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY;
  if (!ImGui::BeginTable("agents", 4, flags,
                         ImVec2(0, height - ImGui::GetTextLineHeightWithSpacing())))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* h : {"agent", "alive", "suspect", "dead/left"}) ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (const auto& l : links_) {
    int alive = 0, suspect = 0, gone = 0;
    for (const auto& [name, m] : l->members()) {
      if (m.state == MemberState::alive)
        ++alive;
      else if (m.state == MemberState::suspect)
        ++suspect;
      else
        ++gone;
    }
    const bool open = l->status() == AgentLink::Status::open;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(plot::to_vec4(open ? plot::palette().ink : plot::palette().error), "%s",
                       l->name().empty() ? l->address().c_str() : l->name().c_str());
    ImGui::TableNextColumn();
    ImGui::TextColored(plot::to_vec4(plot::palette().alive), "%d", alive);
    ImGui::TableNextColumn();
    ImGui::TextColored(plot::to_vec4(plot::palette().suspect), "%d", suspect);
    ImGui::TableNextColumn();
    ImGui::TextColored(plot::to_vec4(plot::palette().dead), "%d", gone);
  }
  if (links_.empty()) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    hint("no agents connected");
  }
  ImGui::EndTable();
}

void LivePanel::draw_matrix(float height) {
  const auto& names = names_cache_;
  const int rows = static_cast<int>(links_.size()), cols = static_cast<int>(names.size());
  plot::Axis x{0, static_cast<double>(std::max(cols, 1)), "observed member"};
  plot::Axis y{0, static_cast<double>(std::max(rows, 1)),
               "observer agent (each row: its own view)"};
  x.index_ticks = y.index_ticks = true;
  std::vector<const char*> col_names, row_names;
  // Members with no live view of their own are columns only: marked with a star.
  std::vector<std::string> col_labels;
  for (const auto& n : names) col_labels.push_back(observed_only_.count(n) ? n + "*" : n);
  for (const auto& n : col_labels) col_names.push_back(n.c_str());
  for (const auto& l : links_)
    row_names.push_back(l->name().empty() ? l->address().c_str() : l->name().c_str());
  if (cols > 0) x.tick_names = col_names.data();
  if (rows > 0) y.tick_names = row_names.data();
  plot::Options options;
  options.zoom = false;
  options.legend = false;
  if (!plot::begin("live-matrix", ImVec2(-1, height), x, y, options)) return;
  if (rows > 0 && cols > 0) {
    plot::heatmap(rows, cols, 0, cols, 0, rows, &LivePanel::heat_cell, this);
    const ImVec2 top_left = plot::to_screen(0, rows), bottom_right = plot::to_screen(cols, 0);
    const float cell_w = (bottom_right.x - top_left.x) / static_cast<float>(cols);
    const float cell_h = (bottom_right.y - top_left.y) / static_cast<float>(rows);
    if (cols <= 16 && ImGui::GetFontSize() <= cell_h * 0.9f)
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
          auto it = links_[static_cast<std::size_t>(r)]->members().find(
              names[static_cast<std::size_t>(c)]);
          if (it == links_[static_cast<std::size_t>(r)]->members().end()) continue;
          char label[64];
          std::snprintf(label, sizeof label, "%s #%u", state_text(it->second.state).c_str(),
                        it->second.incarnation);
          if (ImGui::CalcTextSize(label).x > cell_w * 0.9f) continue;
          plot::text(c + 0.06, rows - r - 0.12, plot::palette().cell_ink, label);
        }
    int row = 0, col = 0;
    if (plot::hovered_cell(&row, &col)) {
      const AgentLink& l = *links_[static_cast<std::size_t>(row)];
      auto it = l.members().find(names[static_cast<std::size_t>(col)]);
      ImGui::BeginTooltip();
      if (observed_only_.count(names[static_cast<std::size_t>(col)]))
        ImGui::Text("%s is observed only: it serves no live view",
                    names[static_cast<std::size_t>(col)].c_str());
      if (it == l.members().end())
        ImGui::Text("%s does not list %s", l.name().c_str(),
                    names[static_cast<std::size_t>(col)].c_str());
      else
        ImGui::Text("%s sees %s: %s #%u, phi %.2f", l.name().c_str(),
                    names[static_cast<std::size_t>(col)].c_str(),
                    state_text(it->second.state).c_str(), it->second.incarnation, it->second.phi);
      ImGui::EndTooltip();
    }
  } else {
    plot::text(0.05, y.max * 0.55, plot::palette().ink, "no agents connected");
  }
  plot::end();
}

// The selected agent's per-peer detectors (clicking a row picks the peer plotted beside it) and
// its protocol counters.
namespace {
// Saves a peer's heartbeat trace (GET /v1/trace) from the agent `l` talks to. The agent answers
// with an attachment, so the browser saves it and the page stays, even from another origin
// (where an anchor's download attribute is ignored).
void download_trace(const AgentLink& l, const std::string& peer) {
  // clang-format reads the JavaScript as C++: left as written. No comma outside parentheses,
  // which would end the macro's code argument.
  // clang-format off
  EM_ASM({
    const secure = location.protocol === 'https:' || UTF8ToString($0).startsWith('https://');
    const a = document.createElement('a');
    a.href = (secure ? 'https://' : 'http://') + UTF8ToString($1) + '/v1/trace?peer=' +
             encodeURIComponent(UTF8ToString($2));
    a.rel = 'noopener';
    document.body.appendChild(a);
    a.click();
    a.remove();
  }, l.address().c_str(), l.endpoint().c_str(), peer.c_str());
  // clang-format on
}

// The fewest acks a trace must hold for the phi demo to replay it (lab::replay_trace).
const std::size_t kTraceMinAcks = lab::TraceReplayOptions{}.warmup_heartbeats + 2;

// "export 18 acks", or "trace of node-2: 18 acks" where the button stands outside the table.
std::string export_label(const AgentLink::Member& m, const char* peer) {
  const unsigned long long acks = m.probes > m.failed ? m.probes - m.failed : 0;
  char label[160];
  if (peer)
    std::snprintf(label, sizeof label, "trace of %s: %llu acks", peer, acks);
  else
    std::snprintf(label, sizeof label, "export %llu acks", acks);
  return label;
}

// The height of a table of one row per member of `l` and a header row, all of them.
float table_height(const AgentLink& l) {
  const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2.0f;
  return row_h * static_cast<float>(l.members().size() + 1) + 2.0f;
}
}  // namespace

void LivePanel::draw_peer_table(const AgentLink& l) {
  hint("%s's detectors, per peer", l.name().c_str());
  const ImGuiTableFlags flags =
      ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY;
  // All rows when they fit in the space, else a share of it that scrolls.
  const float all_rows = table_height(l);
  const float avail = ImGui::GetContentRegionAvail().y;
  const float rows_height = all_rows <= avail ? all_rows : avail * 0.6f;
  if (ImGui::BeginTable("peers", 4, flags, ImVec2(0, rows_height))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("peer");
    ImGui::TableSetupColumn("state");
    ImGui::TableSetupColumn("phi");
    ImGui::TableSetupColumn("mean gap");
    ImGui::TableHeadersRow();
    for (const auto& [name, m] : l.members()) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const auto at = std::find(names_cache_.begin(), names_cache_.end(), name);
      const int index = static_cast<int>(at - names_cache_.begin());
      if (ImGui::Selectable(name.c_str(), index == selected_peer_,
                            ImGuiSelectableFlags_SpanAllColumns)) {
        selected_peer_ = index;
        peer_ = name;
        peer_chosen_ = true;
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(state_text(m.state).c_str());
      ImGui::TableNextColumn();
      if (m.phi < 0)
        hint("-");
      else if (std::isinf(m.phi))
        ImGui::TextUnformatted("inf");
      else
        ImGui::Text("%.2f", m.phi);
      ImGui::TableNextColumn();
      if (m.mean_ms > 0)
        ImGui::Text("%.0f ms", m.mean_ms);
      else
        hint("-");
    }
    ImGui::EndTable();
  }
  draw_probe_table(l);
  hint("counters");
  for (const auto& [key, value] : l.counters().items())
    if (value.is_number()) ImGui::Text("%s: %s", key.c_str(), value.dump().c_str());
}

void LivePanel::draw_probe_table(const AgentLink& l) {
  hint("%s's probes, per peer", l.name().c_str());
  const ImGuiTableFlags flags =
      ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY;
  // Rows as tall as their export button.
  const float row_h = ImGui::GetFrameHeight() + ImGui::GetStyle().CellPadding.y * 2.0f;
  const float all_rows = row_h * static_cast<float>(l.members().size() + 1) + 2.0f;
  const float avail = ImGui::GetContentRegionAvail().y;
  probe_table_agent_ = l.name();
  probe_table_rows_ = 0;
  // The table when every cell fits whole: each column as wide as its heading or its widest name,
  // the export button's column as wide as its button. Else (a phone, the column beside the
  // plots) a few lines per peer, its name first and whole.
  const char* headers[] = {"peer", "probes", "direct failed", "indirect ok"};
  std::vector<float> widths;
  for (const char* h : headers) widths.push_back(ImGui::CalcTextSize(h).x);
  for (const auto& [name, m] : l.members())
    widths[0] = std::max(widths[0], ImGui::CalcTextSize(name.c_str()).x);
  widths.push_back(button_width("export 00000 acks"));
  if (!columns_fit(widths)) {
    for (const auto& [name, m] : l.members()) {
      ImGui::TextWrapped("%s", name.c_str());
      ImGui::Indent();
      hint("%llu probes, %llu direct failed, %llu answered through helpers",
           static_cast<unsigned long long>(m.probes),
           static_cast<unsigned long long>(m.direct_failed),
           static_cast<unsigned long long>(m.indirect_acked));
      ImGui::PushID(name.c_str());
      if (button(export_label(m, name.c_str()).c_str())) download_trace(l, name);
      ImGui::PopID();
      const unsigned long long acks = m.probes > m.failed ? m.probes - m.failed : 0;
      if (acks < kTraceMinAcks)
        hint("%llu acks so far: the phi demo needs %zu to replay and tune a trace", acks,
             kTraceMinAcks);
      ImGui::Unindent();
      ++probe_table_rows_;
    }
  } else if (ImGui::BeginTable("probes", 5, flags,
                               ImVec2(0, std::min(all_rows, std::max(avail, row_h * 2.0f))))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* h : headers) ImGui::TableSetupColumn(h);
    // Fixed: a stretched column would clip its button.
    ImGui::TableSetupColumn("trace", ImGuiTableColumnFlags_WidthFixed,
                            button_width("export 00000 acks"));
    ImGui::TableHeadersRow();
    for (const auto& [name, m] : l.members()) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%llu", static_cast<unsigned long long>(m.probes));
      ImGui::TableNextColumn();
      ImGui::TextColored(
          plot::to_vec4(m.direct_failed ? plot::palette().suspect : plot::palette().ink), "%llu",
          static_cast<unsigned long long>(m.direct_failed));
      ImGui::TableNextColumn();
      ImGui::Text("%llu", static_cast<unsigned long long>(m.indirect_acked));
      ImGui::TableNextColumn();
      ImGui::PushID(name.c_str());
      if (button(export_label(m, nullptr).c_str())) download_trace(l, name);
      ImGui::PopID();
      ++probe_table_rows_;
    }
    ImGui::EndTable();
  }
  hint(
      "A trace holds one ack per answered probe. The phi demo replays and tunes a trace of %zu "
      "acks or more: its first %zu train the detectors.",
      kTraceMinAcks, kTraceMinAcks - 2);
}

void LivePanel::draw_packet_list() {
  const AgentLink* l = selected_link();
  if (!l) return;
  const auto& stats = l->packet_stats();
  hint("%s: %llu packets, %llu dropped by its faults, %llu over the rate limit", l->name().c_str(),
       static_cast<unsigned long long>(stats.received),
       static_cast<unsigned long long>(stats.dropped),
       static_cast<unsigned long long>(stats.skipped));
  ImGui::BeginChild("live-packets", ImVec2(0, box_height(8.0f)), true);
  ImGui::PushTextWrapPos(0.0f);  // a phone's width cuts a line naming a peer by its address
  constexpr std::size_t kShown = 40;
  std::size_t shown = 0;
  for (auto it = l->packets().rbegin(); it != l->packets().rend() && shown < kShown;
       ++it, ++shown) {
    const auto& p = *it;
    char line[200];
    // A ping names its target: its receiver, unless it asks a helper (ping-req) or a helper
    // relays it.
    const bool relayed = !p.target.empty() && p.target != (p.out ? p.peer : l->name());
    std::snprintf(line, sizeof line, "%8.2fs %s %-9s %s %s%s%s %u B", p.t_ms / 1000.0,
                  p.out ? "out" : "in ", p.kind.c_str(), p.out ? "->" : "<-", p.peer.c_str(),
                  relayed ? " for " : "", relayed ? p.target.c_str() : "", p.size);
    if (p.dropped)
      ImGui::TextColored(plot::to_vec4(plot::palette().error), "%s  dropped", line);
    else if (p.kind == "ping-req")
      ImGui::TextColored(plot::to_vec4(plot::palette().suspect), "%s", line);
    else
      ImGui::TextUnformatted(line);
  }
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
}

namespace {

// A packet from a real agent is in the air for well under a millisecond on a LAN: drawn over
// this long instead, so that a reader can follow it.
constexpr double kNominalFlightMs = 450;
// Batches arrive up to a tick (100 ms) after their packets left: the ring runs this far behind
// the page's clock, so that a flight starts at its sender instead of halfway.
constexpr double kRingLagMs = 250;

wire::PacketKind kind_of(const std::string& name) {
  for (std::size_t k = 0; k < wire::kPacketKinds; ++k)
    if (wire::packet_kind_name(static_cast<wire::PacketKind>(k)) == name)
      return static_cast<wire::PacketKind>(k);
  return wire::PacketKind::unknown;
}

}  // namespace

ring::Model LivePanel::ring_model(double page_now_ms) const {
  ring::Model model;
  model.now_ms = page_now_ms - kRingLagMs;
  const AgentLink* observer = selected_link();
  std::map<std::string, int> index;
  for (const auto& name : names_cache_) {
    ring::Member m;
    m.name = name;
    if (observer && name == observer->name()) {
      m.state = MemberState::alive;
      // Its own incarnation, from its self description (it holds no entry for itself).
      if (observer->self()) m.incarnation = observer->self()->incarnation;
    } else if (observer) {
      auto it = observer->members().find(name);
      m.state = it == observer->members().end() ? std::nullopt : it->second.state;
      if (it != observer->members().end()) m.incarnation = it->second.incarnation;
    }
    index[name] = static_cast<int>(model.members.size());
    model.members.push_back(std::move(m));
  }
  std::set<std::string> logging;  // agents whose own log shows what they send
  for (const auto& l : links_)
    if (l->packets_wanted() && l->status() == AgentLink::Status::open) logging.insert(l->name());
  for (std::size_t i = 0; i < links_.size(); ++i) {
    const AgentLink& l = *links_[i];
    if (observer == &l)
      model.selected = model.observer = index.count(l.name()) ? index[l.name()] : -1;
    auto self = index.find(l.name());
    if (self == index.end()) continue;
    for (const std::string& address : l.blocked())
      for (const auto& [name, member] : l.members())
        if (member.address == address && index.count(name))
          model.cuts.push_back({self->second, index[name]});
    for (auto it = l.packets().rbegin(); it != l.packets().rend(); ++it) {
      const auto& p = *it;
      if (p.page_ms + kNominalFlightMs * 2 < model.now_ms)
        break;  // older ones are done falling too
      auto peer = index.find(p.peer);
      if (peer == index.end()) continue;
      // A packet between two logging agents is in both logs: drawn once, from its sender's.
      if (!p.out && logging.count(p.peer)) continue;
      ring::Flight f;
      f.from = p.out ? self->second : peer->second;
      f.to = p.out ? peer->second : self->second;
      f.sent_ms = p.page_ms;
      f.arrive_ms = p.page_ms + kNominalFlightMs;
      f.kind = kind_of(p.kind);
      f.rumours = p.rumours;
      f.fate = p.dropped ? ring::Fate::dropped : ring::Fate::delivered;
      f.stream = p.stream;
      if (ring::flight_visible(f, model.now_ms)) model.flights.push_back(f);
    }
  }
  return model;
}

void LivePanel::draw_ring(ImVec2 size) {
  const double now = emscripten_get_now();
  const ring::Model model = ring_model(now);
  ring_in_air_ = 0;
  ring_cuts_ = model.cuts.size();
  double latest = ring_latest_ms_;
  for (const auto& f : model.flights) {
    if (ring::flight_in_air(f, model.now_ms)) ++ring_in_air_;
    if (f.sent_ms > ring_latest_ms_) {
      ++ring_flights_;
      latest = std::max(latest, f.sent_ms);
    }
  }
  ring_latest_ms_ = latest;
  ring_size_ = size;
  const float legend_h = ring::legend_height(size.x);
  const float ring_h =
      std::max(ImGui::GetFontSize() * 8.0f, size.y - legend_h - ImGui::GetStyle().ItemSpacing.y);
  // A group: beside the agents' views, the legend goes under the ring, not under the views.
  ImGui::BeginGroup();
  const ring::Result r = ring::draw("live-ring", ImVec2(size.x, ring_h), model);
  if (r.clicked >= 0 && static_cast<std::size_t>(r.clicked) < model.members.size())
    for (std::size_t i = 0; i < links_.size(); ++i)
      if (links_[i]->name() == model.members[static_cast<std::size_t>(r.clicked)].name)
        selected_agent_ = static_cast<int>(i);
  ring::draw_legend(size.x);
  ImGui::EndGroup();
}

void LivePanel::draw_peer(float height) {
  if (links_.empty() || names_cache_.empty()) {
    hint(
        "Once agents are connected, one agent's detectors for each of its peers show here: pick "
        "the agent above, the peer in its table.");
    return;
  }
  const AgentLink& l = *links_[static_cast<std::size_t>(
      std::clamp(selected_agent_, 0, static_cast<int>(links_.size()) - 1))];
  // An agent has no detector for itself: plot its first peer instead.
  std::string peer = peer_;
  if ((peer.empty() || peer == l.name()) && !l.members().empty()) peer = l.members().begin()->first;

  // Beside the plot when wide; above it on a phone, where a third of the width is no table. On a
  // phone the tables take the room they need (the page grows and scrolls): in a box of their
  // own, the probes and their export buttons would sit out of sight below its edge.
  const bool stacked = screen::narrow();
  if (stacked) {
    draw_peer_table(l);
  } else {
    ImGui::BeginChild("live-peers", ImVec2(ImGui::GetContentRegionAvail().x * 0.32f, height),
                      false);
    draw_peer_table(l);
    ImGui::EndChild();
    ImGui::SameLine();
  }
  auto it = l.members().find(peer);
  std::vector<double> idx, gaps;
  double top = 1000;
  if (it != l.members().end())
    for (std::size_t i = 0; i < it->second.gaps_ms.size(); ++i) {
      idx.push_back(static_cast<double>(i));
      gaps.push_back(it->second.gaps_ms[i]);
      top = std::max(top, it->second.gaps_ms[i] * 1.2);
    }
  char title[160];
  // A phone's plot holds about 35 characters of title; the tables above name the agent.
  if (screen::narrow())
    std::snprintf(title, sizeof title, "ack gaps from %s (ms)", peer.c_str());
  else
    std::snprintf(title, sizeof title, "gaps between acks from %s, as %s measures them (ms)",
                  peer.c_str(), l.name().c_str());
  if (plot::begin("live-gaps", ImVec2(-1, height),
                  {0, std::max(10.0, static_cast<double>(idx.size())), "ack number"},
                  {0, top, title})) {
    plot::bars("gap", idx, gaps, 0.8, plot::colors::with_alpha(plot::palette().blue, 200));
    if (it != l.members().end() && it->second.mean_ms > 0)
      plot::hline("mean", it->second.mean_ms, plot::palette().orange);
    plot::end();
  }
}

nlohmann::json LivePanel::state() const {
  nlohmann::json agents = nlohmann::json::array();
  for (const auto& l : links_) {
    nlohmann::json members = nlohmann::json::object();
    for (const auto& [name, m] : l->members()) members[name] = state_text(m.state);
    nlohmann::json probes = nlohmann::json::object();
    for (const auto& [name, m] : l->members())
      probes[name] = {{"probes", m.probes},
                      {"direct_failed", m.direct_failed},
                      {"indirect_acked", m.indirect_acked},
                      {"failed", m.failed}};
    const auto& ps = l->packet_stats();
    nlohmann::json ping_reqs = nlohmann::json::array();
    for (const auto& r : l->ping_reqs())
      ping_reqs.push_back({{"dir", r.out ? "out" : "in"},
                           {"peer", r.peer},
                           {"target", r.target},
                           {"count", r.count},
                           {"last_t_ms", r.last_t_ms}});
    nlohmann::json packets = {
        {"wanted", l->packets_wanted()}, {"received", ps.received}, {"skipped", ps.skipped},
        {"dropped", ps.dropped},         {"kinds", ps.kinds},       {"ping_req", ping_reqs}};
    agents.push_back({{"name", l->name()},
                      {"address", l->address()},
                      {"status", to_string(l->status())},
                      {"members", members},
                      {"messages", l->messages()},
                      {"last_reply", l->last_reply()},
                      {"probes", probes},
                      {"packets", packets},
                      {"time_ms", l->self() ? l->self()->time_ms : 0}});
  }
  nlohmann::json discovered = nlohmann::json::array();
  for (const auto& d : discovered_) discovered.push_back({{"name", d.name}, {"view", d.view}});
  return {{"demo", "live"},
          {"agents", agents},
          {"token_entered", token_[0] != 0},
          {"columns", names_cache_},
          {"discovered", discovered},
          {"observed_only", observed_only_},
          {"dropped", dropped_},
          {"peer", peer_},
          {"show_packets", show_packets_},
          {"ring",
           {{"in_air", ring_in_air_},
            {"flights", ring_flights_},
            {"cuts", ring_cuts_},
            {"width", ring_size_.x / screen::dpr()},
            {"height", ring_size_.y / screen::dpr()}}},
          {"probe_table", {{"agent", probe_table_agent_}, {"rows", probe_table_rows_}}}};
}

}  // namespace vigil::web
