#include "app/app.hpp"

#include <imgui.h>

#include "panels/gossip_panel.hpp"
#include "panels/live_panel.hpp"
#include "panels/phi_tail_panel.hpp"
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
  demos_.push_back({"live", "Live cluster", make<LivePanel>, nullptr});
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

void App::frame(double real_ms) {
  ++frames_;
  active().advance(real_ms);

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

nlohmann::json App::state() const {
  const Demo& d = demos_[active_];
  nlohmann::json s = d.panel ? d.panel->state() : nlohmann::json{{"demo", d.id}};
  s["frame"] = frames_;
  s["embed"] = embed_;
  return s;
}

}  // namespace vigil::web
