#include "scenes/scene_strip.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "ui/page_caption.hpp"
#include "ui/palette.hpp"
#include "ui/screen.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

std::string waiting_line() {
  return screen::reduced_motion() ? "The story waits for you: press play (Space)."
                                  : "The story starts when the demo is on screen.";
}

SceneInput draw_scene_strip(const Scene& scene, bool playing, const char* step_unit,
                            CaptionRoom& room) {
  SceneInput input;
  ImGui::PushID("scene-strip");
  // The caption is what the story says now. The page shows it as text over the room left here
  // (ui/page_caption.hpp), in the ink colour and a little larger than the labels around it.
  const float width = ImGui::GetContentRegionAvail().x;
  if (width != room.width) room = {width, 0.0f};  // rewrapped: measure afresh
  const std::string text = scene.started() ? scene.caption() : waiting_line();
  // The room is the tallest caption's so far: a shorter one leaves it partly empty, so that the
  // buttons under it stay where the reader's finger is.
  // A caption the page has not measured yet waits one frame in the room it has, unless the room
  // holds only estimates too.
  const float height = page_caption_height(text, width);
  if (page_caption_measured(text, width)) {
    room.height = room.measured ? std::max(room.height, height) : height;
    room.measured = true;
  } else if (!room.measured) {
    room.height = std::max(room.height, height);
  }
  place_page_caption(text, !scene.started(), room.height);
  input.replay = key_button("replay", Shortcut::kReplay, "tell the story again from the start",
                            /*first_in_row=*/true);
  char step_tip[96];
  std::snprintf(step_tip, sizeof step_tip, "pause and advance %s", step_unit);
  input.step = key_button("step", Shortcut::kStep, step_tip);
  input.toggle_play = key_button(playing ? "pause" : "play", Shortcut::kPlayPause);
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
