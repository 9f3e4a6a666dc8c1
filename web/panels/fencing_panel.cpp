#include "panels/fencing_panel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <vigil/lab/fencing_report.hpp>
#include "panels/panel_layout.hpp"
#include "panels/param_ui.hpp"
#include "ui/plot.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

namespace {

using fencing::Action;
using fencing::Actor;
using fencing::Event;
using fencing::Outcome;
using fencing::Token;

// A tab in the background gets no frames; on return, play on rather than jump to the end.
constexpr double kMaxFrameMs = 250;

ImU32 old_color() {
  return plot::palette().blue;
}
ImU32 new_color() {
  return plot::palette().purple;
}
ImU32 accepted_color() {
  return plot::palette().green;
}
ImU32 rejected_color() {
  return plot::palette().red;
}
ImU32 issuer_color() {
  return plot::palette().yellow;
}
ImU32 frozen_color() {
  return plot::colors::with_alpha(plot::palette().grey, 70);
}
ImU32 ink() {
  return plot::palette().ink;
}

// Lanes from the top, in the order of fencing::Actor.
constexpr int kLanes = 4;
constexpr const char* kLaneNames[kLanes] = {"issuer", "old leader", "new leader", "resource"};
constexpr int kResourceLane = 3;
constexpr const char* kResourceTitle = "the resource";

namespace param = fencing::stale_leader_param;

// The page's own knob: how fast simulated time runs.
constexpr ParamSpec kSpeed{.flag = "speed",
                           .label = "speed (x)",
                           .help = "simulated ms per real ms",
                           .def = 0.5,
                           .min = 0,
                           .max = 10,
                           .min_open = true,
                           .view_min = 0.05,
                           .view_max = 4,
                           .digits = 2};

double lane_y(int lane) {
  return kLanes - lane - 0.5;
}

int lane_of(Actor actor) {
  return static_cast<int>(actor);
}

ImU32 actor_color(Actor actor) {
  switch (actor) {
    case Actor::old_leader:
      return old_color();
    case Actor::new_leader:
      return new_color();
    case Actor::issuer:
      return issuer_color();
    case Actor::resource:
      return plot::palette().grey;
  }
  return ink();
}

ImU32 outcome_color(Outcome outcome) {
  switch (outcome) {
    case Outcome::accepted:
    case Outcome::granted:
    case Outcome::raised:
      return accepted_color();
    case Outcome::rejected:
    case Outcome::refused:
    case Outcome::expired:
      return rejected_color();
    default:
      return ink();
  }
}

ImVec4 vec4(ImU32 c) {
  return ImGui::ColorConvertU32ToFloat4(c);
}

// on|off (also 1|0, true|false, yes|no); anything else keeps the fallback.
bool on_off(const UrlParams& p, const char* key, bool fallback) {
  const auto v = p.text(key);
  if (!v) return fallback;
  if (*v == "off" || *v == "0" || *v == "false" || *v == "no") return false;
  if (*v == "on" || *v == "1" || *v == "true" || *v == "yes" || v->empty()) return true;
  return fallback;
}

std::string format(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// An "x" mark centred on p.
void cross(ImDrawList* dl, ImVec2 p, float r, ImU32 color, float thickness = 2.5f) {
  dl->AddLine(ImVec2(p.x - r, p.y - r), ImVec2(p.x + r, p.y + r), color, thickness);
  dl->AddLine(ImVec2(p.x - r, p.y + r), ImVec2(p.x + r, p.y - r), color, thickness);
}

// Text centred horizontally on x with its middle at y, kept inside [lo, hi].
// With `backing`, on a dark box, for text that may cross lines.
// Where a label of width w centred on x starts, kept between lo and hi.
float label_left(float x, float w, float lo, float hi) {
  return std::clamp(x - w * 0.5f, lo, std::max(lo, hi - w));
}

void label(ImDrawList* dl, float x, float y, float lo, float hi, ImU32 color, const char* s,
           bool backing = false) {
  const ImVec2 size = ImGui::CalcTextSize(s);
  const float left = label_left(x, size.x, lo, hi);
  const ImVec2 at(left, y - size.y * 0.5f);
  if (backing)
    dl->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + size.x + 2, at.y + size.y),
                      plot::colors::with_alpha(plot::palette().area_bg, 220), 2.0f);
  plot::put_text(dl, at, color, s);
}

}  // namespace

FencingPanel::FencingPanel(const UrlParams& p) {
  lease_ms_ = url_param(p, param::lease, lease_ms_);
  pause_ms_ = url_param(p, param::pause, pause_ms_);
  interval_ms_ = url_param(p, param::interval, interval_ms_);
  old_writes_ = url_param(p, param::old_writes, old_writes_);
  token_ = url_param(p, param::token, token_);
  new_first_ = on_off(p, "newfirst", new_first_);
  fencing_ = on_off(p, "fencing", fencing_);
  participate_ = on_off(p, "participate", participate_);
  speed_ = url_param(p, kSpeed);
  playing_ = p.flag("autoplay") && screen::autoplay_allowed();
  compact_ = p.flag("embed");
  rerun();
  // &t=ms opens the run at that moment, for pages that embed a still.
  seek(p.number("t", 0, 0, 1e9));
}

void FencingPanel::save(UrlParams& p) const {
  save_param(p, param::lease, lease_ms_);
  save_param(p, param::pause, pause_ms_);
  save_param(p, param::interval, interval_ms_);
  save_param(p, param::old_writes, old_writes_);
  save_param(p, param::token, token_);
  p.set("newfirst", new_first_ ? "on" : "off");
  p.set("fencing", fencing_ ? "on" : "off");
  p.set("participate", participate_ ? "on" : "off");
  save_param(p, kSpeed, speed_);
  p.set_flag("autoplay", playing_);
  p.set("t", std::floor(sim_ms_));
}

fencing::StaleLeaderOptions FencingPanel::options() const {
  fencing::StaleLeaderOptions o;
  o.lease = Millis{lease_ms_};
  o.pause = Millis{pause_ms_};
  o.write_interval = Millis{interval_ms_};
  o.old_writes = old_writes_;
  o.old_token = static_cast<Token>(token_);
  o.new_leader_writes_first = new_first_;
  o.fencing = fencing_;
  o.resource_participates = participate_;
  return o;
}

void FencingPanel::rerun() {
  // A leader renews at every write, so it writes more often than its lease runs out.
  interval_ms_ = std::clamp(interval_ms_, 1, lease_ms_ - 1);
  const auto o = options();
  auto r = fencing::run_stale_leader(o);
  ok_ = r.ok();
  shown_ = logged_ = 0;
  sim_ms_ = 0;
  if (!ok_) {
    error_ = r.error().message;
    run_ = {};
    timeline_ = nlohmann::json::array();
    return;
  }
  error_.clear();
  run_ = std::move(r).value();
  // The rows exactly as `vigil lab fencing --format json` prints them.
  timeline_ = nlohmann::json::parse(
      lab::render(lab::stale_leader_report(run_, o), lab::Format::json))["timeline"];
  seek(0);
}

void FencingPanel::seek(double sim_ms) {
  if (!ok_) return;
  sim_ms_ = std::clamp(sim_ms, 0.0, static_cast<double>(run_.end.count()));
  shown_ = 0;
  while (shown_ < run_.events.size() &&
         static_cast<double>(run_.events[shown_].at.count()) <= sim_ms_)
    ++shown_;
}

void FencingPanel::step() {
  if (!ok_) return;
  if (shown_ < run_.events.size())
    seek(static_cast<double>(run_.events[shown_].at.count()));
  else
    seek(static_cast<double>(run_.end.count()));
}

const Event* FencingPanel::last_shown() const {
  return ok_ && shown_ > 0 ? &run_.events[shown_ - 1] : nullptr;
}

void FencingPanel::advance(double real_ms) {
  if (!playing_ || !ok_) return;
  seek(sim_ms_ + std::clamp(real_ms, 0.0, kMaxFrameMs) * speed_);
  if (done()) playing_ = false;
}

std::string FencingPanel::sentence(ImU32* color) const {
  ImU32 c = plot::palette().grey;
  std::string s;
  if (!ok_) {
    c = rejected_color();
    s = error_;
  } else if (wake_write_shown()) {
    s = run_.summary;
    if (run_.stale_write_rejected)
      c = accepted_color();  // the safety property held
    else if (run_.lost_update || (run_.stale_write && !fencing_))
      c = rejected_color();
    else if (run_.issued_not_seen)
      c = plot::palette().orange;
    else
      c = plot::palette().blue;
  } else if (const Event* e = last_shown()) {
    s = format("%lld ms, %s: ", static_cast<long long>(e->at.count()),
               fencing::actor_name(e->actor)) +
        e->detail;
  }
  if (color) *color = c;
  return s;
}

// ---------------------------------------------------------------------------------- frames

void FencingPanel::draw() {
  const float font = ImGui::GetFontSize();
  panel_layout(
      {"fencing", 19.0f, 0.36f, 30.0f}, [&] { draw_controls(); },
      [&](float plots_height) {
        const float sentence_top = ImGui::GetCursorPosY();
        draw_sentence();
        const float h = plots_height - (ImGui::GetCursorPosY() - sentence_top);
        const float gap = ImGui::GetStyle().ItemSpacing.y;
        if (!compact_ && h > font * 32.0f) {
          draw_lanes(h * 0.46f - gap);
          draw_resource(h * 0.27f - gap);
          draw_log(h * 0.27f - gap);
        } else {
          draw_lanes(h * 0.6f - gap);
          draw_resource(h * 0.4f - gap);
        }
      });
}

void FencingPanel::draw_controls() {
  const float label_width = ImGui::GetFontSize() * 7.0f;
  if (!compact_)
    ImGui::TextWrapped(
        "A detector's suspicion is no permission to write. The old leader holds a lease with "
        "fencing token %d, then freezes (a GC pause) for longer than the lease. The issuer hands "
        "token %d to a new leader. The old one wakes, still sure it leads, and sends its write. "
        "Only the resource can stop it: it keeps the highest token it has seen and refuses "
        "lower ones in the same step as the write.",
        token_, token_ + 1);
  section("Scenario");
  ImGui::PushItemWidth(-label_width);
  bool changed = false;
  changed |= param_slider(param::lease, &lease_ms_);
  changed |= param_slider(param::pause, &pause_ms_);
  // A leader writes more often than its lease runs out: the slider stops below the lease.
  ParamSpec interval = param::interval;
  interval.view_max = std::max(interval.view_min, std::min(interval.view_max, lease_ms_ - 1.0));
  changed |= param_slider(interval, &interval_ms_);
  ImGui::PopItemWidth();
  changed |= ImGui::Checkbox("fencing (resource checks tokens)", &fencing_);
  changed |= ImGui::Checkbox("resource takes part in hand-over", &participate_);
  changed |= ImGui::Checkbox("new leader writes before old wakes", &new_first_);
  if (changed) {
    // The same moment of the new run, so a toggle shows its effect at once.
    const double at = sim_ms_;
    rerun();
    seek(at);
  }

  section("Play");
  if (key_button(playing_ ? "pause" : "play", Shortcut::kPlayPause, nullptr,
                 /*first_in_row=*/true)) {
    if (done()) seek(0);
    playing_ = !playing_;
  }
  ImGui::BeginDisabled(done());
  if (key_button("step", Shortcut::kStep)) {
    playing_ = false;
    step();
  }
  ImGui::EndDisabled();
  if (key_button("restart", Shortcut::kReplay)) {
    seek(0);
    playing_ = true;
  }
  ImGui::PushItemWidth(-label_width);
  param_slider(kSpeed, &speed_);
  ImGui::PopItemWidth();
  if (!ok_) return;
  ImGui::Text("t = %.0f of %lld ms", sim_ms_, static_cast<long long>(run_.end.count()));

  section("Resource now");
  const Event* e = last_shown();
  std::size_t accepted = 0, rejected = 0;
  for (std::size_t i = 0; i < shown_; ++i) {
    accepted += run_.events[i].outcome == Outcome::accepted;
    rejected += run_.events[i].outcome == Outcome::rejected;
  }
  if (!e || e->highest == 0) {
    hint("no token seen, no value");
  } else {
    ImGui::Text("highest token seen: %llu", static_cast<unsigned long long>(e->highest));
    ImGui::Text("value: '%s' (token %llu)", e->stored.c_str(),
                static_cast<unsigned long long>(e->stored_token));
  }
  ImGui::TextColored(vec4(accepted_color()), "accepted %zu", accepted);
  ImGui::SameLine();
  ImGui::TextColored(vec4(rejected_color()), "rejected %zu", rejected);
  if (!fencing_) ImGui::TextColored(vec4(plot::palette().orange), "fencing off: tokens unchecked");
}

void FencingPanel::draw_sentence() {
  ImU32 color = 0;
  const std::string s = sentence(&color);
  ImGui::PushStyleColor(ImGuiCol_Text, vec4(color));
  ImGui::TextWrapped("%s", s.empty() ? " " : s.c_str());
  ImGui::PopStyleColor();
}

// Where the lanes are on screen this frame, and the sizes every lane's marks share.
struct FencingPanel::LaneView {
  ImDrawList* dl;
  double now;     // simulated ms
  float font;     // font size, px
  float lane_px;  // one lane's height
  float left;     // the plot's left edge (time 0)
  float right;    // the plot's right edge
  float dot;      // a write's radius
  bool sparse;    // writes far enough apart for a line each
  ImVec2 at(double t, int lane) const { return plot::to_screen(t, lane_y(lane)); }
};

// Write labels are skipped where they would touch the previous one on their lane, as drawn
// (clamped to the plot), or the stale write's, which is always drawn.
struct FencingPanel::WriteLabels {
  float last_right[kLanes] = {-1e9f, -1e9f, -1e9f, -1e9f};
  float stale_from = 1e9f;
  float stale_to = -1e9f;
};

void FencingPanel::draw_lanes(float height) {
  if (!ok_) return;
  const double end = static_cast<double>(run_.end.count());
  plot::Axis x{0, end + interval_ms_ * 0.6, "simulated time (ms)"};
  plot::Axis y{0, static_cast<double>(kLanes), ""};
  y.index_ticks = true;
  y.tick_names = kLaneNames;
  plot::Options options;
  options.legend = false;
  if (!plot::begin("lanes", ImVec2(-1, height), x, y, options)) return;
  LaneView v;
  v.dl = ImGui::GetWindowDrawList();
  v.now = sim_ms_;
  v.font = ImGui::GetFontSize();
  v.lane_px = std::abs(plot::to_screen(0, 1).y - plot::to_screen(0, 0).y);
  v.left = plot::to_screen(0, 0).x;
  v.right = plot::to_screen(x.max, 0).x;
  // Writes come every interval: with many to a pixel, smaller dots and no per-write lines.
  const float spacing = plot::to_screen(interval_ms_, 0).x - plot::to_screen(0, 0).x;
  v.dot =
      std::max(1.5f, std::min(std::clamp(v.lane_px * 0.16f, 3.0f, v.font * 0.38f), spacing * 0.4f));
  v.sparse = spacing > v.font * 0.5f;
  for (int i = 1; i < kLanes; ++i) plot::hline("", i, plot::palette().grid, 1.0f);

  draw_leases(v);
  draw_leader_lives(v);
  draw_highest_token(v);
  draw_lane_events(v);
  plot::vline("", v.now, plot::colors::with_alpha(plot::palette().yellow, 170), 1.0f);
  if (plot::hovered()) draw_lane_tooltip(v);
  plot::end();
}

// Leases on the issuer lane, as known now: held up to now, the rest of the term faint.
void FencingPanel::draw_leases(const LaneView& v) const {
  struct Term {
    Token token;
    Actor holder;
    double from, until;
  };
  std::vector<Term> terms;
  for (std::size_t i = 0; i < shown_; ++i) {
    const Event& e = run_.events[i];
    const double t = static_cast<double>(e.at.count());
    if (e.action == Action::grant) {
      terms.push_back({e.token, e.token == run_.old_token ? Actor::old_leader : Actor::new_leader,
                       t, t + lease_ms_});
    } else if (e.action == Action::renew && e.outcome == Outcome::renewed) {
      for (auto& term : terms)
        if (term.token == e.token) term.until = t + lease_ms_;
    }
  }
  const float bar = v.lane_px * 0.26f;
  for (const auto& term : terms) {
    const ImU32 c = actor_color(term.holder);
    const ImVec2 a = v.at(term.from, 0), held = v.at(std::min(term.until, v.now), 0),
                 b = v.at(term.until, 0);
    v.dl->AddRectFilled(ImVec2(a.x, a.y - bar), ImVec2(std::max(a.x + 1, held.x), a.y + bar),
                        plot::colors::with_alpha(c, 150));
    if (term.until > v.now)
      v.dl->AddRectFilled(ImVec2(held.x, a.y - bar), ImVec2(b.x, a.y + bar),
                          plot::colors::with_alpha(c, 45));
    // "lease 41" where it fits, else "41", else nothing.
    const float room = b.x - a.x - v.font * 0.9f;
    std::string name = format("lease %llu", static_cast<unsigned long long>(term.token));
    if (ImGui::CalcTextSize(name.c_str()).x > room) name = name.substr(6);
    if (ImGui::CalcTextSize(name.c_str()).x <= room)
      plot::put_text(v.dl, ImVec2(a.x + v.font * 0.7f, a.y - v.font * 0.5f), ink(), name.c_str());
  }
}

// The leaders' lives: leading, frozen, leading again (in its own mind), stepped down.
void FencingPanel::draw_leader_lives(const LaneView& v) const {
  double pause_at = -1, wake_at = -1, stepped_down = -1;
  for (std::size_t i = 0; i < shown_; ++i) {
    const Event& e = run_.events[i];
    const double t = static_cast<double>(e.at.count());
    if (e.action == Action::pause) {
      pause_at = t;
    } else if (e.action == Action::wake) {
      wake_at = t;
    } else if (e.action == Action::step_down) {
      stepped_down = t;
    }
  }
  const double now = v.now;
  const float life = std::max(2.0f, v.lane_px * 0.06f);
  auto life_line = [&](int lane, double from, double to, ImU32 c) {
    if (to <= from) return;
    v.dl->AddLine(v.at(from, lane), v.at(to, lane), plot::colors::with_alpha(c, 140), life);
  };
  const double old_until = stepped_down >= 0 ? stepped_down : now;
  if (pause_at >= 0) {
    life_line(1, 0, pause_at, old_color());
    const double frozen_to = wake_at >= 0 ? wake_at : now;
    const ImVec2 a = v.at(pause_at, 1), b = v.at(frozen_to, 1);
    v.dl->AddRectFilled(ImVec2(a.x, a.y - v.lane_px * 0.42f), ImVec2(b.x, b.y + v.lane_px * 0.42f),
                        frozen_color());
    const char* text = wake_at >= 0 ? "frozen (GC pause)" : "frozen (GC pause)...";
    // The write the old leader makes on waking is labelled centred on the band's right end, at
    // the same height on a narrow lane: the caption needs half that label's width more room.
    float room = ImGui::CalcTextSize(text).x + 8;
    if (wake_at >= 0 && run_.wake_write < run_.events.size())
      room += ImGui::CalcTextSize(run_.events[run_.wake_write].value.c_str()).x * 0.5f + 4;
    if (b.x - a.x > room)
      plot::put_text(v.dl, ImVec2(a.x + 4, a.y - v.lane_px * 0.42f + 1), plot::palette().ink, text);
    if (wake_at >= 0) life_line(1, wake_at, old_until, old_color());
  } else {
    life_line(1, 0, now, old_color());
  }
  if (run_.handover && now >= static_cast<double>(run_.handover_at.count()))
    life_line(2, static_cast<double>(run_.handover_at.count()), now, new_color());
}

// The highest token the resource has seen, as a band on its lane.
void FencingPanel::draw_highest_token(const LaneView& v) const {
  Token highest = 0;
  double since = 0;
  auto band = [&](double to) {
    if (highest == 0 || to <= since) return;
    const ImU32 c = highest == run_.old_token ? old_color() : new_color();
    const ImVec2 a = v.at(since, kResourceLane), b = v.at(to, kResourceLane);
    v.dl->AddRectFilled(ImVec2(a.x, a.y - v.lane_px * 0.42f), ImVec2(b.x, b.y + v.lane_px * 0.42f),
                        plot::colors::with_alpha(c, 40));
    const std::string s = format("highest %llu", static_cast<unsigned long long>(highest));
    if (b.x - a.x > ImGui::CalcTextSize(s.c_str()).x + 8)
      plot::put_text(v.dl, ImVec2(a.x + 4, a.y - v.lane_px * 0.42f + 1),
                     plot::colors::with_alpha(c, 230), s.c_str());
  };
  for (std::size_t i = 0; i < shown_; ++i) {
    const Event& e = run_.events[i];
    if (e.highest != highest) {
      band(static_cast<double>(e.at.count()));
      highest = e.highest;
      since = static_cast<double>(e.at.count());
    }
  }
  band(v.now);
}

// Events: writes travel down to the resource, renewals tick, refusals cross.
void FencingPanel::draw_lane_events(const LaneView& v) const {
  WriteLabels labels;
  if (run_.stale_write && run_.wake_write < shown_) {
    const Event& e = run_.events[run_.wake_write];
    const float w = ImGui::CalcTextSize(e.value.c_str()).x;
    labels.stale_from =
        label_left(v.at(static_cast<double>(e.at.count()), lane_of(e.actor)).x, w, v.left, v.right);
    labels.stale_to = labels.stale_from + w;
  }
  ImDrawList* dl = v.dl;
  const float dot = v.dot, font = v.font;
  for (std::size_t i = 0; i < shown_; ++i) {
    const Event& e = run_.events[i];
    const double t = static_cast<double>(e.at.count());
    const ImVec2 p = v.at(t, lane_of(e.actor));
    switch (e.action) {
      case Action::write:
        draw_write(v, i, labels);
        break;
      case Action::renew: {
        const float r = v.lane_px * 0.22f;
        if (e.outcome == Outcome::renewed && !v.sparse) break;
        if (e.outcome == Outcome::renewed)
          dl->AddLine(ImVec2(p.x, p.y - r), ImVec2(p.x, p.y + r),
                      plot::colors::with_alpha(actor_color(e.actor), 200), 1.5f);
        else
          cross(dl, p, dot, rejected_color());
        break;
      }
      case Action::fence: {
        const ImVec2 from = v.at(t, 0), to = v.at(t, kResourceLane);
        dl->AddLine(from, to, plot::colors::with_alpha(issuer_color(), 160), 2.0f);
        const float d = dot * 1.3f;
        dl->AddQuadFilled(ImVec2(to.x, to.y - d), ImVec2(to.x + d, to.y), ImVec2(to.x, to.y + d),
                          ImVec2(to.x - d, to.y), issuer_color());
        label(dl, to.x, to.y + d + font * 0.5f, v.left, v.right, issuer_color(), "fence");
        break;
      }
      case Action::expire:
        cross(dl, p, dot * 0.8f, rejected_color(), 2.0f);
        break;
      case Action::step_down: {
        const char* s = "steps down";
        // After the cross, on the line it ends, when there is room (the log and tooltip tell
        // it otherwise).
        if (p.x + dot + 4 + ImGui::CalcTextSize(s).x <= v.right)
          plot::put_text(dl, ImVec2(p.x + dot + 4, p.y - font * 0.5f), ink(), s);
        break;
      }
      case Action::wake:
        dl->AddTriangleFilled(ImVec2(p.x, p.y - dot), ImVec2(p.x + dot * 1.4f, p.y),
                              ImVec2(p.x, p.y + dot), old_color());
        break;
      case Action::grant:
      case Action::pause:
        break;
    }
  }
}

// One write: its dot on the writer's lane, and where it lands on the resource (a dot if
// accepted, a cross if rejected), joined by a line when the writes are sparse or this one matters.
void FencingPanel::draw_write(const LaneView& v, std::size_t i, WriteLabels& labels) const {
  const Event& e = run_.events[i];
  const double t = static_cast<double>(e.at.count());
  const int lane = lane_of(e.actor);
  const ImVec2 p = v.at(t, lane);
  const bool ok = e.outcome == Outcome::accepted;
  const bool stale = i == run_.wake_write && run_.stale_write;
  // A stale write that lands is the failure this demo is about: orange, not green.
  const ImU32 c = !ok ? rejected_color() : stale ? plot::palette().orange : accepted_color();
  const ImVec2 r = v.at(t, kResourceLane);
  if (v.sparse || !ok || stale)
    v.dl->AddLine(p, r, plot::colors::with_alpha(c, ok && !stale ? 90 : 220),
                  ok && !stale ? 1.5f : 2.5f);
  v.dl->AddCircleFilled(p, v.dot, actor_color(e.actor));
  v.dl->AddCircle(p, v.dot, c, 0, 2.0f);
  if (ok)
    v.dl->AddCircleFilled(r, v.dot * 0.8f, c);
  else
    cross(v.dl, r, v.dot, c);
  // Values above their dots when there is room; the stale write's always.
  const float w = ImGui::CalcTextSize(e.value.c_str()).x;
  const float from = label_left(p.x, w, v.left, v.right);
  const bool clear = from > labels.last_right[lane] + 6 &&
                     (lane != lane_of(Actor::old_leader) || from + w + 6 < labels.stale_from ||
                      from > labels.stale_to + 6);
  if (stale || clear) {
    label(v.dl, p.x, p.y - v.dot - v.font * 0.55f, v.left, v.right, stale ? c : ink(),
          e.value.c_str());
    labels.last_right[lane] = from + w;
  }
}

// Hover: the event nearest the mouse on the lane under it.
void FencingPanel::draw_lane_tooltip(const LaneView& v) const {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const float top = plot::to_screen(0, kLanes).y, bottom = plot::to_screen(0, 0).y;
  const int lane =
      std::clamp(static_cast<int>((mouse.y - top) / (bottom - top) * kLanes), 0, kLanes - 1);
  const Event* best = nullptr;
  float best_px = v.font * 0.8f;
  for (std::size_t i = 0; i < shown_; ++i) {
    const Event& e = run_.events[i];
    const bool here = lane == kResourceLane
                          ? (e.action == Action::write || e.action == Action::fence)
                          : lane_of(e.actor) == lane;
    const float d = std::abs(plot::to_screen(static_cast<double>(e.at.count()), 0).x - mouse.x);
    if (here && d <= best_px) {
      best = &e;
      best_px = d;
    }
  }
  if (!best) return;
  ImGui::BeginTooltip();
  ImGui::TextColored(vec4(actor_color(best->actor)), "%lld ms, %s",
                     static_cast<long long>(best->at.count()), fencing::actor_name(best->actor));
  ImGui::PushTextWrapPos(v.font * 28.0f);
  ImGui::TextColored(vec4(outcome_color(best->outcome)), "%s", best->detail.c_str());
  ImGui::PopTextWrapPos();
  if (best->highest)
    hint("resource after: highest %llu, value '%s'", static_cast<unsigned long long>(best->highest),
         best->stored.c_str());
  ImGui::EndTooltip();
}

void FencingPanel::draw_resource(float height) {
  if (!ok_) return;
  const double end = static_cast<double>(run_.end.count());
  const double now = sim_ms_;
  const Token n = run_.old_token;
  const std::string old_name = format("token %llu", static_cast<unsigned long long>(n));
  const std::string new_name = format("token %llu", static_cast<unsigned long long>(n + 1));
  // Rows from the top: the new token, the old one, none.
  const char* names[] = {new_name.c_str(), old_name.c_str(), "none"};
  auto level = [&](Token t) { return t == 0 ? 0.5 : t == n ? 1.5 : 2.5; };
  plot::Axis x{0, end + interval_ms_ * 0.6, "simulated time (ms)"};
  plot::Axis y{0, 3, kResourceTitle};
  y.index_ticks = true;
  y.tick_names = names;
  plot::Options options;
  options.legend = false;
  if (!plot::begin("resource", ImVec2(-1, height), x, y, options)) return;
  // The plot's frame (its invisible button), before any tooltip can change the last item.
  const ImVec2 frame_min = ImGui::GetItemRectMin(), frame_max = ImGui::GetItemRectMax();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float font = ImGui::GetFontSize();
  const float left = plot::to_screen(0, 0).x, right = plot::to_screen(x.max, 0).x;
  for (double row : {1.0, 2.0}) plot::hline("", row, plot::palette().grid, 1.0f);

  // Step lines up to now, drawn a little apart so both show where they agree. Each series gets
  // points only where it changes: repeated points make ImGui's thick polylines spike.
  struct Steps {
    std::vector<double> xs{0}, ys;
    void to(double t, double y) {
      if (y == ys.back()) return;
      xs.push_back(t);
      ys.push_back(ys.back());
      xs.push_back(t);
      ys.push_back(y);
    }
    void finish(double t) {
      xs.push_back(t);
      ys.push_back(ys.back());
    }
  };
  Steps highest{{0}, {level(0) + 0.07}}, stored{{0}, {level(0) - 0.07}};
  for (std::size_t i = 0; i < shown_; ++i) {
    const Event& e = run_.events[i];
    const double t = static_cast<double>(e.at.count());
    highest.to(t, level(e.highest) + 0.07);
    stored.to(t, level(e.stored_token) - 0.07);
    // An accepted write below the highest token seen (fencing off): the value it replaced, the
    // newer holder's, is lost until that holder writes again.
    if (i > 0 && e.action == Action::write && e.outcome == Outcome::accepted &&
        e.token < e.highest) {
      double until = now;
      for (std::size_t k = i + 1; k < shown_; ++k)
        if (run_.events[k].stored_token >= run_.events[k].highest) {
          until = static_cast<double>(run_.events[k].at.count());
          break;
        }
      plot::rect(t, 0, until, 3, plot::colors::with_alpha(rejected_color(), 45));
      const ImVec2 p = plot::to_screen(t, 2.9);
      const std::string s =
          format("'%s' overwrote '%s'", e.value.c_str(), run_.events[i - 1].stored.c_str());
      const float w = ImGui::CalcTextSize(s.c_str()).x;
      label(dl, p.x + w * 0.5f + 4, p.y + font * 0.5f, left, right, rejected_color(), s.c_str(),
            true);
    }
  }
  highest.finish(now);
  stored.finish(now);
  // A caveat of fencing: between the grant and the first request carrying it, the new token
  // exists only at the issuer and fences nothing.
  if (run_.handover && now >= static_cast<double>(run_.handover_at.count())) {
    const double granted = static_cast<double>(run_.handover_at.count());
    double seen = now;
    for (std::size_t i = 0; i < shown_; ++i)
      if (run_.events[i].highest >= run_.new_token) {
        seen = static_cast<double>(run_.events[i].at.count());
        break;
      }
    if (seen > granted) {
      const double y = level(run_.new_token);
      plot::rect(granted, y - 0.13, seen, y + 0.13,
                 plot::colors::with_alpha(plot::palette().orange, 70));
      const std::string s =
          format("%llu issued, not yet seen", static_cast<unsigned long long>(run_.new_token));
      const ImVec2 a = plot::to_screen(granted, y), b = plot::to_screen(seen, y);
      const float w = ImGui::CalcTextSize(s.c_str()).x;
      if (b.x - a.x > w + 8)
        plot::put_text(dl, ImVec2(a.x + 4, a.y - font * 0.5f), plot::palette().orange, s.c_str());
    }
  }
  plot::line("", highest.xs, highest.ys, plot::palette().yellow, 2.5f);
  plot::line("", stored.xs, stored.ys, accepted_color(), 2.0f);
  const float dot = font * 0.3f;
  for (std::size_t i = 0; i < shown_; ++i) {
    const Event& e = run_.events[i];
    if (e.action != Action::write || e.outcome != Outcome::rejected) continue;
    const ImVec2 p = plot::to_screen(static_cast<double>(e.at.count()), level(e.token));
    cross(dl, p, dot, rejected_color());
    const std::string s = format("'%s' rejected", e.value.c_str());
    const float w = ImGui::CalcTextSize(s.c_str()).x;
    // To the right of the cross, or to its left near the end of the axis.
    const float side = p.x + dot + 4 + w <= right ? 1.0f : -1.0f;
    label(dl, p.x + side * (dot + 4 + w * 0.5f), p.y, left, right, rejected_color(), s.c_str(),
          true);
  }
  plot::vline("", now, plot::colors::with_alpha(plot::palette().yellow, 170), 1.0f);

  // Hover: the resource at the time under the mouse.
  if (plot::hovered()) {
    const double t = plot::mouse_x();
    const Event* e = nullptr;
    for (std::size_t i = 0; i < shown_ && static_cast<double>(run_.events[i].at.count()) <= t; ++i)
      e = &run_.events[i];
    ImGui::BeginTooltip();
    ImGui::Text("%.0f ms", t);
    if (t > now)
      hint("not played yet");
    else if (!e || e->highest == 0)
      hint("no token seen yet");
    else {
      ImGui::TextColored(vec4(plot::palette().yellow), "highest token seen: %llu",
                         static_cast<unsigned long long>(e->highest));
      ImGui::TextColored(vec4(accepted_color()), "value '%s', written with %llu", e->stored.c_str(),
                         static_cast<unsigned long long>(e->stored_token));
    }
    ImGui::EndTooltip();
  }
  plot::end();

  // The key, right-aligned in the title row.
  const char* k1 = "highest seen";
  const char* k2 = "stored value's token";
  const float w1 = ImGui::CalcTextSize(k1).x, w2 = ImGui::CalcTextSize(k2).x;
  const float swatch = font * 1.1f;
  const float y0 = frame_min.y + font * 0.15f;
  float xk = frame_max.x - font * 0.8f - (w1 + w2 + 2 * swatch + font * 1.2f);
  auto key = [&](const char* s, float w, ImU32 c) {
    dl->AddLine(ImVec2(xk, y0 + font * 0.55f), ImVec2(xk + swatch * 0.8f, y0 + font * 0.55f), c,
                2.5f);
    plot::put_text(dl, ImVec2(xk + swatch, y0), ink(), s);
    xk += swatch + w + font * 1.2f;
  };
  const float title_w = ImGui::CalcTextSize(kResourceTitle).x;
  if (xk > frame_min.x + title_w + font * 1.5f) {
    key(k1, w1, plot::palette().yellow);
    key(k2, w2, accepted_color());
  }
}

void FencingPanel::draw_log(float height) {
  if (!ok_) return;
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersOuter | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("fencing-log", 3, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("t (ms)");
  ImGui::TableSetupColumn("who");
  ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(shown_));
  while (clipper.Step()) {
    for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
      const Event& e = run_.events[static_cast<std::size_t>(row)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(e.at.count()));
      ImGui::TableNextColumn();
      ImGui::TextColored(vec4(actor_color(e.actor)), "%s", fencing::actor_name(e.actor));
      ImGui::TableNextColumn();
      const bool landed_stale = static_cast<std::size_t>(row) == run_.wake_write &&
                                run_.stale_write && e.outcome == Outcome::accepted;
      ImGui::TextColored(vec4(landed_stale ? plot::palette().orange : outcome_color(e.outcome)),
                         "%s", e.detail.c_str());
    }
  }
  if (shown_ != logged_) {
    ImGui::SetScrollHereY(1.0f);
    logged_ = shown_;
  }
  ImGui::EndTable();
}

// ---------------------------------------------------------------------------------- state

nlohmann::json FencingPanel::state() const {
  nlohmann::json events = nlohmann::json::array();
  for (std::size_t i = 0; i < shown_ && i < timeline_.size(); ++i) events.push_back(timeline_[i]);
  std::size_t accepted = 0, rejected = 0;
  for (std::size_t i = 0; i < shown_; ++i) {
    accepted += run_.events[i].outcome == Outcome::accepted;
    rejected += run_.events[i].outcome == Outcome::rejected;
  }
  const Event* last = last_shown();
  const bool revealed = wake_write_shown();
  return {
      {"demo", "fencing"},
      {"sim_ms", sim_ms_},
      {"end_ms", ok_ ? run_.end.count() : 0},
      {"done", done()},
      {"playing", playing_},
      {"speed", speed_},
      {"lease", lease_ms_},
      {"pause", pause_ms_},
      {"interval", interval_ms_},
      {"old_writes", old_writes_},
      {"token", token_},
      {"new_first", new_first_},
      {"fencing", fencing_},
      {"participate", participate_},
      {"events", std::move(events)},
      {"events_total", run_.events.size()},
      {"accepted", accepted},
      {"rejected", rejected},
      {"highest", last ? last->highest : 0},
      {"value", last ? last->stored : ""},
      {"value_token", last ? last->stored_token : 0},
      {"old_token", run_.old_token},
      {"new_token", run_.new_token},
      {"handover",
       ok_ && run_.handover && sim_ms_ >= static_cast<double>(run_.handover_at.count())},
      {"stale_write", revealed && run_.stale_write},
      {"stale_write_rejected", revealed && run_.stale_write_rejected},
      {"lost_update", revealed && run_.lost_update},
      {"issued_not_seen", revealed && run_.issued_not_seen},
      {"sentence", sentence()},
      {"error", error_},
  };
}

}  // namespace vigil::web
