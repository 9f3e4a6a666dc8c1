#pragma once

namespace vigil::web::screen {

// Below this width (CSS pixels) a demo stacks its controls under its plots: two columns of a
// phone's 320-412 px, or of a 560 px documentation frame, leave each too thin to read.
inline constexpr float kNarrowBelowCss = 600.0f;

// The canvas as the page laid it out; set by the frame loop before each frame.
void set(float css_width, float dpr);
bool narrow();
float dpr();
float css_width();

// Whether the app shows one demo inside another page (embed=1). There a narrow demo starts with
// its controls folded: a reader scrolling past sees the plots, and opens the controls to play.
void set_embedded(bool embedded);
bool embedded();

// Whether the last input was a finger: widgets grow to fingertip size.
void set_touch(bool touch);
bool touch();

// Whether at least half of the demo is on screen (or it fills the screen), as the page's
// intersection observer reports it. A scripted scene waits for this before it starts, so that it
// plays while it is read rather than while the reader is still a paragraph above it.
void set_in_view(bool in_view);
bool in_view();

// Whether the reader asked for reduced motion (prefers-reduced-motion: reduce, or motion=reduce
// in the URL): scenes and autoplaying demos then wait for play (autoplay_allowed), and datagrams
// jump to where they land instead of gliding.
void set_reduced_motion(bool reduce);
bool reduced_motion();

// The app's own front page (index.html with no parameters but theme or motion, not embedded)
// holds its demo until the reader presses play or picks a demo: a reader who has not asked for
// anything yet pays nothing for it.
void set_front_page(bool front);
bool front_page();

// Whether demos may play by themselves: not under reduced motion, not on the front page.
bool autoplay_allowed();

// Whether a scene or an autoplaying demo may start by itself now: in view, and autoplay allowed.
bool may_autostart();

}  // namespace vigil::web::screen
