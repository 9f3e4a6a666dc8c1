#include "app/app.hpp"

#include <emscripten.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>

#include "panels/fencing_panel.hpp"
#include "panels/gossip_panel.hpp"
#include "panels/live_panel.hpp"
#include "panels/phi_tail_panel.hpp"
#include "panels/retry_panel.hpp"
#include "panels/swim_panel.hpp"

namespace vigil::web {

namespace {
template <typename T>
std::unique_ptr<Panel> make(const UrlParams& p) {
  return std::make_unique<T>(p);
}
}  // namespace

App::App(UrlParams params) : params_(std::move(params)) {
  demos_.push_back({"phi", "Phi tails", make<PhiTailPanel>, nullptr});
  demos_.push_back({"gossip", "Gossip", make<GossipPanel>, nullptr});
  demos_.push_back({"swim", "SWIM cluster", make<SwimPanel>, nullptr});
  demos_.push_back({"retry", "Retry storms", make<RetryPanel>, nullptr});
  demos_.push_back({"live", "Live cluster", make<LivePanel>, nullptr});
  demos_.push_back({"fencing", "Fencing", make<FencingPanel>, nullptr});
  embed_ = params_.flag("embed");
  const std::string wanted = params_.text("demo").value_or("phi");
  for (std::size_t i = 0; i < demos_.size(); ++i)
    if (wanted == demos_[i].id) active_ = i;
}

Panel& App::active() {
  Demo& d = demos_[active_];
  if (!d.panel) d.panel = d.make(params_);
  return *d.panel;
}

bool App::animating() {
  // The first frames lay out the tab bar and size the plots.
  return frames_ < 3 || active().animating();
}

std::string App::query() {
  UrlParams p = params_;
  p.set("demo", demos_[active_].id);
  active().save(p);
  // The agents' token lets its holder inject faults: it never goes into an address, which the
  // page rewrites and reports to its host.
  p.erase("token");
  return p.query();
}

void App::frame(double real_ms) {
  ++frames_;
  Panel& panel = active();  // built on first view: construction is not simulation time
  const auto t0 = std::chrono::steady_clock::now();
  panel.advance(real_ms);
  advance_ms_total_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->WorkPos);
  ImGui::SetNextWindowSize(viewport->WorkSize);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("vigil", nullptr, flags);
  if (embed_) {
    active().draw();
  } else {
    ImGui::TextColored(ImVec4(0.65f, 0.75f, 1.0f, 1.0f), "vigil");
    ImGui::SameLine();
    ImGui::TextDisabled("is that node dead, or just slow?");
    ImGui::SameLine();
    // The explainer, which walks through every demo; a plain page next to this one.
    if (ImGui::SmallButton("read the explainer")) emscripten_run_script("window.location.href = 'explainer.html';");
    if (ImGui::BeginTabBar("demos")) {
      for (std::size_t i = 0; i < demos_.size(); ++i) {
        const ImGuiTabItemFlags tab_flags = (first_frame_ && i == active_) ? ImGuiTabItemFlags_SetSelected : 0;
        if (ImGui::BeginTabItem(demos_[i].title, nullptr, tab_flags)) {
          if (!first_frame_) active_ = i;
          if (i == active_) active().draw();
          ImGui::EndTabItem();
        }
      }
      ImGui::EndTabBar();
    }
  }
  ImGui::End();
  first_frame_ = false;
}

void App::record_frame_cost(double cost_ms, double ended_at_ms) {
  if (first_frame_at_ms_ == 0) first_frame_at_ms_ = ended_at_ms;
  if (recent_costs_.size() < kCostWindow) recent_costs_.push_back(cost_ms);
  else recent_costs_[next_cost_] = cost_ms;
  next_cost_ = (next_cost_ + 1) % kCostWindow;
}

nlohmann::json App::state() const {
  const Demo& d = demos_[active_];
  nlohmann::json s = d.panel ? d.panel->state() : nlohmann::json{{"demo", d.id}};
  s["frame"] = frames_;
  s["embed"] = embed_;
  std::vector<double> costs = recent_costs_;
  std::sort(costs.begin(), costs.end());
  const auto at = [&](double q) { return costs.empty() ? 0.0 : costs[static_cast<std::size_t>(q * (costs.size() - 1))]; };
  s["app_perf"] = {{"first_frame_at_ms", first_frame_at_ms_},
                   {"frame_cost_ms_median", at(0.5)},
                   {"frame_cost_ms_p95", at(0.95)},
                   {"frames_measured", costs.size()},
                   {"advance_ms_total", advance_ms_total_}};
  return s;
}

}  // namespace vigil::web
