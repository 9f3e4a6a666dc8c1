#pragma once

#include <imgui.h>

#include <algorithm>

#include "ui/layout_report.hpp"
#include "ui/screen.hpp"

namespace vigil::web {

namespace detail {
// What boxes filling the controls column (box_height) took beyond their least height this frame:
// the content's natural height leaves it out, or a frame sized to the content would grow it.
inline float g_fill_beyond_least = 0.0f;
}  // namespace detail

// The height for a scrolling box (a log) among the controls: `least_em` font heights when
// stacked; the rest of the column, and at least that, when side by side.
inline float box_height(float least_em) {
  const float least = ImGui::GetFontSize() * least_em;
  if (screen::narrow()) return least;
  const float height = std::max(least, ImGui::GetContentRegionAvail().y);
  detail::g_fill_beyond_least += height - least;
  return height;
}

// Where a demo puts its controls and its plots.
struct PanelShape {
  const char* id;
  float controls_em;     // the controls column's width when wide, in font heights...
  float controls_share;  // ...and at most this share of the panel's width
  float plots_em;        // the plots' height when stacked, and their least height when wide
};

// The controls column's width when side by side (0 when stacked), at the current cursor.
inline float controls_width(const PanelShape& shape) {
  if (screen::narrow()) return 0.0f;
  return std::min(ImGui::GetFontSize() * shape.controls_em,
                  ImGui::GetContentRegionAvail().x * shape.controls_share);
}

// Wide (screen::narrow() false): controls in a column on the left, plots filling the rest of
// the height. Narrow: plots first at a fixed height, then the controls under a header that
// folds them away (folded at first in an embedded demo), all in one column the page scrolls like
// text. Either way the layout reports the height its content needs, which the page gives the canvas
// or the embedding frame. `plots(height)` lays out plots filling `height` pixels (also the space
// left in its window).
template <typename Controls, typename Plots>
void panel_layout(const PanelShape& shape, Controls&& controls, Plots&& plots) {
  const float font = ImGui::GetFontSize();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float top = ImGui::GetCursorPosY();
  if (screen::narrow()) {
    ImGui::PushID(shape.id);
    const float height = shape.plots_em * font;
    // A child window of the plots' height, so that plots sizing themselves to the space left
    // find exactly that.
    ImGui::BeginChild("plots", ImVec2(0, height), false,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    plots(height);
    ImGui::EndChild();
    // Folded at first in a page that embeds the demo and on the front page, where a reader
    // sees the plots first (and a phone composites a shorter canvas).
    if (ImGui::CollapsingHeader("Controls", screen::embedded() || screen::front_page()
                                                ? 0
                                                : ImGuiTreeNodeFlags_DefaultOpen))
      controls();
    ImGui::PopID();
    layout::set_content_height(ImGui::GetCursorPosY() + style.WindowPadding.y);
    return;
  }
  const float width = controls_width(shape);
  ImGui::BeginChild(shape.id, ImVec2(width, 0), false);
  detail::g_fill_beyond_least = 0.0f;
  controls();
  const float controls_height = ImGui::GetCursorPosY() - detail::g_fill_beyond_least;
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::PushID(shape.id);
  ImGui::BeginChild("plots", ImVec2(0, 0), false);
  plots(ImGui::GetContentRegionAvail().y);
  ImGui::EndChild();
  ImGui::PopID();
  layout::set_content_height(top + std::max(controls_height, shape.plots_em * font) +
                             style.WindowPadding.y);
}

}  // namespace vigil::web
