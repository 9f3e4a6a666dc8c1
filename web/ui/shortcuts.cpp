#include "ui/shortcuts.hpp"

#include <array>

namespace vigil::web {

namespace {
struct ShortcutState {
  std::array<bool, kShortcutCount> offered{};  // by a control drawn in the frame being built
  std::array<bool, kShortcutCount> offered_last{};
  std::array<bool, kShortcutCount> pending{};  // pressed, not yet taken
  std::array<bool, kShortcutCount> stale{};    // pending since before the last frame
};
ShortcutState g_shortcuts;

std::size_t index(Shortcut s) {
  return static_cast<std::size_t>(s);
}
}  // namespace

std::optional<Shortcut> shortcut_for_key(char key) {
  switch (key) {
    case ' ':
      return Shortcut::kPlayPause;
    case '.':
      return Shortcut::kStep;
    case 'r':
    case 'R':
      return Shortcut::kReplay;
    case '?':
      return Shortcut::kHelp;
    default:
      return std::nullopt;
  }
}

void shortcuts_new_frame() {
  // A key whose control went away before it could take it is dropped after one frame, rather
  // than firing whenever that control comes back.
  for (std::size_t i = 0; i < kShortcutCount; ++i) {
    if (g_shortcuts.stale[i]) g_shortcuts.pending[i] = false;
    g_shortcuts.stale[i] = g_shortcuts.pending[i];
  }
  g_shortcuts.offered_last = g_shortcuts.offered;
  g_shortcuts.offered = {};
}

bool post_shortcut(Shortcut s) {
  if (!g_shortcuts.offered_last[index(s)] && !g_shortcuts.offered[index(s)]) return false;
  g_shortcuts.pending[index(s)] = true;
  g_shortcuts.stale[index(s)] = false;
  return true;
}

bool take_shortcut(Shortcut s) {
  g_shortcuts.offered[index(s)] = true;
  const bool pressed = g_shortcuts.pending[index(s)];
  g_shortcuts.pending[index(s)] = false;
  g_shortcuts.stale[index(s)] = false;
  return pressed;
}

}  // namespace vigil::web
