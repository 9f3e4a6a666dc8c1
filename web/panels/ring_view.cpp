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

ImU32 rumour_color(int k) {
  const auto& p = plot::palette();
  return k == 0 ? p.suspect : k == 1 ? p.alive : p.dead;
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

struct LegendEntry {
  const char* label;
  int kind;  // 0..4 glyphs, 5..7 rumour badges, 8 lost, 9 cut
};
constexpr LegendEntry kLegend[] = {{"ping", 0},      {"ack", 1},     {"ping-req", 2}, {"nack", 3},
                                   {"push-pull", 4}, {"suspect", 5}, {"alive", 6},    {"dead", 7},
                                   {"lost", 8},      {"cut link", 9}};

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

ImU32 look_color(Look look) {
  const auto& p = plot::palette();
  switch (look) {
    case Look::alive:
      return p.alive;
    case Look::suspect:
      return p.suspect;
    case Look::dead:
      return p.dead;
    case Look::left:
      return p.left;
    case Look::unknown:
      return p.unknown;
  }
  return p.unknown;
}

const char* look_name(Look look) {
  switch (look) {
    case Look::alive:
      return "alive";
    case Look::suspect:
      return "suspect";
    case Look::dead:
      return "dead";
    case Look::left:
      return "left";
    case Look::unknown:
      return "unknown";
  }
  return "unknown";
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

  const int n = static_cast<int>(model.members.size());
  const float font = ImGui::GetFontSize();
  const ImVec2 centre(origin.x + size.x * 0.5f, origin.y + size.y * 0.5f);
  // Room outside the circle for each member's label: its name and incarnation on two lines, or
  // just its number in a crowded ring.
  const bool long_names = n <= 16;
  const auto short_name = [&](const std::string& name) {  // "node-17" -> "17"
    const auto dash = name.rfind('-');
    return dash == std::string::npos ? name.c_str() : name.c_str() + dash + 1;
  };
  float label_w = 0;
  for (const Member& m : model.members)
    label_w =
        std::max(label_w, ImGui::CalcTextSize(long_names ? m.name.c_str() : short_name(m.name)).x);
  const float label_h = font * (long_names ? 2.0f : 1.0f);
  const float gap = font * 0.25f;
  // The members' size depends on the radius and the radius on their size: estimate with the
  // largest disc, then settle.
  float member_r = font * 1.1f;
  float radius = 10.0f;
  for (int pass = 0; pass < 2; ++pass) {
    radius = std::max(10.0f, std::min(size.x * 0.5f - member_r - gap - label_w,
                                      size.y * 0.5f - member_r - gap - label_h) -
                                 font * 0.2f);
    const float spacing_now = n > 0 ? 2 * kPi * radius / static_cast<float>(n) : radius;
    member_r = std::clamp(spacing_now * 0.3f, 5.0f * screen::dpr(), font * 1.1f);
  }
  const float spacing = n > 0 ? 2 * kPi * radius / static_cast<float>(n) : radius;
  const float packet_r = std::clamp(member_r * 0.5f, 3.5f * screen::dpr(), font * 0.6f);

  out.member_centres.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const float a = -kPi / 2 + 2 * kPi * static_cast<float>(i) / static_cast<float>(std::max(n, 1));
    out.member_centres[static_cast<std::size_t>(i)] =
        ImVec2(centre.x + radius * std::cos(a), centre.y + radius * std::sin(a));
  }
  const auto at = [&](int i) { return out.member_centres[static_cast<std::size_t>(i)]; };
  const auto valid = [&](int i) { return i >= 0 && i < n; };

  // The circle the members sit on, faint: a ring, not a wheel of spokes.
  dl->AddCircle(centre, radius, pal.grid, 96, 1.0f);

  // Cut links: a dashed red line broken in the middle, once per pair however many ways it is cut.
  {
    std::set<std::pair<int, int>> drawn;
    const float thick = std::max(1.5f, 1.5f * screen::dpr());
    for (const Cut& c : model.cuts) {
      if (!valid(c.from) || !valid(c.to) || c.from == c.to) continue;
      const auto key = std::minmax(c.from, c.to);
      if (!drawn.insert(key).second || drawn.size() > 128) continue;
      ImVec2 a = at(c.from), b = at(c.to);
      a = lerp(a, b, member_r * 1.2f / std::max(1.0f, std::hypot(b.x - a.x, b.y - a.y)));
      b = lerp(b, a, member_r * 1.2f / std::max(1.0f, std::hypot(b.x - a.x, b.y - a.y)));
      dashed_line(dl, a, b, plot::colors::with_alpha(pal.red, 200), thick, 5.0f * screen::dpr(),
                  0.42f, 0.58f);
    }
  }

  // Members.
  char text[64];
  for (int i = 0; i < n; ++i) {
    const Member& m = model.members[static_cast<std::size_t>(i)];
    const ImVec2 c = at(i);
    // A crashed member keeps the colour the cluster sees it in (alive until detected, then
    // dead): the cross says the process is gone, the colour what the others believe.
    const ImU32 fill = look_color(m.state);
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
    // The label outside the circle, its box touching the member from outside.
    const ImVec2 dir((c.x - centre.x) / radius, (c.y - centre.y) / radius);
    const char* name = long_names ? m.name.c_str() : short_name(m.name);
    const float w = ImGui::CalcTextSize(name).x;
    const ImVec2 label_c(c.x + dir.x * (member_r + gap + w * 0.5f),
                         c.y + dir.y * (member_r + gap + label_h * 0.5f));
    if (long_names) {
      std::snprintf(text, sizeof text, "%s", name);
      text_at(dl, ImVec2(label_c.x, label_c.y - font * 0.45f), pal.ink, text);
      std::snprintf(text, sizeof text, "#%u", m.incarnation);
      text_at(dl, ImVec2(label_c.x, label_c.y + font * 0.5f), pal.ink_dim, text);
    } else {
      text_at(dl, label_c, pal.ink, name);
    }
  }

  // Packets in flight, and the dropped ones falling away.
  const bool labels = n <= 12 && radius > font * 7;
  for (const Flight& f : model.flights) {
    if (!valid(f.from) || !valid(f.to)) continue;
    double t = 0;
    if (!flight_visible(f, model.now_ms, &t)) continue;
    const ImVec2 a = at(f.from), b = at(f.to);
    const Glyph g = glyph_of(f.kind, f.stream);
    ImVec2 p;
    int alpha = 255;
    const bool dropped = f.fate != Fate::delivered;
    // Reduced motion: a datagram shows in two places, leaving and arriving (or stopped where
    // it was lost), instead of gliding.
    const bool still = screen::reduced_motion();
    if (still) t = t < 0.5 ? 0.25 : (dropped ? 0.5 : 0.75);
    if (dropped && t >= 0.5 && still) {
      p = path_point(a, b, 0.5f);
    } else if (dropped && t > 0.5) {
      // It stops halfway, then falls and fades.
      const float fall = static_cast<float>((t - 0.5) * 2.0);
      p = path_point(a, b, 0.5f);
      p.y += fall * member_r * 2.5f;
      alpha = static_cast<int>(255 * (1.0f - fall * 0.8f));
    } else {
      p = path_point(a, b, static_cast<float>(t));
    }
    draw_glyph(dl, p, packet_r, g, plot::colors::with_alpha(g.color, alpha));
    // Piggybacked news: a badge per kind trailing the packet.
    float bx = p.x + packet_r * 1.5f;
    for (int k = 0; k < 3; ++k) {
      if (!f.rumours[static_cast<std::size_t>(k)]) continue;
      const float s = packet_r * 0.9f;
      dl->AddRectFilled(ImVec2(bx, p.y - packet_r - s),
                        ImVec2(bx + s * 2, p.y - packet_r + s * 0.6f),
                        plot::colors::with_alpha(rumour_color(k), alpha), 1.0f);
      dl->AddRect(ImVec2(bx, p.y - packet_r - s), ImVec2(bx + s * 2, p.y - packet_r + s * 0.6f),
                  plot::colors::with_alpha(pal.area_bg, alpha), 1.0f);
      bx += s * 2 + 1;
    }
    if (dropped && t >= 0.5) {
      const ImVec2 stop = path_point(a, b, 0.5f);
      draw_cross(dl, stop, packet_r * 1.1f, f.fate == Fate::blocked ? pal.red : pal.ink_dim,
                 std::max(1.5f, packet_r * 0.4f));
    }
    if (labels) {
      // Moving labels cross each other by nature; they are not part of the layout record.
      dl->AddText(ImGui::GetFont(), font * 0.8f, ImVec2(p.x + packet_r * 1.4f, p.y - font * 0.1f),
                  plot::colors::with_alpha(pal.ink_dim, alpha), g.label);
    }
  }

  // Each member a button the size of a fingertip (or of its share of the circle, if smaller), so
  // that a touch between members still scrolls the page.
  const float hit =
      std::max(member_r * 2.2f, std::min(kFingerCss * screen::dpr(), spacing * 0.95f));
  for (int i = 0; i < n; ++i) {
    const ImVec2 c = at(i);
    ImGui::SetCursorScreenPos(ImVec2(c.x - hit * 0.5f, c.y - hit * 0.5f));
    ImGui::PushID(id);
    ImGui::PushID(i);
    if (ImGui::InvisibleButton("##member", ImVec2(hit, hit))) out.clicked = i;
    if (ImGui::IsItemHovered()) {
      const Member& m = model.members[static_cast<std::size_t>(i)];
      ImGui::SetTooltip("%s: %s #%u%s%s", m.name.c_str(), look_name(m.state), m.incarnation,
                        m.up ? "" : ", crashed", m.paused ? ", paused" : "");
    }
    ImGui::PopID();
    ImGui::PopID();
  }
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
    switch (e.kind) {
      case 0:
        draw_glyph(dl, c, swatch, glyph_of(PacketKind::ping, false), pal.blue);
        break;
      case 1:
        draw_glyph(dl, c, swatch, glyph_of(PacketKind::ack, false), pal.blue);
        break;
      case 2:
        draw_glyph(dl, c, swatch, glyph_of(PacketKind::ping_req, false), pal.purple);
        break;
      case 3:
        draw_glyph(dl, c, swatch, glyph_of(PacketKind::nack, false), pal.purple);
        break;
      case 4:
        draw_glyph(dl, c, swatch, glyph_of(PacketKind::push_pull, true), pal.grey);
        break;
      case 5:
      case 6:
      case 7:
        dl->AddRectFilled(ImVec2(c.x - swatch, c.y - swatch * 0.6f),
                          ImVec2(c.x + swatch, c.y + swatch * 0.6f), rumour_color(e.kind - 5),
                          1.0f);
        break;
      case 8:
        draw_cross(dl, c, swatch * 0.9f, pal.ink_dim, std::max(1.5f, swatch * 0.35f));
        break;
      case 9:
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
