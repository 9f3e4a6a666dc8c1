#pragma once

#include <imgui.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <vigil/view/member_state.hpp>
#include <vigil/wire/packet_summary.hpp>

// Members of a SWIM cluster on a circle and the packets between them in flight, in the manner of
// RaftScope: each datagram a small glyph travelling from its sender to its receiver over its
// flight time, shaped and coloured by what it is (ping, ack, ping-req, nack, push-pull), with the
// membership news it piggybacks (suspect, alive, dead) as badges. Lost datagrams stop halfway and
// fall away, marked with a cross; cut links are drawn broken. The input is a plain model, so a
// simulated cluster and real agents are drawn alike.
namespace vigil::web::ring {

// A member as someone sees it: one of the member states, or nothing when that observer does not
// know it (drawn grey).
using Look = std::optional<view::MemberState>;

// The member states a rumour can carry, in the order Flight::rumours counts them.
inline constexpr std::array<view::MemberState, 3> kRumourStates = {
    view::MemberState::suspect, view::MemberState::alive, view::MemberState::dead};

struct Member {
  std::string name;
  Look state = view::MemberState::alive;
  bool up = true;       // false: the process is gone (crashed)
  bool paused = false;  // stopped for a while (a GC pause, SIGSTOP)
  std::uint32_t incarnation = 0;
};

enum class Fate : std::uint8_t { delivered, dropped, blocked };

struct Flight {
  int from = 0, to = 0;               // member indices
  double sent_ms = 0, arrive_ms = 0;  // a dropped packet's arrive_ms: when it would have arrived
  wire::PacketKind kind = wire::PacketKind::unknown;
  // Piggybacked news by the state it claims, in kRumourStates' order.
  std::array<std::uint8_t, 3> rumours{0, 0, 0};
  Fate fate = Fate::delivered;
  bool stream = false;  // a push-pull exchange over a stream
};

// A one-way cut: nothing passes from -> to.
struct Cut {
  int from = 0, to = 0;
};

struct Model {
  std::vector<Member> members;
  std::vector<Flight> flights;  // those worth drawing now; others are skipped
  std::vector<Cut> cuts;
  double now_ms = 0;
  int selected = -1;  // drawn ringed (its details are shown elsewhere)
  int observer = -1;  // whose view colours the members, if one member's; drawn with an eye mark
};

struct Result {
  int clicked = -1;                    // the member clicked or tapped this frame
  ImVec2 min{0, 0}, max{0, 0};         // the ring's area on screen
  std::vector<ImVec2> member_centres;  // screen pixels, for tests and tooltips
};

// Where a flight is drawn at `now_ms`: true while it is visible (in the air, or a dropped one
// falling), with its progress in [0, 1] along its path.
bool flight_visible(const Flight& f, double now_ms, double* progress = nullptr);
// Whether it is in the air at `now_ms` (counted as in flight; a dropped one only until it stops).
bool flight_in_air(const Flight& f, double now_ms);

// Draws the ring into a `size` area at the cursor (ImGui item "id"), and reports clicks.
Result draw(const char* id, ImVec2 size, const Model& model);

// The legend of packet glyphs, flowed into rows of the available width; height() says how tall
// it will be at `width` pixels, so a layout can reserve its room before drawing the ring.
float legend_height(float width);
void draw_legend(float width);

// The colour members in a state are drawn with (grey when unknown); their names are
// view::state_name's.
ImU32 state_color(Look look);

}  // namespace vigil::web::ring
