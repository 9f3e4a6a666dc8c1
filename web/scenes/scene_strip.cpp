#include "scenes/scene_strip.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "panels/widgets.hpp"
#include "plot/palette.hpp"

namespace vigil::web {

SceneInput draw_scene_strip(const Scene& scene, bool playing, const char* step_unit,
                            CaptionRoom& room) {
  SceneInput input;
  ImGui::PushID("scene-strip");
  // The caption is what the story says now: in the ink colour and a little larger than the
  // labels around it, so that it reads as the line to follow.
  const float width = ImGui::GetContentRegionAvail().x;
  if (width != room.width) room = {width, 0.0f};  // rewrapped: measure afresh
  ImGui::SetWindowFontScale(1.1f);
  const char* text =
      scene.started() ? scene.caption().c_str() : "The story starts when the demo is on screen.";
  // A shorter caption than the tallest so far sits on the buttons, its spare room above it.
  const float height = ImGui::CalcTextSize(text, nullptr, false, width).y;
  room.height = std::max(room.height, height);
  const float spare = room.height - height - ImGui::GetStyle().ItemSpacing.y;
  if (height < room.height && spare > 0) ImGui::Dummy(ImVec2(1.0f, spare));
  if (!scene.started())
    hint("%s", text);
  else
    ImGui::TextWrapped("%s", text);
  ImGui::SetWindowFontScale(1.0f);
  input.replay = button("replay");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("tell the story again from the start");
  input.step = row_button("step");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("pause and advance %s", step_unit);
  input.toggle_play = row_button(playing ? "pause" : "play");
  char beat[48];
  std::snprintf(beat, sizeof beat, "beat %zu of %zu", scene.beat(), scene.beats());
  same_line_if_fits(ImGui::CalcTextSize(beat).x);
  ImGui::AlignTextToFramePadding();
  ImGui::TextColored(plot::to_vec4(plot::palette().ink_dim), "%s", beat);
  ImGui::Separator();
  ImGui::PopID();
  return input;
}

}  // namespace vigil::web
