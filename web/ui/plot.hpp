#pragma once

#include <imgui.h>

#include <span>
#include <string>

#include "ui/palette.hpp"

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
  // Ticks at cell centres i + 0.5 labelled with the index i (for matrices); on a y axis the
  // index counts from the top, so row 0 is drawn first.
  bool index_ticks = false;
  const char* const* tick_names = nullptr;  // with index_ticks: names instead of numbers
};

namespace colors {
inline ImU32 with_alpha(ImU32 c, int alpha) {
  return (c & 0x00FFFFFFu) | (static_cast<ImU32>(alpha) << 24);
}
}  // namespace colors

// Interaction a plot offers; all on by default.
struct Options {
  bool zoom = true;    // wheel zooms x around the mouse (shift: y), drag pans, double-click resets
  bool legend = true;  // legend entries toggle their series when clicked
};

// Starts a plot of `size` (negative or zero: fill the available space). Returns false when the
// plot is clipped away; then do not call end(). Zoom, pan and hidden series persist per id.
bool begin(const char* id, ImVec2 size, const Axis& x, const Axis& y, Options options = {});
void end();

// A polyline through (xs[i], ys[i]); non-finite y values break the line (infinity is drawn
// clamped to the top edge). Lines with a label appear in the legend and the hover readout.
void line(const char* label, std::span<const double> xs, std::span<const double> ys, ImU32 color,
          float thickness = 2.0f);

// A dot of `radius` pixels at each (xs[i], ys[i]), with a legend entry like a line's.
void markers(const char* label, std::span<const double> xs, std::span<const double> ys, ImU32 color,
             float radius = 4.0f);

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

// Reference lines the user can drag (within [lo, hi]); true when moved this frame.
bool drag_hline(const char* label, double* y, ImU32 color, double lo, double hi);
bool drag_vline(const char* label, double* x, ImU32 color, double lo, double hi);

// A rows x cols grid of cells covering [x0, x1] x [y0, y1] in data units, row 0 at the top.
// `cell(row, col, context)` gives each cell's colour (alpha 0: not drawn) and a rank: when cells
// are smaller than a pixel, each block shows its highest-ranked cell, so a single red cell in a
// thousand-by-thousand matrix still shows. hovered_cell() then tells which cell is under the mouse.
struct HeatCell {
  ImU32 color = 0;
  int rank = 0;
};
void heatmap(int rows, int cols, double x0, double x1, double y0, double y1,
             HeatCell (*cell)(int row, int col, void* context), void* context);
bool hovered_cell(int* row, int* col);
// For heat maps drawn by other means (HeatmapTexture): the grid hovered_cell() reports on, and
// the rules every heat map follows: how many cells of this size (pixels) form one block, and
// whether cells are large enough to be drawn with a one-pixel gap between them.
void cell_grid(int rows, int cols, double x0, double x1, double y0, double y1);
int cells_per_block(float cell_pixels);
bool cells_have_gaps(float cell_w, float cell_h);

// Whether a labelled series is shown (its legend entry toggles it).
bool visible(const char* label);

// A filled rectangle in data coordinates (timelines, spans).
void rect(double x0, double y0, double x1, double y1, ImU32 color);

// Text at a data position (for annotations such as "crash").
void text(double x, double y, ImU32 color, const char* text);

// Draws text and records it for the layout report (ui/layout_report.hpp), which the browser
// tests read to check that no two labels overlap. Every text of a plot goes through here;
// `shortened` says it is a longer text cut short to fit, which the tests count as cut.
void put_text(ImDrawList* dl, ImVec2 pos, ImU32 color, const char* text, bool shortened = false);

// Touch input lets a finger that lands on a plot's background scroll the page, and gives it to
// the plot only on a control of its own (a draggable line, a legend entry): the background
// item under the pointer in this frame, 0 if none or if a control of the plot is there.
// new_frame() forgets the last frame's answer.
void new_frame();
ImGuiID background_under_pointer();

// Data <-> screen for the current plot (valid between begin and end).
ImVec2 to_screen(double x, double y);
bool hovered();
double mouse_x();

// "Nice" tick positions for a linear range: 1, 2 or 5 times a power of ten.
double nice_step(double span, int max_ticks);

}  // namespace vigil::plot
