// The UI's font: DejaVu Sans, cut at build time to the characters the panels draw (Latin-1,
// Greek, a few arrows, marks and math signs; see web/ui_font.cmake) and compiled into the app.
#pragma once

struct ImFont;

namespace vigil::web {

// Adds the UI font at `size_px` pixels to ImGui's font atlas, covering every codepoint the subset
// was cut to; the first font added is ImGui's default. Call after ImGui::CreateContext().
ImFont* load_ui_font(float size_px);

}  // namespace vigil::web
