#include <doctest/doctest.h>

#include "ui/shortcuts.hpp"

using vigil::web::post_shortcut;
using vigil::web::Shortcut;
using vigil::web::shortcut_for_key;
using vigil::web::shortcuts_new_frame;
using vigil::web::take_shortcut;

namespace {
// Two frames with no control at all: the module forgets whatever the last test offered.
void fresh() {
  shortcuts_new_frame();
  take_shortcut(Shortcut::kPlayPause);  // clear anything pending from earlier tests
  take_shortcut(Shortcut::kStep);
  take_shortcut(Shortcut::kReplay);
  take_shortcut(Shortcut::kHelp);
  shortcuts_new_frame();
  shortcuts_new_frame();
}
}  // namespace

TEST_CASE("keys map to the shortcuts media players use") {
  CHECK(shortcut_for_key(' ') == Shortcut::kPlayPause);
  CHECK(shortcut_for_key('.') == Shortcut::kStep);
  CHECK(shortcut_for_key('r') == Shortcut::kReplay);
  CHECK(shortcut_for_key('R') == Shortcut::kReplay);
  CHECK(shortcut_for_key('?') == Shortcut::kHelp);
  CHECK_FALSE(shortcut_for_key('x').has_value());
  CHECK_FALSE(shortcut_for_key('\t').has_value());
}

TEST_CASE("a key reaches a demo only when the last frame drew its control") {
  fresh();
  CHECK_FALSE(post_shortcut(Shortcut::kStep));  // nothing offered: the page keeps the key
  shortcuts_new_frame();
  CHECK_FALSE(take_shortcut(Shortcut::kStep));       // offered now, but nothing was pressed
  CHECK_FALSE(post_shortcut(Shortcut::kPlayPause));  // another control was not drawn
  CHECK(post_shortcut(Shortcut::kStep));
  shortcuts_new_frame();
  CHECK(take_shortcut(Shortcut::kStep));        // taken once
  CHECK_FALSE(take_shortcut(Shortcut::kStep));  // a second control for the same key: not twice
}

TEST_CASE("a key whose control went away is dropped, not kept for its return") {
  fresh();
  take_shortcut(Shortcut::kReplay);
  CHECK(post_shortcut(Shortcut::kReplay));
  shortcuts_new_frame();  // the control is not drawn in this frame
  shortcuts_new_frame();  // nor in this one: the key is dropped
  CHECK_FALSE(take_shortcut(Shortcut::kReplay));
}

TEST_CASE("a key pressed right after one was taken waits for the next frame") {
  fresh();
  take_shortcut(Shortcut::kPlayPause);
  CHECK(post_shortcut(Shortcut::kPlayPause));
  shortcuts_new_frame();
  CHECK(take_shortcut(Shortcut::kPlayPause));
  CHECK(post_shortcut(Shortcut::kPlayPause));  // pressed again before the next frame
  shortcuts_new_frame();
  CHECK(take_shortcut(Shortcut::kPlayPause));
}
