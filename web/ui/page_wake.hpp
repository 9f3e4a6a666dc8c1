#pragma once

#include <emscripten.h>

namespace vigil::web {

// Asks the page for frames: news arrived from outside the frame loop (a WebSocket message) that
// the app must show, while the loop may be asleep (see assets/app-shell.js).
inline void request_frames() {
  EM_ASM({
    if (window.vigil && window.vigil.wake) window.vigil.wake();
  });
}

}  // namespace vigil::web
