#include "ui/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "ui/layout_report.hpp"

namespace vigil::plot {

namespace {

struct Series {
  std::string label;
  ImU32 color;
  std::vector<double> xs, ys;
};

struct State {
  ImDrawList* draw = nullptr;
  ImVec2 frame_min, frame_max;            // the whole widget
  ImVec2 outer_clip_min, outer_clip_max;  // the window's clipping, around the data area's
  std::string y_title;                    // the y axis' title as drawn: cut to the plot's width
  ImVec2 area_min, area_max;              // the data area, inside the axes
  Axis x, y;
  Options options;
  bool hovered = false;
  bool active = false;   // mouse held on the plot
  bool clicked = false;  // pressed this frame
  bool line_dragged = false;
  ImVec2 mouse;
  ImGuiStorage* storage = nullptr;
  std::vector<Series> series;  // labelled lines, for the legend and the hover readout
  std::vector<std::pair<std::string, ImU32>> legend_only;
  std::vector<ImVec4> line_labels;  // where reference-line labels went (min x, min y, max x, max y)
  int cell_rows = 0, cell_cols = 0;
  double cell_x0 = 0, cell_x1 = 0, cell_y0 = 0, cell_y1 = 0;
};

State g;

// For touch input (see background_under_pointer): the plot background under the pointer this
// frame, unless one of the plot's own controls is there.
ImGuiID g_background_under_pointer = 0;
bool g_control_under_pointer = false;

// Storage keys, relative to the plot's ID scope.
ImGuiID key(const char* name) {
  return ImGui::GetID(name);
}

double scale(const Axis& a, double v) {
  return a.log ? std::log10(std::max(v, 1e-300)) : v;
}
double unscale(const Axis& a, double v) {
  return a.log ? std::pow(10.0, v) : v;
}

double fraction(const Axis& a, double v) {
  const double lo = scale(a, a.min), hi = scale(a, a.max);
  return hi > lo ? (scale(a, v) - lo) / (hi - lo) : 0.0;
}

double data_x(float px) {
  const double f = (px - g.area_min.x) / std::max(1.0f, g.area_max.x - g.area_min.x);
  return unscale(g.x, scale(g.x, g.x.min) + f * (scale(g.x, g.x.max) - scale(g.x, g.x.min)));
}

double data_y(float py) {
  const double f = (g.area_max.y - py) / std::max(1.0f, g.area_max.y - g.area_min.y);
  return unscale(g.y, scale(g.y, g.y.min) + f * (scale(g.y, g.y.max) - scale(g.y, g.y.min)));
}

// Keeps plotted y finite and within a band around the axis, so that infinities and outliers
// draw as lines leaving the clip rectangle instead of overflowing float coordinates.
double clamp_y(double v) {
  if (std::isinf(v)) return v > 0 ? g.y.max : g.y.min;
  const double span = scale(g.y, g.y.max) - scale(g.y, g.y.min);
  const double lo = g.y.log ? g.y.min * 1e-3 : g.y.min - span;
  const double hi = g.y.log ? g.y.max * 1e3 : g.y.max + span;
  return std::clamp(v, lo, hi);
}

std::string format_tick(double v, double step) {
  char buf[32];
  if (step == 0.0) {  // a power of ten on a log axis
    std::snprintf(buf, sizeof buf, "1e%d", static_cast<int>(std::lround(std::log10(v))));
    return buf;
  }
  if (std::abs(v) < step * 1e-6) v = 0.0;
  const int decimals =
      step >= 1.0 ? 0 : std::min(6, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
  if (std::abs(v) >= 1e6 || (v != 0.0 && std::abs(v) < 1e-4))
    std::snprintf(buf, sizeof buf, "%.0e", v);
  else
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::vector<double> ticks(const Axis& a, int max_ticks, double* step_out) {
  std::vector<double> out;
  if (a.index_ticks) {
    const int n = static_cast<int>(std::lround(a.max - a.min));
    const int every = std::max(1, static_cast<int>(nice_step(n, std::max(1, max_ticks))));
    for (int i = 0; i < n; i += every) out.push_back(a.min + i + 0.5);
    *step_out = 1.0;
    return out;
  }
  if (a.log) {
    // Every k-th power of ten, k chosen so that at most max_ticks labels fit.
    const int lo = static_cast<int>(std::ceil(std::log10(a.min) - 1e-9));
    const int hi = static_cast<int>(std::floor(std::log10(a.max) + 1e-9));
    const int every = std::max(1, (hi - lo + max_ticks) / std::max(1, max_ticks));
    for (int e = hi; e >= lo; e -= every) out.insert(out.begin(), std::pow(10.0, e));
    *step_out = 0.0;  // marks decade ticks for format_tick
    return out;
  }
  const double step = nice_step(a.max - a.min, max_ticks);
  *step_out = step;
  for (double t = std::ceil(a.min / step) * step; t <= a.max + step * 1e-9; t += step)
    out.push_back(t);
  return out;
}

double interpolate(const Series& s, double x) {
  if (s.xs.empty()) return NAN;
  auto it = std::lower_bound(s.xs.begin(), s.xs.end(), x);
  if (it == s.xs.begin()) return s.ys.front();
  if (it == s.xs.end()) return s.ys.back();
  const std::size_t i = static_cast<std::size_t>(it - s.xs.begin());
  const double x0 = s.xs[i - 1], x1 = s.xs[i];
  if (!(x1 > x0)) return s.ys[i];
  const double f = (x - x0) / (x1 - x0);
  return s.ys[i - 1] + f * (s.ys[i] - s.ys[i - 1]);
}

// Zoom and pan overrides, stored as floats in the window's state storage under the plot's id.
void apply_view_override(Axis& x, Axis& y) {
  if (!g.storage->GetBool(key("zoomed"), false)) return;
  x.min = g.storage->GetFloat(key("x0"), static_cast<float>(x.min));
  x.max = g.storage->GetFloat(key("x1"), static_cast<float>(x.max));
  y.min = g.storage->GetFloat(key("y0"), static_cast<float>(y.min));
  y.max = g.storage->GetFloat(key("y1"), static_cast<float>(y.max));
}

void store_view(double x0, double x1, double y0, double y1) {
  g.storage->SetBool(key("zoomed"), true);
  g.storage->SetFloat(key("x0"), static_cast<float>(x0));
  g.storage->SetFloat(key("x1"), static_cast<float>(x1));
  g.storage->SetFloat(key("y0"), static_cast<float>(y0));
  g.storage->SetFloat(key("y1"), static_cast<float>(y1));
}

void handle_zoom_and_pan() {
  if (!g.options.zoom || g.x.log) return;
  ImGuiIO& io = ImGui::GetIO();
  if (g.hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    g.storage->SetBool(key("zoomed"), false);
    return;
  }
  double x0 = g.x.min, x1 = g.x.max, y0 = g.y.min, y1 = g.y.max;
  bool changed = false;
  if (g.hovered && io.MouseWheel != 0.0f) {
    const double factor = std::pow(0.85, io.MouseWheel);
    if (io.KeyShift && !g.y.log) {
      const double c = data_y(g.mouse.y);
      y0 = c + (y0 - c) * factor;
      y1 = c + (y1 - c) * factor;
    } else {
      const double c = data_x(g.mouse.x);
      x0 = c + (x0 - c) * factor;
      x1 = c + (x1 - c) * factor;
    }
    changed = true;
  }
  if (g.active && !g.line_dragged && (io.MouseDelta.x != 0.0f || io.MouseDelta.y != 0.0f)) {
    const double dx = io.MouseDelta.x / std::max(1.0f, g.area_max.x - g.area_min.x) * (x1 - x0);
    x0 -= dx;
    x1 -= dx;
    if (!g.y.log) {
      const double dy = io.MouseDelta.y / std::max(1.0f, g.area_max.y - g.area_min.y) * (y1 - y0);
      y0 += dy;
      y1 += dy;
    }
    changed = true;
  }
  if (changed && x1 > x0 && y1 > y0) store_view(x0, x1, y0, y1);
}

// Within a few pixels of a line grabs it; a fingertip is less precise than a mouse.
bool near_line(float px, float mouse) {
  return std::abs(px - mouse) <= 5.0f + ImGui::GetStyle().TouchExtraPadding.x * 4.0f;
}

// `text`, or as much of it as fits in `width` pixels followed by "...".
std::string fit_text(const char* text, float width) {
  if (ImGui::CalcTextSize(text).x <= width) return text;
  std::string cut = text;
  while (!cut.empty() && ImGui::CalcTextSize((cut + "...").c_str()).x > width) {
    // Drop the last whole UTF-8 character: its continuation bytes, then its lead byte.
    while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80) cut.pop_back();
    if (!cut.empty()) cut.pop_back();
  }
  return cut + "...";
}

// Legend entries: a swatch and a label each, laid in rows across the top strip of the plot.
float legend_entry_width(const std::string& label, float font) {
  return font * 1.3f + ImGui::CalcTextSize(label.c_str()).x + font * 0.9f;
}

}  // namespace

double nice_step(double span, int max_ticks) {
  if (!(span > 0.0) || max_ticks < 1) return 1.0;
  const double raw = span / max_ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw) return m * magnitude;
  return 10.0 * magnitude;
}

ImVec2 to_screen(double x, double y) {
  const float fx = static_cast<float>(fraction(g.x, x));
  const float fy = static_cast<float>(fraction(g.y, clamp_y(y)));
  return ImVec2(g.area_min.x + fx * (g.area_max.x - g.area_min.x),
                g.area_max.y - fy * (g.area_max.y - g.area_min.y));
}

void put_text(ImDrawList* dl, ImVec2 pos, ImU32 color, const char* text, bool shortened) {
  dl->AddText(pos, color, text);
  const ImVec2 size = ImGui::CalcTextSize(text);
  const ImVec2 clip_min = dl->GetClipRectMin(), clip_max = dl->GetClipRectMax();
  web::layout::record_text(text, pos, ImVec2(pos.x + size.x, pos.y + size.y),
                           ImVec4(clip_min.x, clip_min.y, clip_max.x, clip_max.y), shortened);
}

void new_frame() {
  g_background_under_pointer = 0;
  g_control_under_pointer = false;
}

ImGuiID background_under_pointer() {
  return g_control_under_pointer ? 0 : g_background_under_pointer;
}

bool hovered() {
  return g.hovered;
}
double mouse_x() {
  return data_x(g.mouse.x);
}

bool visible(const char* label) {
  return !g.storage || !g.storage->GetBool(key(label), false);
}

bool begin(const char* id, ImVec2 size, const Axis& x_in, const Axis& y_in, Options options) {
  ImGui::PushID(id);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (size.x <= 0) size.x = std::max(50.0f, avail.x + size.x);
  if (size.y <= 0) size.y = std::max(50.0f, avail.y + size.y);
  const ImVec2 pos = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##plot", size);
  if (!ImGui::IsItemVisible()) {
    ImGui::PopID();
    return false;
  }
  g = State{};
  g.draw = ImGui::GetWindowDrawList();
  g.storage = ImGui::GetStateStorage();
  g.options = options;
  g.x = x_in;
  g.y = y_in;
  apply_view_override(g.x, g.y);
  g.hovered = ImGui::IsItemHovered();
  if (g.hovered) g_background_under_pointer = ImGui::GetID("##plot");
  g.active = ImGui::IsItemActive();
  g.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  g.mouse = ImGui::GetIO().MousePos;
  g.frame_min = pos;
  g.frame_max = ImVec2(pos.x + size.x, pos.y + size.y);

  const float font = ImGui::GetFontSize();
  float left = font * 3.6f;
  if (g.y.index_ticks && g.y.tick_names)
    for (int i = 0; i < static_cast<int>(g.y.max - g.y.min); ++i)
      left = std::max(left, ImGui::CalcTextSize(g.y.tick_names[i]).x + font * 0.8f);
  // The strip above the data area holds the y axis' title and the legend, in as many rows as
  // the legend needed last frame (end() measures it), so neither ever covers the data or
  // the other.
  const int legend_rows = g.storage->GetInt(key("##legend_rows"), 0);
  g.area_min =
      ImVec2(pos.x + left,
             pos.y + font * 1.4f + static_cast<float>(std::max(0, legend_rows - 1)) * font * 1.25f);
  g.area_max = ImVec2(pos.x + size.x - font * 0.8f, pos.y + size.y - font * 2.6f);

  ImDrawList* dl = g.draw;
  dl->AddRectFilled(g.frame_min, g.frame_max, palette().frame_bg, 4.0f);
  dl->AddRectFilled(g.area_min, g.area_max, palette().area_bg);

  const ImU32 grid = palette().grid;
  const ImU32 label = palette().ink;
  double step = 1.0;
  // As many x ticks as their labels allow: fewer while the widest label and a gap of a font
  // height do not fit between two neighbours.
  int x_ticks = std::max(2, static_cast<int>((g.area_max.x - g.area_min.x) / (font * 3)));
  std::vector<double> xt;
  for (;; x_ticks = std::max(1, x_ticks * 2 / 3)) {
    xt = ticks(g.x, x_ticks, &step);
    float widest = 0;
    for (double t : xt) {
      const int index = static_cast<int>(t - g.x.min);
      const std::string s = !g.x.index_ticks ? format_tick(t, step)
                            : g.x.tick_names ? std::string(g.x.tick_names[index])
                                             : std::to_string(index);
      widest = std::max(widest, ImGui::CalcTextSize(s.c_str()).x);
    }
    const float spacing =
        xt.size() > 1 ? (to_screen(xt[1], g.y.min).x - to_screen(xt[0], g.y.min).x) : 1e9f;
    if (spacing >= widest + font || x_ticks <= 1) break;
  }
  for (double t : xt) {
    const float px = to_screen(t, g.y.min).x;
    if (!g.x.index_ticks) dl->AddLine(ImVec2(px, g.area_min.y), ImVec2(px, g.area_max.y), grid);
    const int index = static_cast<int>(t - g.x.min);
    const std::string s = !g.x.index_ticks ? format_tick(t, step)
                          : g.x.tick_names ? std::string(g.x.tick_names[index])
                                           : std::to_string(index);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    const float right_edge = g.frame_max.x - ts.x - 2;  // keep the last label inside the frame
    put_text(dl, ImVec2(std::min(px - ts.x * 0.5f, right_edge), g.area_max.y + font * 0.2f), label,
             s.c_str());
  }
  // Named rows only need one line of text each; numeric ticks want more air.
  const float y_spacing = g.y.index_ticks ? font * 1.1f : font * 2.2f;
  const int y_ticks = std::max(2, static_cast<int>((g.area_max.y - g.area_min.y) / y_spacing));
  float last_label_top = 1e30f, last_label_bottom = -1e30f;  // the y label drawn last
  for (double t : ticks(g.y, y_ticks, &step)) {
    const float py = to_screen(g.x.min, t).y;
    if (!g.y.index_ticks) dl->AddLine(ImVec2(g.area_min.x, py), ImVec2(g.area_max.x, py), grid);
    const int index = static_cast<int>(g.y.max - t);
    const std::string s = !g.y.index_ticks ? format_tick(t, step)
                          : g.y.tick_names ? std::string(g.y.tick_names[index])
                                           : std::to_string(index);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    // Centred on its tick, but never up into the title strip or down among the x labels.
    const float top =
        std::clamp(py - ts.y * 0.5f, g.area_min.y - font * 0.2f, g.area_max.y - ts.y + font * 0.2f);
    // In a very short plot the clamped labels can meet: the tick keeps its line, not its label.
    if (top < last_label_bottom && top + ts.y > last_label_top) continue;
    last_label_top = top;
    last_label_bottom = top + ts.y;
    put_text(dl, ImVec2(g.area_min.x - ts.x - font * 0.3f, top), label, s.c_str());
  }
  dl->AddRect(g.area_min, g.area_max, palette().axis);
  // Axis titles: x centred under the ticks, y above the axis (ImGui cannot rotate text).
  // Titles wider than the plot (a phone's width) are cut short with "...", never run past it.
  const float title_room = size.x - font * 0.8f;
  if (g.x.label && *g.x.label) {
    const std::string title = fit_text(g.x.label, title_room);
    const float w = ImGui::CalcTextSize(title.c_str()).x;
    const float x = std::clamp((g.area_min.x + g.area_max.x - w) * 0.5f, pos.x + font * 0.4f,
                               pos.x + size.x - w - font * 0.4f);
    put_text(dl, ImVec2(x, g.area_max.y + font * 1.3f), label, title.c_str(), title != g.x.label);
  }
  if (g.y.label && *g.y.label) {
    g.y_title = fit_text(g.y.label, title_room);
    put_text(dl, ImVec2(pos.x + font * 0.4f, pos.y + font * 0.15f), label, g.y_title.c_str(),
             g.y_title != g.y.label);
  }
  g.outer_clip_min = dl->GetClipRectMin();
  g.outer_clip_max = dl->GetClipRectMax();
  dl->PushClipRect(g.area_min, g.area_max, true);
  return true;
}

void line(const char* label, std::span<const double> xs, std::span<const double> ys, ImU32 color,
          float thickness) {
  const std::size_t n = std::min(xs.size(), ys.size());
  const bool shown = !(label && *label) || visible(label);
  if (shown) {
    std::vector<ImVec2> points;
    points.reserve(n);
    auto flush = [&] {
      if (points.size() >= 2)
        g.draw->AddPolyline(points.data(), static_cast<int>(points.size()), color, 0, thickness);
      points.clear();
    };
    for (std::size_t i = 0; i < n; ++i) {
      if (std::isnan(ys[i]) || !std::isfinite(xs[i])) {
        flush();
        continue;
      }
      points.push_back(to_screen(xs[i], ys[i]));
    }
    flush();
  }
  if (label && *label)
    g.series.push_back({label,
                        color,
                        {xs.begin(), xs.begin() + static_cast<long>(n)},
                        {ys.begin(), ys.begin() + static_cast<long>(n)}});
}

void markers(const char* label, std::span<const double> xs, std::span<const double> ys, ImU32 color,
             float radius) {
  const std::size_t n = std::min(xs.size(), ys.size());
  if (!(label && *label) || visible(label))
    for (std::size_t i = 0; i < n; ++i)
      if (std::isfinite(xs[i]) && std::isfinite(ys[i]))
        g.draw->AddCircleFilled(to_screen(xs[i], ys[i]), radius, color);
  if (label && *label)
    g.series.push_back({label,
                        color,
                        {xs.begin(), xs.begin() + static_cast<long>(n)},
                        {ys.begin(), ys.begin() + static_cast<long>(n)}});
}

void shade_under(std::span<const double> xs, std::span<const double> ys, double from, double to,
                 ImU32 color) {
  const std::size_t n = std::min(xs.size(), ys.size());
  const float base = g.area_max.y;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    double x0 = xs[i], x1 = xs[i + 1];
    if (x1 <= from || x0 >= to || !(x1 > x0)) continue;
    double y0 = ys[i], y1 = ys[i + 1];
    if (std::isnan(y0) || std::isnan(y1)) continue;
    // Cut the trapezoid at the shading bounds, interpolating the curve there.
    if (x0 < from) {
      y0 = y0 + (y1 - y0) * (from - x0) / (x1 - x0);
      x0 = from;
    }
    if (x1 > to) {
      y1 = ys[i] + (y1 - ys[i]) * (to - xs[i]) / (xs[i + 1] - xs[i]);
      x1 = to;
    }
    const ImVec2 a = to_screen(x0, y0), b = to_screen(x1, y1);
    g.draw->AddQuadFilled(ImVec2(a.x, base), a, b, ImVec2(b.x, base), color);
  }
}

void bars(const char* label, std::span<const double> xs, std::span<const double> ys, double width,
          ImU32 color) {
  const bool shown = !(label && *label) || visible(label);
  const std::size_t n = std::min(xs.size(), ys.size());
  for (std::size_t i = 0; shown && i < n; ++i) {
    if (!(ys[i] > 0.0)) continue;
    const ImVec2 a = to_screen(xs[i] - width / 2, ys[i]);
    const ImVec2 b = to_screen(xs[i] + width / 2, g.y.min);
    g.draw->AddRectFilled(ImVec2(a.x + 0.5f, a.y), ImVec2(std::max(a.x + 1.5f, b.x - 0.5f), b.y),
                          color);
  }
  if (label && *label) g.legend_only.emplace_back(label, color);
}

namespace {
// Where a reference line's label goes: at `at`, or moved past the labels already placed in this
// plot (rightwards for horizontal lines, downwards for vertical ones), so that lines close
// together never write their labels over each other.
ImVec2 place_line_label(ImVec2 at, ImVec2 size, bool rightwards) {
  for (bool moved = true; moved;) {
    moved = false;
    for (const ImVec4& r : g.line_labels)
      if (at.x < r.z && at.x + size.x > r.x && at.y < r.w && at.y + size.y > r.y) {
        if (rightwards)
          at.x = r.z + ImGui::GetFontSize() * 0.5f;
        else
          at.y = r.w + 1;
        moved = true;
      }
  }
  g.line_labels.emplace_back(at.x, at.y, at.x + size.x, at.y + size.y);
  return at;
}
}  // namespace

void hline(const char* label, double y, ImU32 color, float thickness) {
  const float py = to_screen(g.x.min, y).y;
  g.draw->AddLine(ImVec2(g.area_min.x, py), ImVec2(g.area_max.x, py), color, thickness);
  if (label && *label) {
    // Above the line, or under it when the line runs along the top of the data area.
    const float font = ImGui::GetFontSize();
    const float above = py - font - 1;
    const ImVec2 size = ImGui::CalcTextSize(label);
    const ImVec2 at = place_line_label(
        ImVec2(g.area_min.x + 4, above >= g.area_min.y ? above : py + 1), size, true);
    put_text(g.draw, at, color, label);
  }
}

void vline(const char* label, double x, ImU32 color, float thickness) {
  const float px = to_screen(x, g.y.min).x;
  g.draw->AddLine(ImVec2(px, g.area_min.y), ImVec2(px, g.area_max.y), color, thickness);
  if (label && *label) {
    // Label on the side with more room, so it stays clear of the legend in the top-right.
    const ImVec2 size = ImGui::CalcTextSize(label);
    const bool left = px > (g.area_min.x + g.area_max.x) * 0.5f;
    // Kept inside the plot even when the line itself is at (or past) an edge of the range.
    const float x = std::clamp(left ? px - size.x - 4 : px + 4, g.area_min.x + 2,
                               std::max(g.area_min.x + 2, g.area_max.x - size.x - 2));
    const ImVec2 at = place_line_label(ImVec2(x, g.area_min.y + 2), size, false);
    put_text(g.draw, at, color, label);
  }
}

namespace {
// Shared by the draggable lines: a press near the line takes it, moves follow the mouse.
bool drag_line(const char* label, double* value, double lo, double hi, bool horizontal,
               float line_px) {
  const ImGuiID id = key(label) + 1;  // distinct from the visibility key of the same label
  const ImGuiID dragging = key("##dragging");
  const float mouse_px = horizontal ? g.mouse.y : g.mouse.x;
  if (g.hovered && near_line(line_px, mouse_px)) g_control_under_pointer = true;
  if (g.clicked && near_line(line_px, mouse_px)) g.storage->SetInt(dragging, static_cast<int>(id));
  if (!g.active) {
    if (g.storage->GetInt(dragging, 0) == static_cast<int>(id)) g.storage->SetInt(dragging, 0);
    if (g.hovered && near_line(line_px, mouse_px))
      ImGui::SetMouseCursor(horizontal ? ImGuiMouseCursor_ResizeNS : ImGuiMouseCursor_ResizeEW);
    return false;
  }
  if (g.storage->GetInt(dragging, 0) != static_cast<int>(id)) return false;
  g.line_dragged = true;
  const double v = std::clamp(horizontal ? data_y(g.mouse.y) : data_x(g.mouse.x), lo, hi);
  const bool moved = v != *value;
  *value = v;
  return moved;
}
}  // namespace

bool drag_hline(const char* label, double* y, ImU32 color, double lo, double hi) {
  const bool moved = drag_line(label, y, lo, hi, true, to_screen(g.x.min, *y).y);
  hline(label, *y, color, 2.0f);
  return moved;
}

bool drag_vline(const char* label, double* x, ImU32 color, double lo, double hi) {
  const bool moved = drag_line(label, x, lo, hi, false, to_screen(*x, g.y.min).x);
  vline(label, *x, color, 2.0f);
  return moved;
}

void cell_grid(int rows, int cols, double x0, double x1, double y0, double y1) {
  g.cell_rows = rows;
  g.cell_cols = cols;
  g.cell_x0 = x0;
  g.cell_x1 = x1;
  g.cell_y0 = y0;
  g.cell_y1 = y1;
}

// Cells below two pixels are grouped into blocks showing their highest-ranked member.
int cells_per_block(float cell_pixels) {
  return std::max(1, static_cast<int>(std::ceil(2.0f / std::max(cell_pixels, 1e-3f))));
}

bool cells_have_gaps(float cell_w, float cell_h) {
  return cell_w > 6 && cell_h > 6;
}

void heatmap(int rows, int cols, double x0, double x1, double y0, double y1,
             HeatCell (*cell)(int row, int col, void* context), void* context) {
  if (rows <= 0 || cols <= 0) return;
  cell_grid(rows, cols, x0, x1, y0, y1);
  const ImVec2 top_left = to_screen(x0, y1), bottom_right = to_screen(x1, y0);
  const float w = (bottom_right.x - top_left.x) / static_cast<float>(cols);
  const float h = (bottom_right.y - top_left.y) / static_cast<float>(rows);
  const int row_step = cells_per_block(h);
  const int col_step = cells_per_block(w);
  const float gap = cells_have_gaps(w, h) ? 1.0f : 0.0f;
  for (int r = 0; r < rows; r += row_step) {
    for (int c = 0; c < cols; c += col_step) {
      HeatCell best;
      best.rank = -1;
      for (int rr = r; rr < std::min(rows, r + row_step); ++rr)
        for (int cc = c; cc < std::min(cols, c + col_step); ++cc) {
          const HeatCell v = cell(rr, cc, context);
          if (v.rank > best.rank) best = v;
        }
      if ((best.color >> 24) == 0) continue;
      const ImVec2 a(top_left.x + c * w, top_left.y + r * h);
      const ImVec2 b(top_left.x + std::min(cols, c + col_step) * w - gap,
                     top_left.y + std::min(rows, r + row_step) * h - gap);
      g.draw->AddRectFilled(a, b, best.color);
    }
  }
}

bool hovered_cell(int* row, int* col) {
  if (!g.hovered || g.cell_rows == 0) return false;
  const double x = data_x(g.mouse.x), y = data_y(g.mouse.y);
  if (x < g.cell_x0 || x >= g.cell_x1 || y < g.cell_y0 || y >= g.cell_y1) return false;
  *col = static_cast<int>((x - g.cell_x0) / (g.cell_x1 - g.cell_x0) * g.cell_cols);
  *row = static_cast<int>((g.cell_y1 - y) / (g.cell_y1 - g.cell_y0) * g.cell_rows);
  *col = std::clamp(*col, 0, g.cell_cols - 1);
  *row = std::clamp(*row, 0, g.cell_rows - 1);
  return true;
}

void rect(double x0, double y0, double x1, double y1, ImU32 color) {
  const ImVec2 a = to_screen(x0, y1), b = to_screen(x1, y0);
  g.draw->AddRectFilled(a, ImVec2(std::max(b.x, a.x + 1.0f), b.y), color);
}

void text(double x, double y, ImU32 color, const char* s) {
  put_text(g.draw, to_screen(x, y), color, s);
}

void end() {
  ImDrawList* dl = g.draw;
  const float font = ImGui::GetFontSize();

  // Legend: entries flow across the strip above the data area, after the y axis' title, and
  // wrap into more rows when the plot is narrow. A click on an entry hides or shows its series.
  std::vector<std::pair<std::string, ImU32>> entries = g.legend_only;
  for (const auto& s : g.series) entries.emplace_back(s.label, s.color);
  bool legend_click = false;
  int rows = 0;
  if (g.options.legend && !entries.empty()) {
    const ImVec2 clip_min(std::max(g.frame_min.x, g.outer_clip_min.x),
                          std::max(g.frame_min.y, g.outer_clip_min.y));
    const ImVec2 clip_max(std::min(g.frame_max.x, g.outer_clip_max.x),
                          std::min(g.frame_max.y, g.outer_clip_max.y));
    dl->PushClipRect(clip_min, clip_max, false);
    const float title =
        g.y_title.empty() ? 0.0f : ImGui::CalcTextSize(g.y_title.c_str()).x + font * 1.4f;
    const float row_h = font * 1.25f;
    const float left = g.frame_min.x + font * 0.4f, right = g.frame_max.x - font * 0.4f;
    float x = left + title, y = g.frame_min.y + font * 0.1f;
    rows = 1;
    for (const auto& e : entries) {
      const float w = legend_entry_width(e.first, font);
      if (x + w > right && x > left) {  // a new row, unless this one is still empty
        x = left;
        y += row_h;
        ++rows;
      }
      const bool shown = visible(e.first.c_str());
      const ImVec2 entry_min(x, y), entry_max(x + w, y + row_h);
      if (g.hovered && ImGui::IsMouseHoveringRect(entry_min, entry_max)) {
        g_control_under_pointer = true;
        if (g.clicked) {
          g.storage->SetBool(key(e.first.c_str()), shown);
          legend_click = true;
        }
      }
      dl->AddRectFilled(ImVec2(x, y + font * 0.25f), ImVec2(x + font * 0.7f, y + font * 0.95f),
                        shown ? e.second : colors::with_alpha(e.second, 60));
      put_text(dl, ImVec2(x + font * 1.0f, y), shown ? palette().ink : palette().ink_dim,
               e.first.c_str());
      x += w;
    }
    dl->PopClipRect();
  }
  g.storage->SetInt(key("##legend_rows"), rows);
  if (!legend_click) handle_zoom_and_pan();

  // Hover readout: a crosshair and each labelled line's value under the mouse.
  if (g.hovered && !g.active && g.mouse.x >= g.area_min.x && g.mouse.x <= g.area_max.x &&
      !g.series.empty()) {
    dl->AddLine(ImVec2(g.mouse.x, g.area_min.y), ImVec2(g.mouse.x, g.area_max.y),
                colors::with_alpha(palette().ink, 90));
    const double x = data_x(g.mouse.x);
    ImGui::BeginTooltip();
    ImGui::Text("%s = %.4g", (g.x.label && *g.x.label) ? g.x.label : "x", x);
    for (const auto& s : g.series) {
      if (!visible(s.label.c_str())) continue;
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(s.color), "%s: %.4g", s.label.c_str(),
                         interpolate(s, x));
    }
    ImGui::EndTooltip();
  }
  dl->PopClipRect();
  ImGui::PopID();
}

}  // namespace vigil::plot
