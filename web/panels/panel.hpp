#pragma once

#include <nlohmann/json.hpp>

#include "ui/trace_inbox.hpp"
#include "ui/url_params.hpp"

namespace vigil::web {

// One demo of the web app. Only the visible panel advances, and only while the page shows it,
// so hidden simulations cost nothing.
class Panel {
 public:
  virtual ~Panel() = default;
  virtual void advance(double real_ms) = 0;  // a frame's worth of wall time
  virtual void draw() = 0;
  virtual nlohmann::json state() const = 0;  // window.vigil.state() while this panel is shown
  // Whether the next advance() may change what is drawn (a simulation playing, a computation
  // under way). When no panel animates and no input arrives, the app stops drawing frames.
  virtual bool animating() const = 0;
  // Writes the parameters a reader can change under the keys the constructor reads, so that
  // the demo rebuilt from the resulting URL comes back as the reader left it.
  virtual void save(UrlParams& params) const = 0;
  // A heartbeat trace from the page (file picker, drop, trace= URL); false if this demo has no
  // use for one, and the app then shows it in the demo that has.
  virtual bool load_trace(const TraceFile&) { return false; }
};

}  // namespace vigil::web
