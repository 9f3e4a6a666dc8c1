#pragma once

#include <imgui.h>

#include <span>
#include <string>

// vigil's small plotting module, drawn with ImDrawList (no ImPlot is available to us).
// Immediate mode, like ImGui itself:
//
//   if (plot::begin("phi", size, {0, 10, "time (s)"}, {0, 16, "phi"})) {
//     plot::shade_under(xs, ys, 1.0, 2.0, color);
//     plot::line("phi(t)", xs, ys, color);
//     plot::hline("threshold 8", 8, color);
//     plot::end();
//   }
namespace vigil::plot {

struct Axis {
  double min = 0.0;
  double max = 1.0;
  const char* label = "";
  bool log = false;  // base-10 scale; min must be > 0
};

// Colours that stay readable on the dark theme.
namespace colors {
inline constexpr ImU32 blue = IM_COL32(90, 160, 255, 255);
inline constexpr ImU32 orange = IM_COL32(255, 160, 60, 255);
inline constexpr ImU32 green = IM_COL32(90, 200, 120, 255);
inline constexpr ImU32 red = IM_COL32(240, 80, 80, 255);
inline constexpr ImU32 yellow = IM_COL32(240, 210, 80, 255);
inline constexpr ImU32 purple = IM_COL32(190, 130, 255, 255);
inline constexpr ImU32 grey = IM_COL32(150, 150, 160, 255);
inline ImU32 with_alpha(ImU32 c, int alpha) {
  return (c & 0x00FFFFFFu) | (static_cast<ImU32>(alpha) << 24);
}
}  // namespace colors

// Starts a plot of `size` (negative width: fill the available width). Returns false when the
// plot is clipped away; then do not call end().
bool begin(const char* id, ImVec2 size, const Axis& x, const Axis& y);
void end();

// A polyline through (xs[i], ys[i]); non-finite y values break the line (infinity is drawn
// clamped to the top edge). Lines with a label appear in the legend and the hover readout.
void line(const char* label, std::span<const double> xs, std::span<const double> ys, ImU32 color,
          float thickness = 2.0f);

// Fills between the curve and the bottom of the plot for x in [from, to], in trapezoids (each
// convex, since ImGui 1.86 fills only convex polygons).
void shade_under(std::span<const double> xs, std::span<const double> ys, double from, double to,
                 ImU32 color);

// Bars centred on xs with the given width, from the bottom of the plot up to ys.
void bars(const char* label, std::span<const double> xs, std::span<const double> ys, double width,
          ImU32 color);

// Reference lines across the whole plot, labelled at their end.
void hline(const char* label, double y, ImU32 color, float thickness = 1.5f);
void vline(const char* label, double x, ImU32 color, float thickness = 1.5f);

// Text at a data position (for annotations such as "crash").
void text(double x, double y, ImU32 color, const char* text);

// Data <-> screen for the current plot (valid between begin and end).
ImVec2 to_screen(double x, double y);
bool hovered();
double mouse_x();

// "Nice" tick positions for a linear range: 1, 2 or 5 times a power of ten.
double nice_step(double span, int max_ticks);

}  // namespace vigil::plot
