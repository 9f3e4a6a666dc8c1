#include "app/app.hpp"

#include <imgui.h>

namespace vigil::web {

App::App(const UrlParams& params) : phi_(params) {
  embed_ = params.flag("embed");
  if (auto d = params.text("demo")) demo_ = *d;
}

void App::frame(double real_ms) {
  ++frames_;
  phi_.advance(real_ms);

  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->WorkPos);
  ImGui::SetNextWindowSize(viewport->WorkSize);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("vigil", nullptr, flags);
  if (!embed_) {
    ImGui::TextColored(ImVec4(0.65f, 0.75f, 1.0f, 1.0f), "vigil");
    ImGui::SameLine();
    ImGui::TextDisabled(
        "is that node dead, or just slow?  |  phi accrual: how unusual is this silence?");
    ImGui::Separator();
  }
  phi_.draw();
  ImGui::End();
}

nlohmann::json App::state() const {
  nlohmann::json s = phi_.state();
  s["frame"] = frames_;
  s["embed"] = embed_;
  return s;
}

}  // namespace vigil::web
