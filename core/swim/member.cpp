#include <vigil/swim/member.hpp>

namespace vigil::swim {

std::string_view to_string(MemberState state) {
  switch (state) {
    case MemberState::alive:
      return "alive";
    case MemberState::suspect:
      return "suspect";
    case MemberState::dead:
      return "dead";
    case MemberState::left:
      return "left";
  }
  return "?";
}

}  // namespace vigil::swim
