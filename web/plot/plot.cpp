#include "plot/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace vigil::plot {

namespace {

struct Series {
  std::string label;
  ImU32 color;
  std::vector<double> xs, ys;
};

struct State {
  bool active = false;
  ImDrawList* draw = nullptr;
  ImVec2 area_min, area_max;  // the data area, inside the axes
  Axis x, y;
  bool hovered = false;
  ImVec2 mouse;
  std::vector<Series> series;  // labelled lines, for the legend and the hover readout
  std::vector<std::pair<std::string, ImU32>> legend_only;
};

State g;

double scale(const Axis& a, double v) {
  return a.log ? std::log10(std::max(v, 1e-300)) : v;
}

double fraction(const Axis& a, double v) {
  const double lo = scale(a, a.min), hi = scale(a, a.max);
  return hi > lo ? (scale(a, v) - lo) / (hi - lo) : 0.0;
}

double unscale_x(float px) {
  const double f = (px - g.area_min.x) / std::max(1.0f, g.area_max.x - g.area_min.x);
  const double lo = scale(g.x, g.x.min), hi = scale(g.x, g.x.max);
  const double v = lo + f * (hi - lo);
  return g.x.log ? std::pow(10.0, v) : v;
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

bool hovered() {
  return g.hovered;
}
double mouse_x() {
  return unscale_x(g.mouse.x);
}

bool begin(const char* id, ImVec2 size, const Axis& x, const Axis& y) {
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
  g.active = true;
  g.draw = ImGui::GetWindowDrawList();
  g.x = x;
  g.y = y;
  g.hovered = ImGui::IsItemHovered();
  g.mouse = ImGui::GetIO().MousePos;

  const float font = ImGui::GetFontSize();
  g.area_min = ImVec2(pos.x + font * 3.6f, pos.y + font * 1.4f);
  g.area_max = ImVec2(pos.x + size.x - font * 0.8f, pos.y + size.y - font * 2.6f);

  ImDrawList* dl = g.draw;
  dl->AddRectFilled(pos, ImVec2(pos.x + size.x, pos.y + size.y), IM_COL32(24, 26, 32, 255), 4.0f);
  dl->AddRectFilled(g.area_min, g.area_max, IM_COL32(16, 18, 22, 255));

  const ImU32 grid = IM_COL32(255, 255, 255, 28);
  const ImU32 label = IM_COL32(200, 200, 210, 255);
  double step = 1.0;
  const int x_ticks = std::max(2, static_cast<int>((g.area_max.x - g.area_min.x) / (font * 5)));
  for (double t : ticks(g.x, x_ticks, &step)) {
    const float px = to_screen(t, g.y.min).x;
    dl->AddLine(ImVec2(px, g.area_min.y), ImVec2(px, g.area_max.y), grid);
    const std::string s = format_tick(t, step);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    const float right_edge = pos.x + size.x - ts.x - 2;  // keep the last label inside the frame
    dl->AddText(ImVec2(std::min(px - ts.x * 0.5f, right_edge), g.area_max.y + font * 0.2f), label,
                s.c_str());
  }
  const int y_ticks = std::max(2, static_cast<int>((g.area_max.y - g.area_min.y) / (font * 2.2f)));
  for (double t : ticks(g.y, y_ticks, &step)) {
    const float py = to_screen(g.x.min, t).y;
    dl->AddLine(ImVec2(g.area_min.x, py), ImVec2(g.area_max.x, py), grid);
    const std::string s = format_tick(t, step);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    dl->AddText(ImVec2(g.area_min.x - ts.x - font * 0.3f, py - ts.y * 0.5f), label, s.c_str());
  }
  dl->AddRect(g.area_min, g.area_max, IM_COL32(255, 255, 255, 60));
  // Axis titles: x centred under the ticks, y above the axis (ImGui cannot rotate text).
  if (x.label && *x.label) {
    const ImVec2 ts = ImGui::CalcTextSize(x.label);
    dl->AddText(ImVec2((g.area_min.x + g.area_max.x - ts.x) * 0.5f, g.area_max.y + font * 1.3f),
                label, x.label);
  }
  if (y.label && *y.label)
    dl->AddText(ImVec2(pos.x + font * 0.4f, pos.y + font * 0.15f), label, y.label);
  dl->PushClipRect(g.area_min, g.area_max, true);
  return true;
}

void line(const char* label, std::span<const double> xs, std::span<const double> ys, ImU32 color,
          float thickness) {
  const std::size_t n = std::min(xs.size(), ys.size());
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
  const std::size_t n = std::min(xs.size(), ys.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!(ys[i] > 0.0)) continue;
    const ImVec2 a = to_screen(xs[i] - width / 2, ys[i]);
    const ImVec2 b = to_screen(xs[i] + width / 2, g.y.min);
    g.draw->AddRectFilled(ImVec2(a.x + 0.5f, a.y), ImVec2(std::max(a.x + 1.5f, b.x - 0.5f), b.y),
                          color);
  }
  if (label && *label) g.legend_only.emplace_back(label, color);
}

void hline(const char* label, double y, ImU32 color, float thickness) {
  const float py = to_screen(g.x.min, y).y;
  g.draw->AddLine(ImVec2(g.area_min.x, py), ImVec2(g.area_max.x, py), color, thickness);
  if (label && *label)
    g.draw->AddText(ImVec2(g.area_min.x + 4, py - ImGui::GetFontSize() - 1), color, label);
}

void vline(const char* label, double x, ImU32 color, float thickness) {
  const float px = to_screen(x, g.y.min).x;
  g.draw->AddLine(ImVec2(px, g.area_min.y), ImVec2(px, g.area_max.y), color, thickness);
  if (label && *label) {
    // Label on the side with more room, so it stays clear of the legend in the top-right.
    const float w = ImGui::CalcTextSize(label).x;
    const bool left = px > (g.area_min.x + g.area_max.x) * 0.5f;
    g.draw->AddText(ImVec2(left ? px - w - 4 : px + 4, g.area_min.y + 2), color, label);
  }
}

void text(double x, double y, ImU32 color, const char* s) {
  g.draw->AddText(to_screen(x, y), color, s);
}

void end() {
  ImDrawList* dl = g.draw;
  const float font = ImGui::GetFontSize();

  // Legend, top-right inside the data area (reference-line labels sit on the left).
  std::vector<std::pair<std::string, ImU32>> entries = g.legend_only;
  for (const auto& s : g.series) entries.emplace_back(s.label, s.color);
  if (!entries.empty()) {
    float width = 0;
    for (const auto& e : entries) width = std::max(width, ImGui::CalcTextSize(e.first.c_str()).x);
    const float box_width = width + font * 2.0f;
    const ImVec2 box_min(g.area_max.x - box_width - 6, g.area_min.y + 6);
    const ImVec2 box_max(box_min.x + box_width,
                         box_min.y + entries.size() * font * 1.25f + font * 0.3f);
    dl->AddRectFilled(box_min, box_max, IM_COL32(20, 22, 28, 210), 3.0f);
    float y = box_min.y + font * 0.2f;
    for (const auto& e : entries) {
      dl->AddRectFilled(ImVec2(box_min.x + font * 0.3f, y + font * 0.3f),
                        ImVec2(box_min.x + font * 1.0f, y + font * 0.9f), e.second);
      dl->AddText(ImVec2(box_min.x + font * 1.3f, y), IM_COL32(220, 220, 230, 255),
                  e.first.c_str());
      y += font * 1.25f;
    }
  }

  // Hover readout: a crosshair and each labelled line's value under the mouse.
  if (g.hovered && g.mouse.x >= g.area_min.x && g.mouse.x <= g.area_max.x) {
    dl->AddLine(ImVec2(g.mouse.x, g.area_min.y), ImVec2(g.mouse.x, g.area_max.y),
                IM_COL32(255, 255, 255, 90));
    const double x = unscale_x(g.mouse.x);
    ImGui::BeginTooltip();
    ImGui::Text("%s = %.4g", (g.x.label && *g.x.label) ? g.x.label : "x", x);
    for (const auto& s : g.series) {
      const double v = interpolate(s, x);
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(s.color), "%s: %.4g", s.label.c_str(), v);
    }
    ImGui::EndTooltip();
  }
  dl->PopClipRect();
  g.active = false;
  ImGui::PopID();
}

}  // namespace vigil::plot
