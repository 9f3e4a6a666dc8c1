#include "ui/layout_report.hpp"

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
  Text(std::string t, ImRect r) : text(std::move(t)), rect(r) {}
  std::string text;
  ImRect rect;
  const char* kind = "plot";  // "plot" (drawn by a plot), "text" (ImGui Text), "header" (a table's)
  bool cut = false;           // part of it is not shown: clipped, or shortened to "..."
  std::vector<std::string> lines;  // a wrapped text's lines, as they are drawn
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

// Cut off: outside the visible area of the window it is drawn in, in a way the reader cannot
// scroll to (a row of a scrolling table below the fold is not cut off; a label past the right
// edge is). `slack_y` forgives what ImGui itself lets reach past a row.
bool scrolls(const ImGuiWindow* window) {
  // A box with neither a scrollbar nor the wheel (the plots of a phone's column) holds still;
  // any other box scrolls to what overflows it. Not ScrollMax: that is last frame's, and a log
  // whose lines first overflow it this frame would read as cut off for one frame.
  const ImGuiWindowFlags still = ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;
  return (window->Flags & still) != still;
}

bool cut_by_window(const ImGuiWindow* window, const ImRect& bb, float slack_y) {
  if (!window) return false;
  const ImRect& clip = window->ClipRect;
  const bool out_x = bb.Min.x < clip.Min.x - 0.5f || bb.Max.x > clip.Max.x + 0.5f;
  const bool out_y = bb.Min.y < clip.Min.y - slack_y || bb.Max.y > clip.Max.y + slack_y;
  return out_x || (out_y && !scrolls(window));
}

// The lines ImGui draws a text wrapped at `wrap_width` as (ImFont::RenderText's breaks).
std::vector<std::string> wrapped_lines(const ImGuiContext& g, const char* text, const char* end,
                                       float wrap_width) {
  std::vector<std::string> lines;
  const float scale = g.FontSize / g.Font->FontSize;
  const char* s = text;
  while (s < end && lines.size() < 64) {
    const char* stop = g.Font->CalcWordWrapPositionA(scale, s, end, wrap_width);
    if (stop == s) ++stop;  // ImGui draws at least one character a line
    const char* line_end = std::find(s, stop, '\n');
    lines.emplace_back(s, line_end);
    s = line_end < stop ? line_end + 1 : stop;
    // As ImGui does: a line that was wrapped starts past the blanks after the break.
    if (line_end == stop)
      while (s < end && (*s == ' ' || *s == '\t')) ++s;
  }
  return lines;
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

void record_text(const char* text, ImVec2 min, ImVec2 max, ImVec4 clip, bool shortened) {
  if (!text || !*text || g_building.texts.size() >= kMaxRecords) return;
  const ImRect whole(min, max);
  ImRect r = whole;
  r.ClipWith(ImRect(clip.x, clip.y, clip.z, clip.w));
  if (r.GetWidth() <= 0 || r.GetHeight() <= 0) return;  // clipped away: nobody sees it
  Text t{text, r};
  t.cut = shortened || r.GetWidth() < whole.GetWidth() - 0.5f ||
          r.GetHeight() < whole.GetHeight() - 0.5f;
  g_building.texts.push_back(std::move(t));
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
    j["kind"] = t.kind;
    j["cut"] = t.cut;
    if (t.lines.size() > 1) j["lines"] = t.lines;
    texts.push_back(std::move(j));
  }
  return {{"content_height", static_cast<long>(std::ceil(g_last.content_height / dpr))},
          {"items", std::move(items)},
          {"texts", std::move(texts)}};
}

}  // namespace vigil::web::layout

// Dear ImGui's test-engine hooks (IMGUI_ENABLE_TEST_ENGINE in imconfig_vigil.h); ItemAdd
// reports a widget's frame (a slider's track, not its label), ItemInfo its label.
namespace vigil::web::layout {
namespace {

// A table header's label, which TableHeader draws after ItemAdd: shortened with "..." when its
// column is narrower than it.
void record_header(ImGuiContext& g, const ImRect& bb, ImGuiID id) {
  ImGuiTable* table = g.CurrentTable;
  const ImGuiWindow* window = g.CurrentWindow;
  if (!table || !window || !(table->RowFlags & ImGuiTableRowFlags_Headers) ||
      table->CurrentColumn < 0)
    return;
  const char* name = ImGui::TableGetColumnName(table, table->CurrentColumn);
  if (!name || !*name || id != ImHashStr(name, 0, window->IDStack.back())) return;
  const char* end = ImGui::FindRenderedTextEnd(name);
  const ImVec2 size = ImGui::CalcTextSize(name, end);
  // TableHeader laid out its label at the cursor before ItemAdd (ItemSize kept that x).
  const float x = window->DC.CursorPosPrevLine.x;
  const float y = bb.Min.y + g.Style.CellPadding.y;
  float room = bb.Max.x;
  if (table->Flags & ImGuiTableFlags_Sortable) room -= g.FontSize * 0.65f + g.Style.FramePadding.x;
  Text t{std::string(name, end), ImRect(x, y, x + size.x, y + size.y)};
  t.kind = "header";
  t.cut = x + size.x > room + 0.5f || cut_by_window(window, t.rect, 0.5f);
  t.rect.ClipWith(window->ClipRect);
  t.rect.Max.x = std::min(t.rect.Max.x, room);
  g_building.texts.push_back(std::move(t));
}

}  // namespace
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
  // Selectable rows reach half the item spacing above and below their text, by design.
  item.clipped =
      vigil::web::layout::cut_by_window(window, bb, ctx->Style.ItemSpacing.y * 0.5f + 0.5f);
  item.window = window ? window->Name : "";
  g_building.items.push_back(std::move(item));
  if (g_building.texts.size() < vigil::web::layout::kMaxRecords)
    vigil::web::layout::record_header(*ctx, bb, id);
}

// Called by ImGui's TextEx (patched in by web/CMakeLists.txt) for each Text it lays out.
void ImGuiTestEngineHook_Text(ImGuiContext* ctx, const ImRect& bb, const char* text,
                              const char* text_end, float wrap_width);
void ImGuiTestEngineHook_Text(ImGuiContext* ctx, const ImRect& bb, const char* text,
                              const char* text_end, float wrap_width) {
  using namespace vigil::web::layout;
  const ImGuiWindow* window = ctx->CurrentWindow;
  if (!window || text == text_end || g_building.texts.size() >= kMaxRecords) return;
  // A tooltip is drawn over the page on purpose.
  if (window->Flags & ImGuiWindowFlags_Tooltip) return;
  ImRect shown = bb;
  shown.ClipWith(window->ClipRect);
  const bool hidden = shown.GetWidth() <= 0 || shown.GetHeight() <= 0;
  const bool cut = cut_by_window(window, bb, 0.5f);
  if (hidden && !cut) return;  // scrolled out of view
  Text t{std::string(text, text_end), hidden ? ImRect(bb.Min, bb.Min) : shown};
  t.kind = "text";
  t.cut = cut;
  if (wrap_width > 0) t.lines = wrapped_lines(*ctx, text, text_end, wrap_width);
  g_building.texts.push_back(std::move(t));
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
