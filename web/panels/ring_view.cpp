#include "panels/ring_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <set>
#include <utility>

#include "ui/palette.hpp"
#include "ui/plot.hpp"
#include "ui/screen.hpp"

namespace vigil::web::ring {

namespace {

using wire::PacketKind;

constexpr float kPi = std::numbers::pi_v<float>;
// A finger needs about this much (CSS px) to hit a member without hitting its neighbour.
constexpr float kFingerCss = 44.0f;

ImVec2 lerp(ImVec2 a, ImVec2 b, float t) {
  return ImVec2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
}

// Packets bow to the right of their direction of travel, so that a ping and its ack (the same two
// members, opposite ways) take different arcs instead of hiding each other on one chord.
ImVec2 path_point(ImVec2 a, ImVec2 b, float t) {
  const ImVec2 mid = lerp(a, b, 0.5f);
  const ImVec2 d(b.x - a.x, b.y - a.y);
  const ImVec2 ctrl(mid.x - d.y * 0.14f, mid.y + d.x * 0.14f);
  const float u = 1.0f - t;
  return ImVec2(u * u * a.x + 2 * u * t * ctrl.x + t * t * b.x,
                u * u * a.y + 2 * u * t * ctrl.y + t * t * b.y);
}

struct Glyph {
  ImU32 color;
  enum Shape { circle, ring, diamond, hollow_diamond, square } shape;
  const char* label;
};

Glyph glyph_of(PacketKind kind, bool stream) {
  const auto& p = plot::palette();
  if (stream || kind == PacketKind::push_pull) return {p.grey, Glyph::square, "sync"};
  switch (kind) {
    case PacketKind::ping:
      return {p.blue, Glyph::circle, "ping"};
    case PacketKind::ack:
      return {p.blue, Glyph::ring, "ack"};
    case PacketKind::ping_req:
      return {p.purple, Glyph::diamond, "req"};
    case PacketKind::nack:
      return {p.purple, Glyph::hollow_diamond, "nack"};
    case PacketKind::suspect:
      return {p.suspect, Glyph::circle, "news"};
    case PacketKind::alive:
      return {p.alive, Glyph::circle, "news"};
    case PacketKind::dead:
      return {p.dead, Glyph::circle, "news"};
    default:
      return {p.grey, Glyph::circle, "?"};
  }
}

void draw_glyph(ImDrawList* dl, ImVec2 c, float r, const Glyph& g, ImU32 color) {
  const float thick = std::max(1.5f, r * 0.35f);
  switch (g.shape) {
    case Glyph::circle:
      dl->AddCircleFilled(c, r, color);
      break;
    case Glyph::ring:
      dl->AddCircle(c, r - thick * 0.5f, color, 0, thick);
      break;
    case Glyph::diamond:
      dl->AddQuadFilled(ImVec2(c.x, c.y - r * 1.25f), ImVec2(c.x + r * 1.25f, c.y),
                        ImVec2(c.x, c.y + r * 1.25f), ImVec2(c.x - r * 1.25f, c.y), color);
      break;
    case Glyph::hollow_diamond:
      dl->AddQuad(ImVec2(c.x, c.y - r * 1.25f), ImVec2(c.x + r * 1.25f, c.y),
                  ImVec2(c.x, c.y + r * 1.25f), ImVec2(c.x - r * 1.25f, c.y), color, thick);
      break;
    case Glyph::square:
      dl->AddRectFilled(ImVec2(c.x - r, c.y - r), ImVec2(c.x + r, c.y + r), color, r * 0.25f);
      break;
  }
}

ImU32 rumour_color(std::size_t slot) {
  return state_color(kRumourStates[slot]);
}

void draw_cross(ImDrawList* dl, ImVec2 c, float r, ImU32 color, float thick) {
  dl->AddLine(ImVec2(c.x - r, c.y - r), ImVec2(c.x + r, c.y + r), color, thick);
  dl->AddLine(ImVec2(c.x - r, c.y + r), ImVec2(c.x + r, c.y - r), color, thick);
}

void dashed_line(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 color, float thick, float dash,
                 float gap_from, float gap_to) {
  const float len = std::hypot(b.x - a.x, b.y - a.y);
  if (len < 1) return;
  for (float s = 0; s < len; s += dash * 2) {
    float s0 = s / len, s1 = std::min(s + dash, len) / len;
    // A gap around the middle: the link is broken there.
    if (s1 > gap_from && s0 < gap_to) {
      if (s0 < gap_from)
        s1 = gap_from;
      else if (s1 > gap_to)
        s0 = gap_to;
      else
        continue;
    }
    dl->AddLine(lerp(a, b, s0), lerp(a, b, s1), color, thick);
  }
}

void text_at(ImDrawList* dl, ImVec2 centre, ImU32 color, const char* text) {
  const ImVec2 size = ImGui::CalcTextSize(text);
  plot::put_text(dl,
                 ImVec2(std::round(centre.x - size.x * 0.5f), std::round(centre.y - size.y * 0.5f)),
                 color, text);
}

// What a legend entry shows: a packet's glyph, a rumour's badge, a lost packet's cross or a cut.
enum class Swatch : std::uint8_t { glyph, rumour, lost, cut };

struct LegendEntry {
  const char* label;
  Swatch swatch;
  PacketKind kind = PacketKind::unknown;  // of a glyph
  std::size_t rumour = 0;                 // of a badge: its slot in kRumourStates
};
const LegendEntry kLegend[] = {{"ping", Swatch::glyph, PacketKind::ping},
                               {"ack", Swatch::glyph, PacketKind::ack},
                               {"ping-req", Swatch::glyph, PacketKind::ping_req},
                               {"nack", Swatch::glyph, PacketKind::nack},
                               {"push-pull", Swatch::glyph, PacketKind::push_pull},
                               {"suspect", Swatch::rumour, PacketKind::unknown, 0},
                               {"alive", Swatch::rumour, PacketKind::unknown, 1},
                               {"dead", Swatch::rumour, PacketKind::unknown, 2},
                               {"lost", Swatch::lost},
                               {"cut link", Swatch::cut}};

float entry_width(const LegendEntry& e, float swatch) {
  return swatch * 2.6f + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(e.label).x +
         ImGui::GetStyle().ItemSpacing.x * 2;
}

int legend_rows(float width, float swatch) {
  int rows = 1;
  float x = 0;
  for (const auto& e : kLegend) {
    const float w = entry_width(e, swatch);
    if (x > 0 && x + w > width) {
      ++rows;
      x = 0;
    }
    x += w;
  }
  return rows;
}

}  // namespace

ImU32 state_color(Look look) {
  const auto& p = plot::palette();
  if (!look) return p.unknown;
  switch (*look) {
    case view::MemberState::alive:
      return p.alive;
    case view::MemberState::suspect:
      return p.suspect;
    case view::MemberState::dead:
      return p.dead;
    case view::MemberState::left:
      return p.left;
  }
  return p.unknown;
}

bool flight_visible(const Flight& f, double now_ms, double* progress) {
  const double span = std::max(1e-6, f.arrive_ms - f.sent_ms);
  const double t = (now_ms - f.sent_ms) / span;
  if (progress) *progress = std::clamp(t, 0.0, 1.0);
  return t >= 0 && t < 1.0;
}

bool flight_in_air(const Flight& f, double now_ms) {
  double t = 0;
  if (!flight_visible(f, now_ms, &t)) return false;
  return f.fate == Fate::delivered || t < 0.5;
}

namespace {

// Where everything sits: the circle, the members on it and their sizes.
struct RingLayout {
  ImVec2 centre{0, 0};
  float radius = 10.0f;
  float member_r = 0, packet_r = 0;
  float spacing = 0;  // between neighbours along the circle
  float font = 0, label_h = 0, gap = 0;
  bool long_names = true;  // name and incarnation, or just the name's number
  std::vector<ImVec2> centres;

  int count() const { return static_cast<int>(centres.size()); }
  bool valid(int i) const { return i >= 0 && i < count(); }
  ImVec2 at(int i) const { return centres[static_cast<std::size_t>(i)]; }
};

const char* short_name(const std::string& name) {  // "node-17" -> "17"
  const auto dash = name.rfind('-');
  return dash == std::string::npos ? name.c_str() : name.c_str() + dash + 1;
}

RingLayout layout_ring(ImVec2 origin, ImVec2 size, const Model& model) {
  RingLayout l;
  const int n = static_cast<int>(model.members.size());
  l.font = ImGui::GetFontSize();
  l.centre = ImVec2(origin.x + size.x * 0.5f, origin.y + size.y * 0.5f);
  // Room outside the circle for each member's label: its name and incarnation on two lines, or
  // just its number in a crowded ring.
  l.long_names = n <= 16;
  float label_w = 0;
  for (const Member& m : model.members)
    label_w = std::max(label_w,
                       ImGui::CalcTextSize(l.long_names ? m.name.c_str() : short_name(m.name)).x);
  l.label_h = l.font * (l.long_names ? 2.0f : 1.0f);
  l.gap = l.font * 0.25f;
  // The members' size depends on the radius and the radius on their size: estimate with the
  // largest disc, then settle.
  l.member_r = l.font * 1.1f;
  for (int pass = 0; pass < 2; ++pass) {
    l.radius = std::max(10.0f, std::min(size.x * 0.5f - l.member_r - l.gap - label_w,
                                        size.y * 0.5f - l.member_r - l.gap - l.label_h) -
                                   l.font * 0.2f);
    const float spacing_now = n > 0 ? 2 * kPi * l.radius / static_cast<float>(n) : l.radius;
    l.member_r = std::clamp(spacing_now * 0.3f, 5.0f * screen::dpr(), l.font * 1.1f);
  }
  l.spacing = n > 0 ? 2 * kPi * l.radius / static_cast<float>(n) : l.radius;
  l.packet_r = std::clamp(l.member_r * 0.5f, 3.5f * screen::dpr(), l.font * 0.6f);
  l.centres.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const float a = -kPi / 2 + 2 * kPi * static_cast<float>(i) / static_cast<float>(std::max(n, 1));
    l.centres[static_cast<std::size_t>(i)] =
        ImVec2(l.centre.x + l.radius * std::cos(a), l.centre.y + l.radius * std::sin(a));
  }
  return l;
}

// Cut links: a dashed red line broken in the middle, once per pair however many ways it is cut.
void draw_cuts(ImDrawList* dl, const RingLayout& l, const std::vector<Cut>& cuts) {
  std::set<std::pair<int, int>> drawn;
  const float thick = std::max(1.5f, 1.5f * screen::dpr());
  for (const Cut& c : cuts) {
    if (!l.valid(c.from) || !l.valid(c.to) || c.from == c.to) continue;
    const auto key = std::minmax(c.from, c.to);
    if (!drawn.insert(key).second || drawn.size() > 128) continue;
    ImVec2 a = l.at(c.from), b = l.at(c.to);
    a = lerp(a, b, l.member_r * 1.2f / std::max(1.0f, std::hypot(b.x - a.x, b.y - a.y)));
    b = lerp(b, a, l.member_r * 1.2f / std::max(1.0f, std::hypot(b.x - a.x, b.y - a.y)));
    dashed_line(dl, a, b, plot::colors::with_alpha(plot::palette().red, 200), thick,
                5.0f * screen::dpr(), 0.42f, 0.58f);
  }
}

// A member's label outside the circle, its box touching the member from outside.
void draw_member_label(ImDrawList* dl, const RingLayout& l, const Member& m, ImVec2 c) {
  const auto& pal = plot::palette();
  const ImVec2 dir((c.x - l.centre.x) / l.radius, (c.y - l.centre.y) / l.radius);
  const char* name = l.long_names ? m.name.c_str() : short_name(m.name);
  const float w = ImGui::CalcTextSize(name).x;
  const ImVec2 label_c(c.x + dir.x * (l.member_r + l.gap + w * 0.5f),
                       c.y + dir.y * (l.member_r + l.gap + l.label_h * 0.5f));
  if (!l.long_names) return text_at(dl, label_c, pal.ink, name);
  char text[64];
  std::snprintf(text, sizeof text, "%s", name);
  text_at(dl, ImVec2(label_c.x, label_c.y - l.font * 0.45f), pal.ink, text);
  std::snprintf(text, sizeof text, "#%u", m.incarnation);
  text_at(dl, ImVec2(label_c.x, label_c.y + l.font * 0.5f), pal.ink_dim, text);
}

void draw_members(ImDrawList* dl, const RingLayout& l, const Model& model) {
  const auto& pal = plot::palette();
  const float member_r = l.member_r;
  for (int i = 0; i < l.count(); ++i) {
    const Member& m = model.members[static_cast<std::size_t>(i)];
    const ImVec2 c = l.at(i);
    // A crashed member keeps the colour the cluster sees it in (alive until detected, then
    // dead): the cross says the process is gone, the colour what the others believe.
    const ImU32 fill = state_color(m.state);
    if (i == model.selected)
      dl->AddCircle(c, member_r + 4.0f * screen::dpr(), pal.accent, 0, 2.5f * screen::dpr());
    dl->AddCircleFilled(c, member_r, fill);
    dl->AddCircle(c, member_r, pal.axis, 0, 1.0f);
    if (i == model.observer) {  // an eye: whose view the colours are
      const float r = member_r * 0.55f;
      dl->AddCircleFilled(c, r, pal.area_bg, 16);
      dl->AddCircleFilled(c, r * 0.45f, pal.ink, 12);
    }
    if (!m.up) draw_cross(dl, c, member_r * 0.6f, pal.cell_ink, std::max(1.5f, member_r * 0.18f));
    if (m.up && m.paused) {  // a pause sign: two bars
      const float w = member_r * 0.22f, h = member_r * 0.55f;
      dl->AddRectFilled(ImVec2(c.x - w * 2, c.y - h), ImVec2(c.x - w * 0.6f, c.y + h),
                        pal.cell_ink);
      dl->AddRectFilled(ImVec2(c.x + w * 0.6f, c.y - h), ImVec2(c.x + w * 2, c.y + h),
                        pal.cell_ink);
    }
    draw_member_label(dl, l, m, c);
  }
}

// Where a flight is drawn at progress t, and how opaque: a dropped one stops halfway, then falls
// and fades. Reduced motion: a datagram shows in two places, leaving and arriving (or stopped
// where it was lost), instead of gliding; `t` is snapped to them.
ImVec2 flight_point(const RingLayout& l, const Flight& f, double& t, int& alpha) {
  const ImVec2 a = l.at(f.from), b = l.at(f.to);
  const bool dropped = f.fate != Fate::delivered;
  const bool still = screen::reduced_motion();
  alpha = 255;
  if (still) t = t < 0.5 ? 0.25 : (dropped ? 0.5 : 0.75);
  if (dropped && t >= 0.5 && still) return path_point(a, b, 0.5f);
  if (dropped && t > 0.5) {
    const float fall = static_cast<float>((t - 0.5) * 2.0);
    ImVec2 p = path_point(a, b, 0.5f);
    p.y += fall * l.member_r * 2.5f;
    alpha = static_cast<int>(255 * (1.0f - fall * 0.8f));
    return p;
  }
  return path_point(a, b, static_cast<float>(t));
}

// Piggybacked news: a badge per state trailing the packet.
void draw_rumour_badges(ImDrawList* dl, const Flight& f, ImVec2 p, float packet_r, int alpha) {
  float bx = p.x + packet_r * 1.5f;
  for (std::size_t k = 0; k < kRumourStates.size(); ++k) {
    if (!f.rumours[k]) continue;
    const float s = packet_r * 0.9f;
    dl->AddRectFilled(ImVec2(bx, p.y - packet_r - s), ImVec2(bx + s * 2, p.y - packet_r + s * 0.6f),
                      plot::colors::with_alpha(rumour_color(k), alpha), 1.0f);
    dl->AddRect(ImVec2(bx, p.y - packet_r - s), ImVec2(bx + s * 2, p.y - packet_r + s * 0.6f),
                plot::colors::with_alpha(plot::palette().area_bg, alpha), 1.0f);
    bx += s * 2 + 1;
  }
}

// Packets in flight, and the dropped ones falling away.
void draw_flights(ImDrawList* dl, const RingLayout& l, const Model& model) {
  const auto& pal = plot::palette();
  const bool labels = l.count() <= 12 && l.radius > l.font * 7;
  for (const Flight& f : model.flights) {
    if (!l.valid(f.from) || !l.valid(f.to)) continue;
    double t = 0;
    if (!flight_visible(f, model.now_ms, &t)) continue;
    const Glyph g = glyph_of(f.kind, f.stream);
    int alpha = 255;
    const ImVec2 p = flight_point(l, f, t, alpha);
    draw_glyph(dl, p, l.packet_r, g, plot::colors::with_alpha(g.color, alpha));
    draw_rumour_badges(dl, f, p, l.packet_r, alpha);
    if (f.fate != Fate::delivered && t >= 0.5) {
      const ImVec2 stop = path_point(l.at(f.from), l.at(f.to), 0.5f);
      draw_cross(dl, stop, l.packet_r * 1.1f, f.fate == Fate::blocked ? pal.red : pal.ink_dim,
                 std::max(1.5f, l.packet_r * 0.4f));
    }
    if (labels) {
      // Moving labels cross each other by nature; they are not part of the layout record.
      dl->AddText(ImGui::GetFont(), l.font * 0.8f,
                  ImVec2(p.x + l.packet_r * 1.4f, p.y - l.font * 0.1f),
                  plot::colors::with_alpha(pal.ink_dim, alpha), g.label);
    }
  }
}

// Each member a button the size of a fingertip (or of its share of the circle, if smaller), so
// that a touch between members still scrolls the page. Returns the member clicked, or -1.
int member_buttons(const char* id, const RingLayout& l, const Model& model) {
  int clicked = -1;
  const float hit =
      std::max(l.member_r * 2.2f, std::min(kFingerCss * screen::dpr(), l.spacing * 0.95f));
  for (int i = 0; i < l.count(); ++i) {
    const ImVec2 c = l.at(i);
    ImGui::SetCursorScreenPos(ImVec2(c.x - hit * 0.5f, c.y - hit * 0.5f));
    ImGui::PushID(id);
    ImGui::PushID(i);
    if (ImGui::InvisibleButton("##member", ImVec2(hit, hit))) clicked = i;
    if (ImGui::IsItemHovered()) {
      const Member& m = model.members[static_cast<std::size_t>(i)];
      ImGui::SetTooltip("%s: %s #%u%s%s", m.name.c_str(),
                        std::string(view::state_name(m.state)).c_str(), m.incarnation,
                        m.up ? "" : ", crashed", m.paused ? ", paused" : "");
    }
    ImGui::PopID();
    ImGui::PopID();
  }
  return clicked;
}

}  // namespace

Result draw(const char* id, ImVec2 size, const Model& model) {
  Result out;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
  if (size.y <= 0) size.y = ImGui::GetContentRegionAvail().y;
  size.x = std::max(size.x, 40.0f);
  size.y = std::max(size.y, 40.0f);
  out.min = origin;
  out.max = ImVec2(origin.x + size.x, origin.y + size.y);
  const auto& pal = plot::palette();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(out.min, out.max, pal.area_bg, 4.0f);

  const RingLayout layout = layout_ring(origin, size, model);
  out.member_centres = layout.centres;
  // The circle the members sit on, faint: a ring, not a wheel of spokes.
  dl->AddCircle(layout.centre, layout.radius, pal.grid, 96, 1.0f);
  draw_cuts(dl, layout, model.cuts);
  draw_members(dl, layout, model);
  draw_flights(dl, layout, model);
  out.clicked = member_buttons(id, layout, model);
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(size);
  return out;
}

float legend_height(float width) {
  const float swatch = ImGui::GetFontSize() * 0.4f;
  return static_cast<float>(legend_rows(width, swatch)) * ImGui::GetTextLineHeightWithSpacing();
}

void draw_legend(float width) {
  const auto& pal = plot::palette();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float font = ImGui::GetFontSize();
  const float swatch = font * 0.4f;
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  float x = 0, y = 0;
  for (const auto& e : kLegend) {
    const float w = entry_width(e, swatch);
    if (x > 0 && x + w > width) {
      x = 0;
      y += line;
    }
    const ImVec2 c(origin.x + x + swatch * 1.2f, origin.y + y + font * 0.5f);
    switch (e.swatch) {
      case Swatch::glyph: {
        const Glyph g = glyph_of(e.kind, e.kind == PacketKind::push_pull);
        draw_glyph(dl, c, swatch, g, g.color);
        break;
      }
      case Swatch::rumour:
        dl->AddRectFilled(ImVec2(c.x - swatch, c.y - swatch * 0.6f),
                          ImVec2(c.x + swatch, c.y + swatch * 0.6f), rumour_color(e.rumour), 1.0f);
        break;
      case Swatch::lost:
        draw_cross(dl, c, swatch * 0.9f, pal.ink_dim, std::max(1.5f, swatch * 0.35f));
        break;
      case Swatch::cut:
        dashed_line(dl, ImVec2(c.x - swatch * 1.2f, c.y), ImVec2(c.x + swatch * 1.2f, c.y), pal.red,
                    std::max(1.5f, swatch * 0.3f), swatch * 0.45f, 0.45f, 0.55f);
        break;
    }
    plot::put_text(
        dl,
        ImVec2(origin.x + x + swatch * 2.6f + ImGui::GetStyle().ItemInnerSpacing.x, origin.y + y),
        pal.ink, e.label);
    x += w;
  }
  ImGui::Dummy(ImVec2(width, y + line));
}

}  // namespace vigil::web::ring
