#include <vigil/view/member_state.hpp>

namespace vigil::view {

std::optional<MemberState> member_state_from_string(std::string_view name) {
  for (MemberState s : kMemberStates)
    if (to_string(s) == name) return s;
  return std::nullopt;
}

std::string_view state_name(std::optional<MemberState> state) {
  return state ? to_string(*state) : std::string_view("unknown");
}

int severity(std::optional<MemberState> state) {
  if (!state) return 0;
  switch (*state) {
    case MemberState::alive:
      return 1;
    case MemberState::left:
      return 2;
    case MemberState::suspect:
      return 3;
    case MemberState::dead:
      return 4;
  }
  return 0;
}

}  // namespace vigil::view
