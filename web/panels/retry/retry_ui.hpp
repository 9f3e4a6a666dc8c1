#pragma once

#include <imgui.h>

#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <vigil/retry/params.hpp>
#include "panels/param_ui.hpp"

// What the four retry views share: parameters read from the page's URL and set on sliders through
// their ParamSpec, the command line that reproduces a view, and a few drawing helpers.
namespace vigil::web::retry_ui {

// Work done in one frame while sweeping or playing, at least one step: the page stays
// responsive whatever the parameters.
inline constexpr double kBudgetMs = 20;
// A background tab gets no frames; on return, play on rather than replay the lost seconds.
inline constexpr double kMaxFrameMs = 250;

// "vigil lab retry ...", in grey, under its own heading.
void cli_line(const std::vector<std::string>& args, const char* note = nullptr);

double ms_since(std::chrono::steady_clock::time_point start);
ImVec4 to_vec4(ImU32 c);
nlohmann::json number_or_null(double x);
nlohmann::json optional_json(const std::optional<double>& x);
void show_error(const std::string& message);  // in red, when there is one
void text_or_dash(const char* fmt, double x);

void marker(double x, double y, ImU32 color, bool filled, float radius);
// Arrowheads along a curve in screen space: on every `every`-th segment (from `phase`) and on
// every long one (a jump between branches), pointing from point i to point i + 1.
void arrowheads(const std::vector<ImVec2>& pts, ImU32 color, int every, int phase);
// A legend entry without a line: bars() with nothing to draw still adds one.
void legend_entry(const char* label, ImU32 color);

// A legend above the plots, on as many lines as it needs, so that it never covers a curve or a
// label however small the plots get. A click on an entry hides or shows its series.
struct LegendItem {
  const char* label;
  ImU32 color;
  bool* shown;
};
void legend_row(std::initializer_list<LegendItem> items);

// On a log axis a zero cannot be drawn: put it just below the axis, so the line drops out of
// sight steeply instead of heading for a point far off the plot.
inline double log_floor(double v, double axis_min) {
  return v > 0 ? v : axis_min * 0.5;
}

}  // namespace vigil::web::retry_ui
