#include "ui/page_caption.hpp"

#include <imgui.h>

#include <algorithm>

namespace vigil::web {

namespace {
// The page draws captions this much larger than the labels around them (assets/app-shell.js
// uses the same factor), so that the caption reads as the line to follow.
constexpr float kCaptionScale = 1.1f;

struct Placed {
  std::string text;
  bool hint = false;
  ImVec2 min, max;            // the room left for it
  ImVec2 clip_min, clip_max;  // the part of the window that shows
};

struct Measured {
  std::string text;
  float width = 0;
  float height = 0;
};

struct PageCaption {
  bool placed = false;
  Placed now;
  Measured measured;
};
PageCaption g_caption;
}  // namespace

void page_caption_new_frame() {
  g_caption.placed = false;
}

// Browsers' line boxes are taller than ImGui's: 1.35 is the line height the page sets.
constexpr float kLineHeight = 1.35f;

float page_caption_line_height() {
  return ImGui::GetFontSize() * kCaptionScale * kLineHeight;
}

bool page_caption_measured(const std::string& text, float width) {
  return g_caption.measured.text == text && g_caption.measured.width == width &&
         g_caption.measured.height > 0;
}

float page_caption_height(const std::string& text, float width) {
  if (page_caption_measured(text, width)) return g_caption.measured.height;
  const float size = ImGui::GetFontSize() * kCaptionScale;
  const ImVec2 at_size =
      ImGui::GetFont()->CalcTextSizeA(size, FLT_MAX, width, text.c_str(), nullptr, nullptr);
  const float lines = std::max(1.0f, std::round(at_size.y / size));
  return lines * page_caption_line_height();
}

void place_page_caption(const std::string& text, bool hint, float height) {
  const float width = ImGui::GetContentRegionAvail().x;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(width, height));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  g_caption.placed = true;
  g_caption.now = {text,
                   hint,
                   at,
                   ImVec2(at.x + width, at.y + height),
                   draw->GetClipRectMin(),
                   draw->GetClipRectMax()};
}

nlohmann::json page_caption_json(float dpr) {
  if (!g_caption.placed) return nullptr;
  const Placed& p = g_caption.now;
  const auto css = [dpr](float v) { return v / dpr; };
  return {{"text", p.text},
          {"hint", p.hint},
          {"box", {css(p.min.x), css(p.min.y), css(p.max.x - p.min.x), css(p.max.y - p.min.y)}},
          {"clip", {css(p.clip_min.x), css(p.clip_min.y), css(p.clip_max.x), css(p.clip_max.y)}}};
}

void set_page_caption_height(float css_height, float dpr) {
  if (!g_caption.placed) return;
  g_caption.measured = {g_caption.now.text, g_caption.now.max.x - g_caption.now.min.x,
                        css_height * dpr};
}

}  // namespace vigil::web
