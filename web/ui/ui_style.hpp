#pragma once

namespace vigil::web {

// How the UI looks and how large its targets are.
struct UiStyle {
  bool dark = true;    // the page's theme (theme=light|dark|auto, or the host's vigil:theme)
  bool touch = false;  // the last input was a finger: widgets grow to fingertip size
  float dpr = 1.0f;    // device pixels per CSS pixel
  bool operator==(const UiStyle&) const = default;
};

// Sets ImGui's colours and sizes and the plots' palette.
void apply_ui_style(const UiStyle& style);

}  // namespace vigil::web
