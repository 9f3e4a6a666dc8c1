#pragma once

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstdarg>
#include <vector>

#include "ui/palette.hpp"
#include "ui/screen.hpp"
#include "ui/shortcuts.hpp"

namespace vigil::web {

// Small ImGui helpers every panel uses.
inline void section(const char* title) {
  ImGui::Spacing();
  ImGui::TextColored(plot::to_vec4(plot::palette().accent), "%s", title);
  ImGui::Separator();
}

// Secondary text in the disabled colour, wrapped to its column so that a narrow screen never
// cuts it off.
inline void hint(const char* fmt, ...) IM_FMTARGS(1);
inline void hint(const char* fmt, ...) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  va_list args;
  va_start(args, fmt);
  ImGui::TextWrappedV(fmt, args);
  va_end(args);
  ImGui::PopStyleColor();
}

inline bool slider(const char* label, double* v, double lo, double hi, const char* fmt) {
  return ImGui::SliderScalar(label, ImGuiDataType_Double, v, &lo, &hi, fmt,
                             ImGuiSliderFlags_AlwaysClamp);
}

// No control is narrower than this (CSS pixels): a fingertip's width and then some.
inline constexpr float kMinControlCss = 80.0f;

inline float button_width(const char* label) {
  const float text =
      ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
  return std::max(kMinControlCss * screen::dpr(), text);
}

inline float toggle_width(const char* label) {  // a checkbox or radio button with its label
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
         ImGui::CalcTextSize(label, nullptr, true).x;
}

// Whether a table fits the width left with each column as wide as its widest cell, heading
// included (`widths`, in pixels): else a panel lays its rows out as lines, since a narrower column
// would cut its text.
inline bool columns_fit(const std::vector<float>& widths) {
  float needed = 0;
  for (float w : widths) needed += w + ImGui::GetStyle().CellPadding.x * 2.0f;
  return needed <= ImGui::GetContentRegionAvail().x;
}

// Keeps the next widget on the current row if `width` more pixels fit there, else it starts
// a new row: rows of buttons wrap on a narrow screen instead of running off its edge.
inline void same_line_if_fits(float width) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width <= right)
    ImGui::SameLine();
}

inline bool button(const char* label) {
  return ImGui::Button(label, ImVec2(button_width(label), 0));
}

// The widgets after the first of a row: each continues the row if it fits.
inline bool row_button(const char* label) {
  same_line_if_fits(button_width(label));
  return button(label);
}
inline bool row_checkbox(const char* label, bool* v) {
  same_line_if_fits(toggle_width(label));
  return ImGui::Checkbox(label, v);
}
inline bool row_radio(const char* label, int* v, int value) {
  same_line_if_fits(toggle_width(label));
  return ImGui::RadioButton(label, v, value);
}

inline const char* key_name(Shortcut s) {
  switch (s) {
    case Shortcut::kPlayPause:
      return "Space";
    case Shortcut::kStep:
      return ".";
    case Shortcut::kReplay:
      return "r";
    case Shortcut::kHelp:
      return "?";
  }
  return "";
}

// A button that a key presses too (ui/shortcuts.hpp); its tooltip says which, after `tip`.
// A disabled button does not offer its key, which then keeps its meaning in the page.
inline bool key_button(const char* label, Shortcut key, const char* tip = nullptr,
                       bool first_in_row = false) {
  const bool clicked = first_in_row ? button(label) : row_button(label);
  if (ImGui::IsItemHovered()) {
    if (tip)
      ImGui::SetTooltip("%s (key: %s)", tip, key_name(key));
    else
      ImGui::SetTooltip("key: %s", key_name(key));
  }
  const bool enabled = (GImGui->CurrentItemFlags & ImGuiItemFlags_Disabled) == 0;
  const bool typed = enabled && take_shortcut(key);
  return clicked || typed;
}

}  // namespace vigil::web
