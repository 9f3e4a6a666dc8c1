#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace vigil::web {

// A scene's caption is HTML text that the page lays over the canvas, so that it can be read
// aloud, selected, searched and translated like the rest of the page. The app leaves room for
// it where the caption belongs and tells the page where that is; the page sets the text at that
// width and reports the height it took, which the room follows from the next frame on.

// Called once per frame: a caption not placed again in this frame is taken off the page.
void page_caption_new_frame();

// The height (device pixels) that `text` takes at `width`: what the page measured for it, or an
// estimate from ImGui's font until the page has.
float page_caption_height(const std::string& text, float width);

// One line of caption text, device pixels.
float page_caption_line_height();

// Whether page_caption_height is the page's measure rather than an estimate.
bool page_caption_measured(const std::string& text, float width);

// Leaves room for the caption at the cursor, the whole width available and `height` tall, and
// publishes it. `hint`: a line about the story rather than the story (drawn dimmer).
void place_page_caption(const std::string& text, bool hint, float height);

// What the page shows this frame: text, hint, box and visible part (CSS pixels of the canvas);
// null when no caption.
nlohmann::json page_caption_json(float dpr);

// The page's measure of the caption it shows now, CSS pixels.
void set_page_caption_height(float css_height, float dpr);

}  // namespace vigil::web
