// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include <vigil/swim/member.hpp>

// The one vocabulary of member states, shared by the agent, `vigil members` and the web app:
// swim's MemberState, its names (swim::to_string) and their inverse.
namespace vigil::view {

using swim::MemberState;
using swim::to_string;

inline constexpr std::array<MemberState, 4> kMemberStates = {
    MemberState::alive, MemberState::suspect, MemberState::dead, MemberState::left};

// The state a name spells, or nothing for a name that is not one.
std::optional<MemberState> member_state_from_string(std::string_view name);

// A state's name, and "unknown" for a name this vocabulary did not know.
std::string_view state_name(std::optional<MemberState> state);

// Dead or left: no longer probed, and no longer a member worth following.
constexpr bool gone(MemberState state) {
  return state == MemberState::dead || state == MemberState::left;
}

// How much a state should catch the eye, where several views of one member are summed up in one
// colour: dead before suspect before left before alive; an unknown state (nullopt) least.
int severity(std::optional<MemberState> state);

// How many views hold each state, unknown included.
class StateTally {
 public:
  void add(std::optional<MemberState> state) {
    if (state)
      ++by_state_[static_cast<std::size_t>(*state)];
    else
      ++unknown_;
  }
  std::size_t of(std::optional<MemberState> state) const {
    return state ? by_state_[static_cast<std::size_t>(*state)] : unknown_;
  }

 private:
  std::array<std::size_t, kMemberStates.size()> by_state_{};
  std::size_t unknown_ = 0;
};

}  // namespace vigil::view
