#include "ui/ui_style.hpp"

#include <imgui.h>

#include "ui/palette.hpp"

namespace vigil::web {

namespace {

// ImGui's own light and dark styles, with the window behind the demo in the palette's colour
// so that the canvas and the page around it meet without a seam.
void set_colors(bool dark) {
  ImGuiStyle& s = ImGui::GetStyle();
  if (dark)
    ImGui::StyleColorsDark(&s);
  else
    ImGui::StyleColorsLight(&s);
  const ImVec4 bg = plot::to_vec4(plot::palette().window_bg);
  s.Colors[ImGuiCol_WindowBg] = bg;
  s.Colors[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
  if (!dark) {
    // ImGui's light frames are white on near-white: give sliders and fields an edge.
    s.Colors[ImGuiCol_FrameBg] = ImVec4(0.87f, 0.88f, 0.90f, 1.0f);
    s.Colors[ImGuiCol_Border] = ImVec4(0.0f, 0.0f, 0.0f, 0.25f);
  }
}

}  // namespace

void apply_ui_style(const UiStyle& style) {
  plot::use_palette(style.dark);
  ImGuiStyle& s = ImGui::GetStyle();
  s = ImGuiStyle();
  set_colors(style.dark);
  s.FrameRounding = 3.0f;
  if (style.touch) {
    // A fingertip covers about 9 mm, and touch guidance asks for targets 44 CSS px tall or more:
    // with the 15 px font, 14.5 px above and below makes 44. More room between rows and wider
    // slider grabs make each widget a target a thumb can hit on the first try.
    s.FramePadding = ImVec2(8.0f, 14.5f);
    s.ItemSpacing = ImVec2(10.0f, 9.0f);
    s.ItemInnerSpacing = ImVec2(8.0f, 6.0f);
    s.GrabMinSize = 22.0f;
    s.ScrollbarSize = 18.0f;
    s.TouchExtraPadding = ImVec2(2.0f, 2.0f);
  }
  s.ScaleAllSizes(style.dpr);
}

}  // namespace vigil::web
