#pragma once

#include <imgui.h>

namespace vigil::plot {

// Every colour the demos draw with, for the light or the dark theme. Series and member-state
// colours follow Okabe and Ito's colour-blind-safe set ("Color Universal Design", 2002),
// darkened in the light theme so that each keeps a contrast of at least 3:1 against the light
// plot background (WCAG 2.1's ratio for graphics).
struct Palette {
  bool dark = true;
  // Series.
  ImU32 blue, orange, green, red, yellow, purple, grey;
  // Member states, the same in every view of membership: alive, suspect, dead, left; a member
  // not yet heard of; a member's view of itself.
  ImU32 alive, suspect, dead, left, unknown, self;
  // Surfaces and text.
  ImU32 window_bg;  // behind everything (the canvas' clear colour)
  ImU32 frame_bg;   // a plot's frame, around its data area
  ImU32 area_bg;    // a plot's data area
  ImU32 grid, axis;
  ImU32 ink;      // axis labels and annotations
  ImU32 ink_dim;  // hidden legend entries, secondary text
  ImU32 legend_bg;
  ImU32 cell_ink;  // text drawn on a coloured cell
  ImU32 accent;    // section titles, the app's name
  ImU32 error;     // messages about failures (a lost connection)
};

const Palette& palette();
// Selects the theme's palette; the ImGui widget colours follow in app/theme.cpp.
void use_palette(bool dark);

// Colours as ImGui's text functions want them.
inline ImVec4 to_vec4(ImU32 c) {
  return ImGui::ColorConvertU32ToFloat4(c);
}

}  // namespace vigil::plot
