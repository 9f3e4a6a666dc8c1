// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <vigil/base/time.hpp>
#include <vigil/swim/address.hpp>
#include <vigil/wire/messages.hpp>

namespace vigil::swim {

enum class MemberState : std::uint8_t { alive, suspect, dead, left };

std::string_view to_string(MemberState state);

using Incarnation = std::uint32_t;

// memberlist's incarnations are 32 bits. They never wrap here: a refutation that wrapped to 0
// would never outbid anything again (Node::refute says what happens at the top instead).
inline constexpr Incarnation kMaxIncarnation = std::numeric_limits<Incarnation>::max();

// The incarnation after `i`, or the top itself.
constexpr Incarnation next_incarnation(Incarnation i) {
  return i == kMaxIncarnation ? i : i + 1;
}

// One member as this node sees it.
struct Member {
  std::string name;
  Address address;
  Incarnation incarnation = 0;
  MemberState state = MemberState::alive;
  wire::Bytes meta;
  wire::Bytes vsn;  // memberlist protocol versions: pmin, pmax, pcur, dmin, dmax, dcur
  Millis state_change{0};
  // Learned from a seed's table while joining alone, and not gossiped on (Node::join).
  bool learned_quietly = false;
  // When this node last told a sender of stale accusations about this member its current state
  // (Node::answer_stale_accusation).
  Millis stale_accusation_answered = Millis::min();
  // When this node last heard the member speak for itself (from its own address) at the top
  // incarnation, where accusations cannot be outbid (Node::answered_at_top).
  Millis spoke_at_top = Millis::min();

  bool dead_or_left() const { return state == MemberState::dead || state == MemberState::left; }
};

}  // namespace vigil::swim
