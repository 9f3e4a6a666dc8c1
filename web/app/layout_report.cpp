#include "app/layout_report.hpp"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <string>
#include <vector>

namespace vigil::web::layout {

namespace {

struct Item {
  ImGuiID id = 0;
  ImRect rect;
  bool clipped = false;  // not wholly inside its window's visible area, and not to be scrolled to
  std::string label;     // empty until ItemInfo names it; unnamed items are not reported
  std::string window;
};

struct Text {
  std::string text;
  ImRect rect;
};

struct Record {
  std::vector<Item> items;
  std::vector<Text> texts;
  float content_height = 0;
};

// A page lays out a few hundred widgets at most; a runaway loop must not grow this unbounded.
constexpr std::size_t kMaxRecords = 4096;

Record g_building, g_last;

// What a label shows: "restart##swim" shows "restart"; "###id" shows nothing.
std::string shown_part(const char* label) {
  const char* end = ImGui::FindRenderedTextEnd(label);
  return std::string(label, end);
}

double css(float v, float dpr) {
  return std::round(v / dpr * 10.0) / 10.0;
}

nlohmann::json rect_json(const ImRect& r, float dpr) {
  return {{"x", css(r.Min.x, dpr)},
          {"y", css(r.Min.y, dpr)},
          {"w", css(r.GetWidth(), dpr)},
          {"h", css(r.GetHeight(), dpr)}};
}

}  // namespace

void begin_frame() {
  g_last = std::move(g_building);
  g_building = Record{};
  g_building.content_height = g_last.content_height;
}

void record_text(const char* text, ImVec2 min, ImVec2 max, ImVec4 clip) {
  if (!text || !*text || g_building.texts.size() >= kMaxRecords) return;
  ImRect r(min, max);
  r.ClipWith(ImRect(clip.x, clip.y, clip.z, clip.w));
  if (r.GetWidth() <= 0 || r.GetHeight() <= 0) return;  // clipped away: nobody sees it
  g_building.texts.push_back({text, r});
}

void set_content_height(float pixels) {
  g_building.content_height = pixels;
}
float content_height() {
  return g_building.content_height;
}

nlohmann::json report(float dpr) {
  nlohmann::json items = nlohmann::json::array();
  for (const Item& i : g_last.items) {
    if (i.label.empty()) continue;
    nlohmann::json j = rect_json(i.rect, dpr);
    j["label"] = i.label;
    j["clipped"] = i.clipped;
    j["window"] = i.window;
    items.push_back(std::move(j));
  }
  nlohmann::json texts = nlohmann::json::array();
  for (const Text& t : g_last.texts) {
    nlohmann::json j = rect_json(t.rect, dpr);
    j["text"] = t.text;
    texts.push_back(std::move(j));
  }
  return {{"content_height", static_cast<long>(std::ceil(g_last.content_height / dpr))},
          {"items", std::move(items)},
          {"texts", std::move(texts)}};
}

}  // namespace vigil::web::layout

// Dear ImGui's test-engine hooks (IMGUI_ENABLE_TEST_ENGINE in imconfig_vigil.h); ItemAdd
// reports a widget's frame (a slider's track, not its label), ItemInfo its label.
void ImGuiTestEngineHook_ItemAdd(ImGuiContext* ctx, const ImRect& bb, ImGuiID id) {
  using vigil::web::layout::g_building;
  if (g_building.items.size() >= vigil::web::layout::kMaxRecords) return;
  const ImGuiWindow* window = ctx->CurrentWindow;
  vigil::web::layout::Item item;
  item.id = id;
  item.rect = bb;
  // Cut off: outside its window's visible area in a way the reader cannot scroll to (a row of a
  // scrolling table below the fold is not cut off; a button past the right edge is).
  if (window) {
    const ImRect& clip = window->ClipRect;
    const bool out_x = bb.Min.x < clip.Min.x - 0.5f || bb.Max.x > clip.Max.x + 0.5f;
    // Selectable rows reach half the item spacing above and below their text, by design.
    const float slack_y = ctx->Style.ItemSpacing.y * 0.5f + 0.5f;
    const bool out_y = bb.Min.y < clip.Min.y - slack_y || bb.Max.y > clip.Max.y + slack_y;
    item.clipped = out_x || (out_y && window->ScrollMax.y <= 0.0f);
  }
  item.window = window ? window->Name : "";
  g_building.items.push_back(std::move(item));
}

void ImGuiTestEngineHook_ItemInfo(ImGuiContext*, ImGuiID id, const char* label,
                                  ImGuiItemStatusFlags) {
  using vigil::web::layout::g_building;
  if (!label) return;
  for (auto it = g_building.items.rbegin(); it != g_building.items.rend(); ++it)
    if (it->id == id) {
      it->label = vigil::web::layout::shown_part(label);
      return;
    }
}

void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}

const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) {
  return nullptr;
}
