#pragma once

#include <imgui.h>

namespace vigil::web {

// Small ImGui helpers every panel uses.
inline void section(const char* title) {
  ImGui::Spacing();
  ImGui::TextColored(ImVec4(0.65f, 0.75f, 1.0f, 1.0f), "%s", title);
  ImGui::Separator();
}

inline bool slider(const char* label, double* v, double lo, double hi, const char* fmt) {
  return ImGui::SliderScalar(label, ImGuiDataType_Double, v, &lo, &hi, fmt, ImGuiSliderFlags_AlwaysClamp);
}

}  // namespace vigil::web
