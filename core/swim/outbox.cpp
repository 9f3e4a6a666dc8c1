#include <vigil/swim/outbox.hpp>

namespace vigil::swim {

std::string_view to_string(EventKind kind) {
  switch (kind) {
    case EventKind::join:
      return "join";
    case EventKind::alive:
      return "alive";
    case EventKind::suspect:
      return "suspect";
    case EventKind::dead:
      return "dead";
    case EventKind::left:
      return "left";
    case EventKind::refuted:
      return "refuted";
    case EventKind::updated:
      return "updated";
    case EventKind::removed:
      return "removed";
    case EventKind::conflict:
      return "conflict";
  }
  return "?";
}

}  // namespace vigil::swim
