#include "panels/retry_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>

#include "panels/panel_layout.hpp"
#include "panels/retry/chain_view.hpp"
#include "panels/retry/fleet_view.hpp"
#include "panels/retry/hysteresis_view.hpp"
#include "panels/retry/retry_ui.hpp"
#include "panels/retry/server_view.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

namespace {

// In the order of the radio buttons.
constexpr const char* kViewNames[] = {"hysteresis", "chain", "fleet", "server"};
constexpr const char* kViewTitles[] = {"Hysteresis loop", "Chain amplification", "Client fleet",
                                       "Metastable server"};

}  // namespace

RetryPanel::RetryPanel(const UrlParams& p) {
  const std::string view = p.text("view").value_or(kViewNames[0]);
  for (std::size_t i = 0; i < kViews; ++i)
    if (view == kViewNames[i]) open_ = i;
  views_[0] = std::make_unique<HysteresisView>(p, open_ == 0);
  views_[1] = std::make_unique<ChainView>(p, open_ == 1);
  views_[2] = std::make_unique<FleetView>(p, open_ == 2);
  views_[3] = std::make_unique<ServerView>(p, open_ == 3);
}

void RetryPanel::advance(double real_ms) {
  const auto start = std::chrono::steady_clock::now();
  views_[open_]->advance(real_ms);
  advance_ms_ = retry_ui::ms_since(start);
  advance_ms_max_ = std::max(advance_ms_max_, advance_ms_);
}

void RetryPanel::draw() {
  const auto start = std::chrono::steady_clock::now();
  draw_view_selector();
  RetryView& view = *views_[open_];
  view.draw_header();
  const float label_width = ImGui::GetFontSize() * 8.0f;
  // The view's controls and its plots, which size themselves to the space left in their window.
  const auto controls = [&] {
    ImGui::PushItemWidth(-label_width);
    view.draw_controls();
    ImGui::PopItemWidth();
  };
  const auto plots = [&](float) { view.draw_plots(); };
  panel_layout({"retry", 21.0f, 0.36f, view.plots_em()}, controls, plots);
  draw_ms_ = retry_ui::ms_since(start);
}

void RetryPanel::draw_view_selector() {
  int chosen = static_cast<int>(open_);
  for (int i = 0; i < static_cast<int>(kViews); ++i) {
    if (i > 0)
      row_radio(kViewTitles[i], &chosen, i);
    else
      ImGui::RadioButton(kViewTitles[i], &chosen, i);
  }
  if (chosen != static_cast<int>(open_)) {
    open_ = static_cast<std::size_t>(chosen);
    views_[open_]->opened();
    advance_ms_max_ = 0;
  }
}

void RetryPanel::save(UrlParams& p) const {
  p.set("view", kViewNames[open_]);
  // Keys several views share mean the open view's value, as the constructors read them.
  for (const char* key : {"timeout", "capacity", "tries", "seconds", "seed", "speed", "second"})
    p.erase(key);
  p.erase("autoplay");
  for (std::size_t i = 0; i < kViews; ++i) views_[i]->save(p, i == open_);
  // Aliases the constructors also accept would shadow nothing, but would confuse a reader.
  for (const char* key : {"mu", "retries", "p", "mitigation"}) p.erase(key);
}

nlohmann::json RetryPanel::state() const {
  nlohmann::json s = {
      {"demo", "retry"},
      {"view", kViewNames[open_]},
      {"perf",
       {{"advance_ms", advance_ms_}, {"advance_ms_max", advance_ms_max_}, {"draw_ms", draw_ms_}}},
      // A story's fields, which a time view telling one overrides.
      {"scene", nullptr},
      {"step", 0},
      {"beats", 0},
      {"caption", ""},
      {"scene_started", false},
      {"scene_second", 0}};
  views_[open_]->state(s);
  return s;
}

}  // namespace vigil::web
