#pragma once

#include <optional>

namespace vigil::web {

// The demos' keyboard shortcuts, as RaftScope and most media players have them: Space plays or
// pauses, `.` steps, `r` replays or restarts, `?` shows the list. A key reaches a demo only
// when the demo drew a control for it in the last frame, so that a key the demo has no use for
// keeps its meaning in the page (scrolling, the browser's own shortcuts).
enum class Shortcut { kPlayPause, kStep, kReplay, kHelp };
inline constexpr int kShortcutCount = 4;

// The shortcut a key stands for, from KeyboardEvent.key's first character.
std::optional<Shortcut> shortcut_for_key(char key);

// Called once per frame before the panels draw: what was offered last frame is what the page
// may send now.
void shortcuts_new_frame();
// The page's keypress: true (and the key is kept for the next frame) when a control of the
// last frame takes it.
bool post_shortcut(Shortcut s);
// A control that the shortcut stands for offers it and learns whether it was pressed.
bool take_shortcut(Shortcut s);

}  // namespace vigil::web
