#pragma once

#include <imgui.h>

#include <nlohmann/json.hpp>

namespace vigil::web::layout {

// What the last frame laid out, for the browser tests that check a demo fits its width: every
// labelled widget (its frame, and whether its window clipped it) and every piece of text the
// plots drew. Widgets are recorded through Dear ImGui's test-engine hooks (ItemAdd, ItemInfo),
// so nothing a panel draws escapes the record.
void begin_frame();

// Text drawn outside ImGui's widgets (plot ticks, titles, legends, annotations), clipped to
// `clip` as it was drawn; `shortened`: cut short to fit ("a long ti...").
void record_text(const char* text, ImVec2 min, ImVec2 max, ImVec4 clip, bool shortened = false);

// The height (device pixels) the content needs at the current width: set by the demo's layout
// each frame; the page sizes the canvas or the embedding frame to it.
void set_content_height(float pixels);
float content_height();

// The record in CSS pixels (device pixels / dpr).
nlohmann::json report(float dpr);

}  // namespace vigil::web::layout
