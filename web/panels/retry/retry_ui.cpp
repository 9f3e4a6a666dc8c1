#include "panels/retry/retry_ui.hpp"

#include <cmath>
#include <cstdio>

#include "ui/plot.hpp"
#include "ui/widgets.hpp"

namespace vigil::web::retry_ui {

void cli_line(const std::vector<std::string>& args, const char* note) {
  std::string line = "vigil";
  for (const auto& a : args) line += " " + a;
  section("The same on the command line");
  ImGui::PushStyleColor(ImGuiCol_Text, to_vec4(plot::palette().grey));
  ImGui::TextWrapped("%s", line.c_str());
  if (note) ImGui::TextWrapped("%s", note);
  ImGui::PopStyleColor();
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

ImVec4 to_vec4(ImU32 c) {
  return ImGui::ColorConvertU32ToFloat4(c);
}

nlohmann::json number_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json();
}

nlohmann::json optional_json(const std::optional<double>& x) {
  return x ? nlohmann::json(*x) : nlohmann::json();
}

void show_error(const std::string& message) {
  if (message.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, to_vec4(plot::palette().red));
  ImGui::TextWrapped("%s", message.c_str());
  ImGui::PopStyleColor();
}

void text_or_dash(const char* fmt, double x) {
  if (std::isfinite(x))
    ImGui::Text(fmt, x);
  else
    hint("-");
}

void marker(double x, double y, ImU32 color, bool filled, float radius) {
  const ImVec2 p = plot::to_screen(x, y);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (filled)
    dl->AddCircleFilled(p, radius, color, 12);
  else
    dl->AddCircle(p, radius, color, 12, 1.8f);
}

void arrowheads(const std::vector<ImVec2>& pts, ImU32 color, int every, int phase) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float size = ImGui::GetFontSize() * 0.45f;
  for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
    const ImVec2 a = pts[i], b = pts[i + 1];
    const float dx = b.x - a.x, dy = b.y - a.y;
    const float len = std::sqrt(dx * dx + dy * dy);
    const bool periodic = static_cast<int>(i % static_cast<std::size_t>(every)) == phase;
    if (len < size * 1.5f || !(periodic || len > size * 8.0f)) continue;
    const float ux = dx / len, uy = dy / len;
    const ImVec2 tip(a.x + dx * 0.5f + ux * size, a.y + dy * 0.5f + uy * size);
    const ImVec2 back(tip.x - ux * size * 2.0f, tip.y - uy * size * 2.0f);
    dl->AddTriangleFilled(tip, ImVec2(back.x - uy * size, back.y + ux * size),
                          ImVec2(back.x + uy * size, back.y - ux * size), color);
  }
}

void legend_entry(const char* label, ImU32 color) {
  plot::bars(label, {}, {}, 0.0, color);
}

void legend_row(std::initializer_list<LegendItem> items) {
  const float font = ImGui::GetFontSize();
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float avail = ImGui::GetContentRegionAvail().x;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float used = 0;
  bool first = true;
  for (const auto& item : items) {
    const float w = font * 1.4f + ImGui::CalcTextSize(item.label).x + font * 0.6f;
    if (!first && used + spacing + w <= avail) {
      ImGui::SameLine();
      used += spacing;
    } else {
      used = 0;
    }
    first = false;
    used += w;
    ImGui::PushID(item.label);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    if (ImGui::InvisibleButton("##legend", ImVec2(w, font * 1.3f))) *item.shown = !*item.shown;
    const bool shown = *item.shown;
    if (ImGui::IsItemHovered()) {
      dl->AddRectFilled(p, ImVec2(p.x + w, p.y + font * 1.3f),
                        plot::colors::with_alpha(plot::palette().ink, 18), 3.0f);
      ImGui::SetTooltip("click to %s", shown ? "hide" : "show");
    }
    dl->AddRectFilled(ImVec2(p.x + font * 0.3f, p.y + font * 0.35f),
                      ImVec2(p.x + font * 1.0f, p.y + font * 1.0f),
                      shown ? item.color : plot::colors::with_alpha(item.color, 50));
    plot::put_text(dl, ImVec2(p.x + font * 1.3f, p.y + font * 0.15f),
                   shown ? plot::palette().ink : plot::palette().ink_dim, item.label);
    ImGui::PopID();
  }
}

}  // namespace vigil::web::retry_ui
