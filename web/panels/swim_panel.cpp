#include "panels/swim_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include <vigil/view/messages.hpp>
#include <vigil/wire/packet_summary.hpp>
#include "panels/panel_layout.hpp"
#include "panels/param_ui.hpp"
#include "panels/param_url.hpp"
#include "scenes/scene_strip.hpp"
#include "ui/page_caption.hpp"
#include "ui/plot.hpp"
#include "ui/screen.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

namespace {

constexpr std::size_t kLogLines = 300;
constexpr double kMaxStepMs = 250;  // a background tab must not replay minutes in one frame
// A large cluster runs in slices of at least this much real time instead of a sliver every
// frame. A thread that wakes each frame for a fraction of a millisecond runs the engine several
// times slower per datagram than one that works without pause (natively, 16 ms of simulated
// time every 30 ms ran at about 0.3x of a continuous run on a two-core machine), and at this
// size one frame's changes are too small to see anyway.
constexpr double kLargeClusterSliceMs = 250;
constexpr int kLargeCluster = 200;
// The ring's height beside the controls, in font heights (about 440 px at the default size).
constexpr float kWideRingEm = 34.0f;

namespace param = lab::swim_param;

// Knobs of the page alone: how the simulated network and the playback look on screen. Their
// opening values depend on what is shown (see the constructor); `def` is the matrix's.
constexpr ParamSpec kDelay{.key = "delay",
                           .label = "delay (ms)",
                           .unit = "ms",
                           .help = "one-way link delay",
                           .def = 1,
                           .min = 0.5,
                           .max = 200,
                           .view_min = 0.5,
                           .view_max = 200,
                           .digits = 1};
constexpr ParamSpec kSpeed{.key = "speed",
                           .label = "speed (x)",
                           .help = "simulated time per real time",
                           .def = 1,
                           .min = 0.05,
                           .max = 20,
                           .view_min = 0.05,
                           .view_max = 20,
                           .log = true,
                           .digits = 2};

using view::MemberState;

// {"alive": n, "suspect": n, "dead": n, "left": n, "unknown": n}
nlohmann::json tally_json(const view::StateTally& tally) {
  nlohmann::json out = {{view::state_name(std::nullopt), tally.of(std::nullopt)}};
  for (MemberState s : view::kMemberStates) out[std::string(view::to_string(s))] = tally.of(s);
  return out;
}

}  // namespace

SwimPanel::SwimPanel(const UrlParams& params) {
  const auto built_from = std::chrono::steady_clock::now();
  nodes_ = url_param(params, param::nodes, nodes_);
  loss_ = url_param(params, param::loss, loss_);
  seed_ = static_cast<std::uint32_t>(url_param(params, param::seed, static_cast<double>(seed_)));
  if (auto v = params.text("view"))
    ring_view_ = *v != "matrix";
  else
    ring_view_ = nodes_ <= kRingMax;
  if (auto name = params.text("scene")) scene_spec_ = swim_scene_spec(*name);
  if (scene_spec_) {
    nodes_ = scene_spec_->nodes;
    seed_ = scene_spec_->seed;
    ring_view_ = true;
    selected_ = scene_spec_->focus;
    color_by_ = scene_spec_->observer;
  }
  // On the ring a packet must stay in the air long enough to be seen: a slow link and slow
  // motion. The matrix keeps the fast LAN it always had.
  delay_ms_ = url_param(params, kDelay,
                        scene_spec_      ? scene_spec_->delay_ms
                        : showing_ring() ? 50
                                         : kDelay.def);
  speed_ = url_param(params, kSpeed,
                     scene_spec_      ? scene_spec_->speed
                     : showing_ring() ? 0.25
                                      : kSpeed.def);
  if (auto p = params.text("profile")) {
    const auto& names = swim::Config::profile_names();
    auto it = std::find(names.begin(), names.end(), *p);
    if (it != names.end()) profile_ = static_cast<int>(it - names.begin());
  } else {
    profile_ = 2;  // local: quick enough to watch
  }
  if (auto lg = params.text("lifeguard")) lifeguard_ = *lg != "off" && *lg != "0";
  if (scene_spec_) {
    const auto& names = swim::Config::profile_names();
    profile_ = static_cast<int>(std::find(names.begin(), names.end(), scene_spec_->profile) -
                                names.begin());
    lifeguard_ = scene_spec_->lifeguard;
  }
  restart();
  // Faults for embedded demos (&kill=3, &slow=2, &partition=1), applied after 3 s of warm-up so
  // the cluster has converged first.
  const int kill = static_cast<int>(params.number("kill", -1, 0, nodes_ - 1));
  const int slow = static_cast<int>(params.number("slow", -1, 0, nodes_ - 1));
  const bool partition = params.flag("partition");
  if (kill >= 0 || slow >= 0 || partition) {
    cluster_->run_for(Millis{3000});
    if (kill >= 0) {
      cluster_->kill(static_cast<std::size_t>(selected_ = kill));
      refresh_row(static_cast<std::size_t>(kill));
    }
    if (slow >= 0)
      cluster_->set_slow(static_cast<std::size_t>(selected_ = slow),
                         cluster_->config().probe_interval * 5);
    if (partition) toggle_partition();
    const auto totals = cluster_->totals();
    last_datagrams_ = totals.datagrams_sent;
    last_bytes_ = totals.bytes_sent;
    last_sample_ = cluster_->now();
    next_sample_ = cluster_->now() + cluster_->config().probe_interval;
  }
  setup_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - built_from)
          .count();
  setup_datagrams_ = cluster_->totals().datagrams_sent;
}

void SwimPanel::save(UrlParams& p) const {
  save_param(p, param::nodes, nodes_);
  save_param(p, param::loss, loss_);
  save_param(p, kSpeed, speed_);
  save_param(p, param::seed, seed_);
  p.set("profile", swim::Config::profile_names()[static_cast<std::size_t>(profile_)]);
  p.set("lifeguard", lifeguard_ ? "on" : "off");
  p.set("view", ring_view_ ? "ring" : "matrix");
  save_param(p, kDelay, delay_ms_);
  if (scene_spec_) p.set("scene", scene_spec_->name);
  // kill, slow and partition describe how an embedded scene starts, not where the reader took
  // it; they stay as the page wrote them.
}

void SwimPanel::toggle_partition() {
  partitioned_ = cluster_->network().partitioned();
  if (partitioned_) {
    cluster_->network().heal();
  } else {
    std::vector<std::size_t> a, b;
    for (std::size_t i = 0; i < static_cast<std::size_t>(nodes_); ++i)
      (i < static_cast<std::size_t>(nodes_) / 2 ? a : b).push_back(i);
    cluster_->network().partition({a, b});
  }
  partitioned_ = !partitioned_;
}

swim::Config SwimPanel::current_config() const {
  swim::Config c =
      swim::Config::profile(swim::Config::profile_names()[static_cast<std::size_t>(profile_)])
          .value();
  if (!lifeguard_) c.lifeguard = swim::Lifeguard{false, false, false};
  return c;
}

void SwimPanel::restart() {
  sim::ClusterOptions o;
  o.nodes = static_cast<std::size_t>(nodes_);
  o.config = current_config();
  o.seed = seed_;
  o.link.loss = loss_;
  o.link.delay = sim::DelayModel::constant(delay_ms_);
  o.event_log_capacity = 0;  // the panel keeps its own matrix and log
  cluster_ = std::make_unique<sim::SwimCluster>(sim::SwimCluster::create(o).value());
  matrix_.assign(static_cast<std::size_t>(nodes_) * nodes_, Cell{});
  heat_.reset();  // releases the old texture before a new matrix is allocated
  // Every node starts up and every view alive: only the diagonal differs from the first cell.
  heat_ = std::make_unique<plot::HeatmapTexture>(nodes_, nodes_, heat_cell(0, 1));
  for (std::size_t i = 0; i < static_cast<std::size_t>(nodes_); ++i) refresh_cell(i, i);
  painted_with_ = &plot::palette();
  cluster_->on_event([this](const sim::ClusterEvent& e) { on_event(e); });
  // Only a cluster small enough for the ring pays for describing its packets.
  if (ring_offered()) cluster_->on_packet([this](const sim::PacketTrace& t) { on_packet(t); });
  flights_.clear();
  packets_ = 0;
  first_seen_.clear();
  seen_mask_ = 0;
  alive_incarnation_.assign(static_cast<std::size_t>(nodes_), -1);
  accusations_.assign(static_cast<std::size_t>(nodes_), 0);
  steps_ = step_engine_events_ = 0;
  tempo_ = 1;
  if (clicked_ >= nodes_) clicked_ = -1;
  if (scene_spec_) {
    const bool was_started = scene_.started();
    scene_ = make_swim_scene(
        *scene_spec_, [this]() -> sim::SwimCluster& { return *cluster_; },
        [this](double t) { tempo_ = t; });
    if (was_started) scene_.start();
    scene_.run_due(Millis{0});
  }
  log_.clear();
  events_ = 0;
  carry_ms_ = 0;
  partitioned_ = false;
  traffic_t_.clear();
  traffic_msgs_.clear();
  traffic_bytes_.clear();
  next_sample_ = o.config.probe_interval;
  last_sample_ = Millis{0};
  last_datagrams_ = last_bytes_ = 0;
  selected_ = std::min(selected_, nodes_ - 1);
  other_ = std::min(other_, nodes_ - 1);
}

void SwimPanel::apply_link() {
  sim::LinkModel link = cluster_->network().default_link();
  link.loss = loss_;
  link.delay = sim::DelayModel::constant(delay_ms_);
  cluster_->network().set_default_link(link);
}

void SwimPanel::reset_row(std::size_t observer) {
  for (std::size_t j = 0; j < static_cast<std::size_t>(nodes_); ++j) {
    const swim::Member* m = cluster_->view(observer, j);
    Cell& c = matrix_[observer * nodes_ + j];
    c.state = m ? ring::Look(m->state) : std::nullopt;
    c.incarnation = m ? m->incarnation : 0;
  }
  refresh_row(observer);
}

void SwimPanel::refresh_cell(std::size_t observer, std::size_t observed) {
  heat_->set(static_cast<int>(observer), static_cast<int>(observed), heat_cell(observer, observed));
}

void SwimPanel::refresh_row(std::size_t observer) {
  for (std::size_t j = 0; j < static_cast<std::size_t>(nodes_); ++j) refresh_cell(observer, j);
}

void SwimPanel::on_event(const sim::ClusterEvent& e) {
  ++events_;
  if (e.event.kind == swim::EventKind::suspect && e.event.by == cluster_->name(e.observer) &&
      e.observer < accusations_.size())
    ++accusations_[e.observer];
  auto host = cluster_->host_of(e.event.member);
  if (host) {
    Cell& c = matrix_[e.observer * nodes_ + *host];
    c.incarnation = e.event.incarnation;
    switch (e.event.kind) {
      case swim::EventKind::refuted:
        c.state = MemberState::alive;
        break;
      case swim::EventKind::removed:
        c.state.reset();
        break;
      default:
        if (auto state = view::state_after(e.event.kind)) c.state = *state;
        break;
    }
    refresh_cell(e.observer, *host);
  }
  log_event(e);
}

void SwimPanel::log_event(const sim::ClusterEvent& e) {
  const std::string& who = cluster_->name(e.observer);
  const swim::Event& ev = e.event;
  char line[200];
  const double t = static_cast<double>(ev.at.count()) / 1000.0;
  switch (ev.kind) {
    case swim::EventKind::suspect:
      // Only the accuser's own suspicion is news; the gossip of it would flood the log.
      if (ev.by != who) return;
      std::snprintf(line, sizeof line, "%7.2fs  %s suspects %s (#%u)", t, who.c_str(),
                    ev.member.c_str(), ev.incarnation);
      break;
    case swim::EventKind::dead:
      if (ev.by != who) return;
      std::snprintf(line, sizeof line, "%7.2fs  %s declares %s dead", t, who.c_str(),
                    ev.member.c_str());
      break;
    case swim::EventKind::refuted:
      std::snprintf(line, sizeof line, "%7.2fs  %s refutes with #%u", t, who.c_str(),
                    ev.incarnation);
      break;
    case swim::EventKind::left:
      if (ev.member != who && e.observer != 0) return;
      std::snprintf(line, sizeof line, "%7.2fs  %s: %s left", t, who.c_str(), ev.member.c_str());
      break;
    case swim::EventKind::join:
      if (e.observer != 0) return;  // one line per rejoin is enough
      std::snprintf(line, sizeof line, "%7.2fs  %s sees %s join (#%u)", t, who.c_str(),
                    ev.member.c_str(), ev.incarnation);
      break;
    default:
      return;
  }
  log_.push_front(line);
  if (log_.size() > kLogLines) log_.pop_back();
}

void SwimPanel::on_packet(const sim::PacketTrace& t) {
  ++packets_;
  const wire::PacketSummary summary =
      t.stream ? wire::summarize_stream(t.bytes) : wire::summarize_datagram(t.bytes);
  const auto seen = [&](wire::PacketKind k) {
    const std::uint32_t bit = 1u << static_cast<unsigned>(k);
    if (seen_mask_ & bit) return;
    seen_mask_ |= bit;
    first_seen_.emplace_back(wire::packet_kind_name(k));
  };
  ring::Flight f;
  f.from = static_cast<int>(t.from);
  f.to = static_cast<int>(t.to);
  f.kind = summary.kind;
  f.stream = t.stream;
  seen(summary.kind);
  for (const auto& r : summary.rumours) {
    seen(r.kind);
    const std::size_t k = r.kind == wire::PacketKind::suspect ? 0
                          : r.kind == wire::PacketKind::alive ? 1
                                                              : 2;
    if (f.rumours[k] < 255) ++f.rumours[k];
    if (r.kind == wire::PacketKind::alive)
      if (auto host = cluster_->host_of(r.node))
        alive_incarnation_[*host] =
            std::max<std::int64_t>(alive_incarnation_[*host], r.incarnation);
  }
  f.sent_ms = static_cast<double>(t.sent.count());
  if (t.fate == sim::PacketTrace::Fate::delivered) {
    f.arrive_ms = static_cast<double>(t.arrives.count());
  } else {
    // Lost on the way: drawn as far as the middle of its would-be flight, then falling.
    f.arrive_ms = f.sent_ms + delay_ms_;
    f.fate = t.fate == sim::PacketTrace::Fate::lost ? ring::Fate::dropped : ring::Fate::blocked;
  }
  if (t.fate == sim::PacketTrace::Fate::unroutable || f.to >= nodes_) return;
  flights_.push_back(f);
  if (flights_.size() > kMaxFlights) flights_.pop_front();
}

void SwimPanel::prune_flights() {
  // Sent in order and about as long in the air as each other: the old ones are at the front.
  const double now = static_cast<double>(cluster_->now().count());
  while (!flights_.empty() && flights_.front().arrive_ms < now) flights_.pop_front();
}

void SwimPanel::run_to(Millis t) {
  while (scene_.active() && scene_.next_at() <= t) {
    cluster_->run_until(scene_.next_at());
    scene_.run_due(cluster_->now());
  }
  cluster_->run_until(t);
}

void SwimPanel::step_event() {
  // Timer ticks that send nothing change nothing on screen: step past them, within reason.
  for (int i = 0; i < 100000; ++i) {
    const Millis next = cluster_->next_event_time();
    if (scene_.active() && scene_.next_at() <= next) {
      cluster_->run_until(scene_.next_at());
      scene_.run_due(cluster_->now());
      break;
    }
    const auto before_packets = packets_;
    const auto before_events = events_;
    const double before_ms = static_cast<double>(cluster_->now().count());
    if (!cluster_->step()) break;
    ++step_engine_events_;
    const double now = static_cast<double>(cluster_->now().count());
    // A delivery shows as its packet landing: one due at the instant the previous step ended
    // already left the picture then, and changes nothing now.
    bool arrived = false;
    for (const auto& f : flights_)
      arrived |= f.fate == ring::Fate::delivered && f.arrive_ms > before_ms && f.arrive_ms <= now;
    if (packets_ != before_packets || events_ != before_events || arrived) break;
  }
  ++steps_;
}

void SwimPanel::step_period() {
  run_to(cluster_->now() + cluster_->config().probe_interval);
  ++steps_;
}

void SwimPanel::replay() {
  restart();
  if (screen::in_view()) scene_.start();  // the reader asked for it: reduced motion or not
  paused_ = false;
}

void SwimPanel::advance(double real_ms) {
  if (scene_.active() && !scene_.started()) {
    // The story holds at its first beat until the reader can see it (or plays it, under
    // reduced motion).
    if (!screen::may_autostart()) return;
    scene_.start();
  }
  if (paused_) {
    prune_flights();
    return;
  }
  carry_ms_ += std::clamp(real_ms, 0.0, kMaxStepMs) * speed_ * tempo_;
  if (nodes_ >= kLargeCluster && carry_ms_ < kLargeClusterSliceMs * speed_) return;
  const double whole = std::floor(carry_ms_);
  carry_ms_ -= whole;
  run_to(cluster_->now() + Millis{static_cast<std::int64_t>(whole)});
  prune_flights();
  const Millis period = cluster_->config().probe_interval;
  if (cluster_->now() >= next_sample_) {
    // Per node per probe period since the previous sample, however long that was.
    const auto totals = cluster_->totals();
    const double periods = static_cast<double>((cluster_->now() - last_sample_).count()) /
                           static_cast<double>(period.count());
    const double per = static_cast<double>(nodes_) * std::max(periods, 1e-9);
    traffic_t_.push_back(static_cast<double>(cluster_->now().count()) / 1000.0);
    traffic_msgs_.push_back(static_cast<double>(totals.datagrams_sent - last_datagrams_) / per);
    traffic_bytes_.push_back(static_cast<double>(totals.bytes_sent - last_bytes_) / per);
    last_datagrams_ = totals.datagrams_sent;
    last_bytes_ = totals.bytes_sent;
    last_sample_ = cluster_->now();
    next_sample_ = cluster_->now() + period;
    if (traffic_t_.size() > 120) {
      traffic_t_.erase(traffic_t_.begin());
      traffic_msgs_.erase(traffic_msgs_.begin());
      traffic_bytes_.erase(traffic_bytes_.begin());
    }
  }
}

void SwimPanel::draw() {
  partitioned_ = cluster_->network().partitioned();
  if (painted_with_ != &plot::palette()) {
    for (std::size_t r = 0; r < static_cast<std::size_t>(nodes_); ++r) refresh_row(r);
    painted_with_ = &plot::palette();
  }
  if (showing_ring()) {
    // One column on a phone: a square ring as wide as the screen, with room above it for the
    // caption and the buttons, below it for the legend and the clicked member's details.
    // Side by side, the ring's column is what the controls leave, and the ring no taller than a
    // laptop's screen holds with its caption: a frame taller than the window cannot be read whole.
    const float font = ImGui::GetFontSize();
    PanelShape shape{"swim", 21.0f, 0.38f, 0.0f};
    const float column = ImGui::GetContentRegionAvail().x - controls_width(shape);
    const float ring_em = screen::narrow() ? column / font : std::min(column / font, kWideRingEm);
    shape.plots_em = ring_em + 10.0f + (clicked_ >= 0 ? 10.5f : 0.0f) +
                     (scene_spec_ && scene_spec_->name == "lifeguard" ? 2.0f : 0.0f);
    panel_layout(
        shape, [&] { draw_controls(); }, [&](float h) { draw_ring_view(h); });
    return;
  }
  panel_layout(
      {"swim", 21.0f, 0.38f, 32.0f}, [&] { draw_controls(); },
      [&](float h) {
        draw_matrix(h * 0.66f);
        draw_traffic(h * 0.34f - ImGui::GetStyle().ItemSpacing.y);
      });
}

ring::Look SwimPanel::look_of(std::size_t observed) const {
  const auto n = static_cast<std::size_t>(nodes_);
  if (color_by_ >= 0 && color_by_ < nodes_) {
    const auto r = static_cast<std::size_t>(color_by_);
    if (r == observed) return cluster_->is_up(r) ? MemberState::alive : MemberState::dead;
    return matrix_[r * n + observed].state;
  }
  // Consensus: what most live members hold; on a tie the worse news.
  view::StateTally tally;
  for (std::size_t r = 0; r < n; ++r)
    if (r != observed && cluster_->is_up(r)) tally.add(matrix_[r * n + observed].state);
  ring::Look best = MemberState::alive;
  for (ring::Look candidate : {ring::Look(MemberState::suspect), ring::Look(MemberState::dead),
                               ring::Look(MemberState::left), ring::Look()}) {
    const std::size_t count = tally.of(candidate), best_count = tally.of(best);
    if (count > best_count ||
        (count == best_count && view::severity(candidate) > view::severity(best)))
      best = candidate;
  }
  if (tally.of(best) == 0) return MemberState::alive;
  return best;
}

ring::Model SwimPanel::ring_model() const {
  ring::Model m;
  m.now_ms = static_cast<double>(cluster_->now().count()) + carry_ms_;
  for (std::size_t i = 0; i < static_cast<std::size_t>(nodes_); ++i) {
    const swim::Member* self = cluster_->view(i, i);
    m.members.push_back({cluster_->name(i), look_of(i), cluster_->is_up(i), cluster_->is_paused(i),
                         self ? self->incarnation : 0});
  }
  for (const auto& f : flights_)
    if (ring::flight_visible(f, m.now_ms)) m.flights.push_back(f);
  for (int a = 0; a < nodes_; ++a)
    for (int b = 0; b < nodes_; ++b)
      if (a != b &&
          !cluster_->network().connected(static_cast<std::size_t>(a), static_cast<std::size_t>(b)))
        m.cuts.push_back({a, b});
  m.selected = clicked_;
  m.observer = color_by_;
  return m;
}

void SwimPanel::draw_transport() {
  // A story that waits for its reader (out of view, or reduced motion) shows play.
  const bool waiting = scene_.active() && !scene_.started();
  if (key_button(paused_ || waiting ? "play" : "pause", Shortcut::kPlayPause, nullptr,
                 /*first_in_row=*/true)) {
    if (waiting) {
      scene_.start();
      paused_ = false;
    } else {
      paused_ = !paused_;
    }
  }
  if (key_button("one event", Shortcut::kStep, "pause and deliver the next datagram or timer")) {
    paused_ = true;
    if (scene_.active()) scene_.start();
    step_event();
  }
  if (row_button("one period")) {
    paused_ = true;
    if (scene_.active()) scene_.start();
    step_period();
  }
  if (scene_.active() && key_button("replay", Shortcut::kReplay)) replay();
}

void SwimPanel::draw_ring_view(float height) {
  const float top = ImGui::GetCursorPosY();
  const float width = ImGui::GetContentRegionAvail().x;
  const ImGuiStyle& style = ImGui::GetStyle();
  if (scene_.active()) {
    // Room for two lines whatever the caption, so the ring does not jump between beats. The
    // page shows the caption as text there (app/page_caption.hpp).
    const float caption_h =
        std::max(page_caption_height(scene_.caption(), width), 2 * page_caption_line_height());
    place_page_caption(scene_.caption(), false, caption_h);
    if (scene_spec_->name == "lifeguard") {
      const auto f = static_cast<std::size_t>(scene_spec_->focus);
      hint("%s: local health score %d (timeouts x%d), suspicions it raised: %d",
           cluster_->name(f).c_str(), cluster_->node(f).health_score(),
           cluster_->node(f).health_score() + 1, accusations_[f]);
    }
  }
  draw_transport();
  if (!scene_.started() && scene_.active()) hint("%s", waiting_line().c_str());
  const float details_h = clicked_ >= 0 ? ImGui::GetFontSize() * 10.0f : 0.0f;
  const float legend_h = ring::legend_height(width);
  const float used = ImGui::GetCursorPosY() - top;
  const float ring_h = std::max(ImGui::GetFontSize() * 10.0f,
                                height - used - legend_h - details_h - style.ItemSpacing.y * 3);
  const ring::Result r = ring::draw("ring", ImVec2(width, ring_h), ring_model());
  ring_rect_ = ImVec4(r.min.x, r.min.y, r.max.x, r.max.y);
  member_centres_ = r.member_centres;
  if (r.clicked >= 0) clicked_ = r.clicked == clicked_ ? -1 : r.clicked;
  ring::draw_legend(width);
  if (clicked_ >= 0) draw_member_details(details_h);
}

void SwimPanel::draw_member_details(float height) {
  const auto i = static_cast<std::size_t>(clicked_);
  const swim::Node& node = cluster_->node(i);
  ImGui::BeginChild("member-details", ImVec2(0, height), true);
  ImGui::Text("%s%s, incarnation #%u, local health %d", cluster_->name(i).c_str(),
              cluster_->is_up(i) ? (cluster_->is_paused(i) ? " (paused)" : "") : " (crashed)",
              node.incarnation(), node.health_score());
  const auto timers = node.suspicion_timers();
  if (timers.empty()) hint("No suspicion timers running.");
  for (const auto& t : timers)
    hint("Suspects %s: dead in %.1f s unless refuted (%d confirmation%s)", t.member.c_str(),
         static_cast<double>((t.deadline - cluster_->now()).count()) / 1000.0, t.confirmations,
         t.confirmations == 1 ? "" : "s");
  if (ImGui::BeginTable("view", 3, ImGuiTableFlags_SizingStretchSame | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("member");
    ImGui::TableSetupColumn("state");
    ImGui::TableSetupColumn("incarnation");
    ImGui::TableHeadersRow();
    for (std::size_t j = 0; j < static_cast<std::size_t>(nodes_); ++j) {
      if (j == i) continue;
      const swim::Member* m = cluster_->view(i, j);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(cluster_->name(j).c_str());
      ImGui::TableNextColumn();
      const ring::Look st = m ? ring::Look(m->state) : std::nullopt;
      ImGui::TextColored(plot::to_vec4(ring::state_color(st)), "%s",
                         std::string(view::state_name(st)).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("#%u", m ? m->incarnation : 0);
    }
    ImGui::EndTable();
  }
  ImGui::EndChild();
}

void SwimPanel::draw_controls() {
  const float label_width = ImGui::GetFontSize() * 7.5f;
  ImGui::TextWrapped(
      "Each node probes one member per period; on silence it asks others, then suspects; only the "
      "accused can refute, by raising its incarnation.");
  section("Cluster");
  ImGui::PushItemWidth(-label_width);
  bool rebuild = param_slider(param::nodes, &nodes_);
  std::vector<const char*> names;
  for (const auto& n : swim::Config::profile_names()) names.push_back(n.c_str());
  const bool reprofile =
      ImGui::Combo("profile", &profile_, names.data(), static_cast<int>(names.size()));
  param_slider(param::loss, &loss_);
  if (ImGui::IsItemEdited()) apply_link();
  param_slider(kDelay, &delay_ms_);
  if (ImGui::IsItemEdited()) apply_link();
  param_slider(kSpeed, &speed_);
  ImGui::PopItemWidth();
  if (ring_offered()) {
    int view = ring_view_ ? 0 : 1;
    ImGui::RadioButton("show ring", &view, 0);
    row_radio("show matrix", &view, 1);
    ring_view_ = view == 0;
    if (ring_view_) {
      std::vector<std::string> who = {"consensus"};
      for (int i = 0; i < nodes_; ++i) who.push_back("node-" + std::to_string(i) + "'s view");
      std::vector<const char*> items;
      for (const auto& w : who) items.push_back(w.c_str());
      int pick = color_by_ + 1;
      ImGui::PushItemWidth(-label_width);
      if (ImGui::Combo("colour by", &pick, items.data(), static_cast<int>(items.size())))
        color_by_ = pick - 1;
      ImGui::PopItemWidth();
    }
  }
  if (ImGui::Checkbox("Lifeguard", &lifeguard_) || reprofile)
    cluster_->reconfigure(current_config());
  if (row_button("restart") || (rebuild && ImGui::IsItemDeactivatedAfterEdit())) restart();
  if (rebuild && !ImGui::IsItemActive() && static_cast<std::size_t>(nodes_) != cluster_->size())
    restart();

  section("Faults");
  ImGui::PushItemWidth(-label_width);
  ImGui::SliderInt("node", &selected_, 0, nodes_ - 1, "node-%d", ImGuiSliderFlags_AlwaysClamp);
  ImGui::PopItemWidth();
  const auto sel = static_cast<std::size_t>(selected_);
  if (button(cluster_->is_up(sel) ? "kill" : "revive")) {
    if (cluster_->is_up(sel)) {
      cluster_->kill(sel);
      refresh_row(sel);  // a crashed node's row dims
    } else {
      cluster_->revive(sel);
      reset_row(sel);
    }
  }
  if (row_button("pause 2.5 s")) cluster_->pause(sel, Millis{2500});
  ImGui::SameLine();
  const bool slow = cluster_->slowness(sel) > Millis{0};
  if (button(slow ? "un-slow" : "slow"))
    cluster_->set_slow(sel, slow ? Millis{0} : cluster_->config().probe_interval * 5);
  if (row_button("leave")) cluster_->leave(sel);
  ImGui::PushItemWidth(-label_width);
  ImGui::SliderInt("to", &other_, 0, nodes_ - 1, "node-%d", ImGuiSliderFlags_AlwaysClamp);
  ImGui::PopItemWidth();
  const auto to = static_cast<std::size_t>(other_);
  if (sel == to) {
    // A link from a member to itself is not a link: offer no such button.
    ImGui::BeginDisabled();
    button("pick another member to block");
    ImGui::EndDisabled();
  } else {
    const bool blocked = cluster_->network().is_blocked(sel, to);
    char block_label[64];
    std::snprintf(block_label, sizeof block_label, "%s node-%d -> node-%d",
                  blocked ? "unblock" : "block", selected_, other_);
    if (button(block_label)) {
      if (blocked)
        cluster_->network().unblock(sel, to);
      else
        cluster_->network().block(sel, to);
    }
  }
  if (button(partitioned_ ? "heal the partition" : "partition into two halves")) toggle_partition();

  section("Events");
  ImGui::Text("t = %.1f s, %llu membership events",
              static_cast<double>(cluster_->now().count()) / 1000.0,
              static_cast<unsigned long long>(events_));
  ImGui::BeginChild("swim-log", ImVec2(0, box_height(12.0f)), true);
  for (const auto& line : log_) ImGui::TextUnformatted(line.c_str());
  ImGui::EndChild();
}

plot::HeatCell SwimPanel::heat_cell(std::size_t observer, std::size_t observed) const {
  if (observer == observed) return {plot::palette().self, 0};
  const bool observer_down = !cluster_->is_up(observer);
  const Cell& c = matrix_[observer * nodes_ + observed];
  ImU32 color = ring::state_color(c.state);
  if (observer_down) color = plot::colors::with_alpha(color, 60);  // a crashed node's last view
  // Within a block of tiny cells, the worst news shows.
  return {color, view::severity(c.state)};
}

void SwimPanel::draw_matrix(float height) {
  const double n = nodes_;
  plot::Options options;
  options.legend = false;
  plot::Axis x{0, n, "observed node"}, y{0, n, "observer node (each row: its own view)"};
  x.index_ticks = y.index_ticks = true;
  options.zoom = false;
  if (plot::begin("matrix", ImVec2(-1, height), x, y, options)) {
    heat_->draw(0, n, 0, n);
    const ImVec2 top_left = plot::to_screen(0, n), bottom_right = plot::to_screen(n, 0);
    matrix_rect_ = ImVec4(top_left.x, top_left.y, bottom_right.x, bottom_right.y);
    // Small clusters show incarnations in the cells, where a label fits (not on a phone's width).
    const float cell_px = (bottom_right.x - top_left.x) / static_cast<float>(nodes_);
    const float cell_h = (bottom_right.y - top_left.y) / static_cast<float>(nodes_);
    const bool labels_fit = ImGui::GetFontSize() <= cell_h * 0.9f;
    if (nodes_ <= 24 && labels_fit)
      for (int r = 0; r < nodes_; ++r)
        for (int c = 0; c < nodes_; ++c) {
          if (r == c) continue;
          char inc[16];
          std::snprintf(inc, sizeof inc, "#%u",
                        matrix_[static_cast<std::size_t>(r) * nodes_ + c].incarnation);
          if (ImGui::CalcTextSize(inc).x > cell_px * 0.84f) continue;
          plot::text(c + 0.08, n - r - 0.1, plot::palette().cell_ink, inc);
        }
    int row = 0, col = 0;
    hovered_row_ = hovered_col_ = -1;
    if (plot::hovered_cell(&row, &col)) {
      hovered_row_ = row;
      hovered_col_ = col;
      const Cell& c = matrix_[static_cast<std::size_t>(row) * nodes_ + col];
      ImGui::BeginTooltip();
      if (row == col)
        ImGui::Text("node-%d (itself)%s", row,
                    cluster_->is_up(static_cast<std::size_t>(row)) ? "" : ", crashed");
      else
        ImGui::Text("node-%d sees node-%d: %s #%u", row, col,
                    std::string(view::state_name(c.state)).c_str(), c.incarnation);
      ImGui::EndTooltip();
    }
    plot::end();
  }
}

void SwimPanel::draw_traffic(float height) {
  const double t_end = traffic_t_.empty() ? 10.0 : traffic_t_.back();
  double y_max = 4;
  for (double v : traffic_msgs_) y_max = std::max(y_max, v * 1.2);
  if (plot::begin("traffic", ImVec2(-1, height),
                  {std::max(0.0, t_end - 60), std::max(10.0, t_end), "simulated time (s)"},
                  {0, y_max, "datagrams per node per period"})) {
    plot::line("measured", traffic_t_, traffic_msgs_, plot::palette().blue);
    plot::hline("formula: ping + ack = 2", 2.0,
                plot::colors::with_alpha(plot::palette().orange, 200));
    plot::end();
  }
}

nlohmann::json SwimPanel::views_json() const {
  const auto n = static_cast<std::size_t>(nodes_);
  view::StateTally all;
  for (std::size_t r = 0; r < n; ++r) {
    if (!cluster_->is_up(r)) continue;
    for (std::size_t c = 0; c < n; ++c)
      if (r != c) all.add(matrix_[r * n + c].state);
  }
  // views[observer][observed] = state, for small clusters (tests check who sees whom how).
  nlohmann::json views = nlohmann::json::array();
  if (nodes_ <= 32)
    for (std::size_t r = 0; r < n; ++r) {
      nlohmann::json row = nlohmann::json::array();
      for (std::size_t c = 0; c < n; ++c) row.push_back(view::state_name(matrix_[r * n + c].state));
      views.push_back(row);
    }
  // How the live observers see the selected member (the one &kill= or the fault buttons act on).
  const auto sel = static_cast<std::size_t>(selected_);
  view::StateTally of_selected;
  for (std::size_t r = 0; r < n; ++r)
    if (r != sel && cluster_->is_up(r)) of_selected.add(matrix_[r * n + sel].state);
  return {{"views_by_state", tally_json(all)},
          {"views", views},
          {"views_of_selected", tally_json(of_selected)}};
}

nlohmann::json SwimPanel::matrix_json() const {
  // How many of those holding the selected member dead the cached picture shows red in its
  // column: all of them, if blocks keep their worst news.
  const auto sel = static_cast<std::size_t>(selected_);
  std::size_t shown_dead = 0;
  for (std::size_t r = 0; r < static_cast<std::size_t>(nodes_); ++r) {
    if (r == sel || !cluster_->is_up(r)) continue;
    if (matrix_[r * nodes_ + sel].state == MemberState::dead &&
        heat_->shown_color(static_cast<int>(r), selected_) == ring::state_color(MemberState::dead))
      ++shown_dead;
  }
  // Cells whose kept colour is not what the current palette paints their state: none, unless
  // a theme change left the picture behind.
  std::size_t stale = 0;
  for (int r = 0; r < nodes_; ++r)
    for (int c = 0; c < nodes_; ++c)
      stale += heat_->cell(r, c).color !=
               heat_cell(static_cast<std::size_t>(r), static_cast<std::size_t>(c)).color;
  return {
      {"stale_cells", stale},
      {"rect", {matrix_rect_.x, matrix_rect_.y, matrix_rect_.z, matrix_rect_.w}},
      {"block_rows", heat_->block_rows()},
      {"block_cols", heat_->block_cols()},
      {"uploads", heat_->uploads()},
      {"hovered", hovered_row_ < 0 ? nlohmann::json() : nlohmann::json{hovered_row_, hovered_col_}},
      {"selected_shown_dead", shown_dead}};
}

// Packets in the air this frame by kind, and the news they carry by state.
nlohmann::json SwimPanel::in_flight_json() const {
  const double now = static_cast<double>(cluster_->now().count()) + carry_ms_;
  nlohmann::json in_flight = nlohmann::json::object();
  for (const char* k : {"ping", "ack", "ping-req", "nack", "suspect", "alive", "dead", "push-pull"})
    in_flight[k] = 0;
  for (const auto& f : flights_) {
    if (!ring::flight_in_air(f, now)) continue;
    const std::string kind(wire::packet_kind_name(f.stream ? wire::PacketKind::push_pull : f.kind));
    const bool news_only = f.kind == wire::PacketKind::suspect ||
                           f.kind == wire::PacketKind::alive || f.kind == wire::PacketKind::dead;
    if (!news_only && in_flight.contains(kind)) in_flight[kind] = in_flight[kind].get<int>() + 1;
    for (std::size_t k = 0; k < ring::kRumourStates.size(); ++k) {
      const std::string news(view::to_string(ring::kRumourStates[k]));
      in_flight[news] = in_flight[news].get<int>() + f.rumours[k];
    }
  }
  return in_flight;
}

nlohmann::json SwimPanel::ring_members_json() const {
  nlohmann::json members = nlohmann::json::array();
  for (std::size_t i = 0; i < static_cast<std::size_t>(nodes_); ++i) {
    const swim::Member* self = cluster_->view(i, i);
    members.push_back({{"name", cluster_->name(i)},
                       {"state", view::state_name(look_of(i))},
                       {"up", cluster_->is_up(i)},
                       {"paused", cluster_->is_paused(i)},
                       {"incarnation", self ? self->incarnation : 0},
                       {"alive_news_incarnation", alive_incarnation_[i]},
                       {"health", cluster_->node(i).health_score()},
                       {"accusations", accusations_[i]}});
  }
  return members;
}

// The clicked member's own view and suspicion timers; null when none is clicked.
nlohmann::json SwimPanel::details_json() const {
  if (clicked_ < 0) return nullptr;
  const auto i = static_cast<std::size_t>(clicked_);
  nlohmann::json seen = nlohmann::json::object();
  for (std::size_t j = 0; j < static_cast<std::size_t>(nodes_); ++j) {
    const swim::Member* m = cluster_->view(i, j);
    seen[cluster_->name(j)] = {{"state", view::state_name(m ? ring::Look(m->state) : std::nullopt)},
                               {"incarnation", m ? m->incarnation : 0}};
  }
  nlohmann::json timers = nlohmann::json::array();
  for (const auto& t : cluster_->node(i).suspicion_timers())
    timers.push_back({{"member", t.member},
                      {"started_ms", t.started.count()},
                      {"deadline_ms", t.deadline.count()},
                      {"confirmations", t.confirmations}});
  return {{"member", cluster_->name(i)},
          {"incarnation", cluster_->node(i).incarnation()},
          {"health", cluster_->node(i).health_score()},
          {"view", seen},
          {"suspicion_timers", timers}};
}

nlohmann::json SwimPanel::state() const {
  nlohmann::json up = nlohmann::json::array();
  for (std::size_t i = 0; i < cluster_->size(); ++i) up.push_back(cluster_->is_up(i));
  const auto totals = cluster_->totals();
  nlohmann::json out = {
      {"demo", "swim"},
      {"nodes", nodes_},
      {"profile", swim::Config::profile_names()[static_cast<std::size_t>(profile_)]},
      {"lifeguard", lifeguard_},
      {"sim_ms", cluster_->now().count()},
      {"up", up},
      {"selected", selected_},
      {"matrix", matrix_json()},
      {"events", events_},
      {"log", nlohmann::json(std::vector<std::string>(log_.begin(), log_.end()))},
      {"datagrams", totals.datagrams_sent},
      {"setup_ms", setup_ms_},
      {"setup_datagrams", setup_datagrams_}};
  out.update(views_json());
  out["partitioned"] = cluster_->network().partitioned();
  out["view"] = showing_ring() ? "ring" : "matrix";
  out["speed"] = speed_;
  out["delay_ms"] = delay_ms_;
  out["paused"] = paused_;
  if (!showing_ring()) return out;
  nlohmann::json centres = nlohmann::json::array();
  for (const ImVec2& c : member_centres_) centres.push_back({c.x, c.y});
  out["in_flight"] = in_flight_json();
  out["seen_order"] = first_seen_;
  out["members"] = ring_members_json();
  out["packets"] = packets_;
  out["flights_kept"] = flights_.size();
  out["ring"] = {{"rect", {ring_rect_.x, ring_rect_.y, ring_rect_.z, ring_rect_.w}},
                 {"centres", centres}};
  out["color_by"] = color_by_ < 0
                        ? nlohmann::json("consensus")
                        : nlohmann::json(cluster_->name(static_cast<std::size_t>(color_by_)));
  out["tempo"] = tempo_;
  out["steps"] = {{"count", steps_}, {"engine_events", step_engine_events_}};
  out["next_event_ms"] =
      cluster_->next_event_time() == Millis::max() ? -1 : cluster_->next_event_time().count();
  out["scene"] = scene_.active() ? nlohmann::json(scene_.name()) : nlohmann::json();
  out["scene_started"] = scene_.started();
  out["step"] = scene_.current();
  out["beats"] = scene_.beats();
  out["caption"] = scene_.caption();
  out["details"] = details_json();
  return out;
}

}  // namespace vigil::web
