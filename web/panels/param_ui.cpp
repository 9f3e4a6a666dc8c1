#include "panels/param_ui.hpp"

#include <imgui.h>

#include <cstdio>

namespace vigil::web {

bool param_slider(const ParamSpec& spec, double* v) {
  char format[16];
  std::snprintf(format, sizeof format, spec.percent ? "%%.%df %%%%" : "%%.%df", spec.digits);
  const std::string label(spec.label);
  const double k = page_scale(spec);
  const double lo = spec.view_min * k, hi = spec.view_max * k;
  double shown = *v * k;
  const bool changed = ImGui::SliderScalar(
      label.c_str(), ImGuiDataType_Double, &shown, &lo, &hi, format,
      ImGuiSliderFlags_AlwaysClamp | (spec.log ? ImGuiSliderFlags_Logarithmic : 0));
  if (changed) *v = shown / k;
  return changed;
}

bool param_slider(const ParamSpec& spec, int* v) {
  const std::string label(spec.label);
  return ImGui::SliderInt(
      label.c_str(), v, static_cast<int>(spec.view_min), static_cast<int>(spec.view_max), "%d",
      ImGuiSliderFlags_AlwaysClamp | (spec.log ? ImGuiSliderFlags_Logarithmic : 0));
}

void cli_option(std::vector<std::string>& args, const ParamSpec& spec, double value) {
  if (value == spec.def) return;
  args.push_back("--" + std::string(spec.flag));
  args.push_back(number_text(value));
}

}  // namespace vigil::web
