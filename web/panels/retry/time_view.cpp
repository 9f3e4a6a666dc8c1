#include "panels/retry/time_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "panels/retry/retry_ui.hpp"
#include "scenes/retry_scene.hpp"
#include "ui/screen.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

using retry_ui::ms_since;

TimeView::TimeView(const UrlParams& p, bool open, const ParamSpec& speed)
    : playing_(p.flag("autoplay") && screen::autoplay_allowed()),
      speed_spec_(speed),
      speed_(open ? url_param(p, speed, speed.def) : speed.def) {}

void TimeView::open_at(const UrlParams& p, bool open) {
  if (!open) return;
  // &second=k opens the run k simulated seconds in, for pages that embed a moment.
  const int second = url_param(p, kSecond, static_cast<int>(kSecond.def));
  for (int i = 0; i < second && !finished(); ++i) step();
  if (p.text("scene").value_or("") == kOutageStormScene) start_scene();
}

void TimeView::start_scene() {
  scene_seconds_ = 0;
  carry_ = 0;
  playing_ = false;
  scene_ = make_scene();
}

void TimeView::begin_scene() {
  scene_.start();
  scene_.run_due(Millis{0});
  playing_ = true;
  carry_ = 0;
}

void TimeView::step() {
  const auto start = std::chrono::steady_clock::now();
  run_second();
  step_ms_ = ms_since(start);
  if (scene_shown() && scene_.started()) {
    ++scene_seconds_;
    scene_.run_due(Millis{static_cast<std::int64_t>(scene_seconds_) * 1000});
  }
}

void TimeView::play(double real_ms) {
  if (!playing_ || finished()) {
    playing_ = false;
    return;
  }
  carry_ += std::clamp(real_ms, 0.0, retry_ui::kMaxFrameMs) / 1000.0 * speed_;
  const int whole = static_cast<int>(std::floor(carry_));
  carry_ -= whole;
  const auto start = std::chrono::steady_clock::now();
  int ran = 0;
  while (ran < whole && !finished()) {
    step();
    ++ran;
    // step_ms_ is what the second just run cost: do not start one that would overrun.
    if (ms_since(start) + step_ms_ > retry_ui::kBudgetMs) break;
  }
  if (ran < whole) carry_ = 0;  // past the budget: play slower rather than stutter
  if (finished()) playing_ = false;
}

void TimeView::advance(double real_ms) {
  // A story holds at second 0 until the reader sees it.
  if (scene_shown() && !scene_.started()) {
    if (!screen::may_autostart()) return;
    begin_scene();
  }
  play(real_ms);
}

bool TimeView::animating() const {
  if (scene_shown() && !scene_.started()) return screen::may_autostart();  // the page wakes us
  return playing_ && !finished();
}

void TimeView::draw_header() {
  if (!scene_shown()) return;
  const SceneInput in = draw_scene_strip(scene_, playing_, "one simulated second", caption_room_);
  if (in.replay) {
    // A reader stepping through a paused story starts over paused; a told story plays again.
    const bool play = playing_ || scene_.finished() || !scene_.started();
    start_scene();
    if (screen::in_view()) begin_scene();
    playing_ = play;
  }
  if (in.step) {
    if (!scene_.started()) begin_scene();
    playing_ = false;
    if (!finished()) step();
  }
  if (in.toggle_play) {
    if (!scene_.started()) {
      begin_scene();
    } else if (finished()) {
      start_scene();  // nothing left to play: play the story again
      begin_scene();
    } else {
      playing_ = !playing_;
    }
    carry_ = playing_ ? 1.0 : 0.0;  // the first second at once
  }
}

void TimeView::draw_play_controls() {
  const bool done = finished();
  ImGui::BeginDisabled(done);
  if (key_button(playing_ ? "pause" : "play", Shortcut::kPlayPause, nullptr,
                 /*first_in_row=*/true)) {
    playing_ = !playing_;
    carry_ = playing_ ? 1.0 : 0.0;  // the first second at once
  }
  if (key_button("step 1 s", Shortcut::kStep)) step();
  ImGui::EndDisabled();
  if (key_button("restart", Shortcut::kReplay)) {
    if (scene_shown())
      start_scene();
    else
      restart();
  }
  if (row_button("new seed")) next_seed();
  param_slider(speed_spec_, &speed_);
  const int now = second(), total = seconds();
  char overlay[48];
  std::snprintf(overlay, sizeof overlay, "t = %d s of %d%s", now, total, done ? ", done" : "");
  ImGui::ProgressBar(total > 0 ? static_cast<float>(now) / static_cast<float>(total) : 0.0f,
                     ImVec2(-1, 0), overlay);
}

void TimeView::save_time(UrlParams& p, bool open) const {
  if (!open) return;
  save_param(p, speed_spec_, speed_);
  p.set_flag("autoplay", playing_);
  if (second() > 0) save_param(p, kSecond, static_cast<double>(second()));
}

void TimeView::state_time(nlohmann::json& view, nlohmann::json& s) const {
  view["second"] = second();
  view["seconds"] = seconds();
  view["finished"] = finished();
  view["playing"] = playing_;
  view["speed"] = speed_;
  view["step_ms"] = step_ms_;
  if (!scene_shown()) return;
  s["scene"] = scene_.name();
  s["step"] = scene_.current();
  s["beats"] = scene_.beats();
  s["caption"] = scene_.started() ? scene_.caption() : "";
  s["scene_started"] = scene_.started();
  s["scene_second"] = scene_seconds_;
}

}  // namespace vigil::web
