#pragma once

#include <string>

#include "scenes/scene.hpp"

namespace vigil::web {

// The tallest caption so far at this width: a shorter caption leaves its space empty, so that
// the buttons under it stay where the reader's finger is.
struct CaptionRoom {
  float width = 0;
  float height = 0;
  bool measured = false;  // the height comes from the page's measure, not ImGui's estimate
};

// What a scene that has not started says in place of its caption: that it waits for the demo to
// be on screen, or for the reader to press play when they asked for reduced motion.
std::string waiting_line();

// What the reader asked of a scene this frame.
struct SceneInput {
  bool replay = false;
  bool step = false;
  bool toggle_play = false;
};

// The strip a scripted demo shows above its plots: the caption, wrapped to the width (a phone's
// 320 px included), then `replay`, `step`, `pause`/`play` and "beat k of n". `step_unit` says
// in the step button's tooltip what one step is in this demo.
SceneInput draw_scene_strip(const Scene& scene, bool playing, const char* step_unit,
                            CaptionRoom& room);

}  // namespace vigil::web
