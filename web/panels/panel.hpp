#pragma once

#include <nlohmann/json.hpp>

namespace vigil::web {

// One demo of the web app. Only the visible panel advances, so hidden simulations cost nothing.
class Panel {
 public:
  virtual ~Panel() = default;
  virtual void advance(double real_ms) = 0;  // a frame's worth of wall time
  virtual void draw() = 0;
  virtual nlohmann::json state() const = 0;  // window.vigil.state() while this panel is shown
};

}  // namespace vigil::web
