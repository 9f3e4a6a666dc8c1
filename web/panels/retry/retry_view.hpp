#pragma once

#include <nlohmann/json.hpp>

#include "ui/url_params.hpp"

namespace vigil::web {

// One of the retry demo's views, behind RetryPanel's selector. Only the open view advances and
// draws; every view keeps its parameters in the page's URL.
//
// URL keys that more than one view knows (timeout, capacity, tries, seconds, seed, speed, second)
// configure the open view only: each view reads and writes them only when `open`.
class RetryView {
 public:
  virtual ~RetryView() = default;

  virtual void advance(double real_ms) = 0;
  virtual void draw_header() {}  // above the controls and plots, such as a story's strip
  virtual void draw_controls() = 0;
  virtual void draw_plots() = 0;
  // The plots' height in font heights on a phone, where the page scrolls past them.
  virtual float plots_em() const { return 36.0f; }
  virtual bool animating() const = 0;
  // Adds the view's object to window.vigil.state() (and any fields it overrides).
  virtual void state(nlohmann::json& s) const = 0;
  virtual void save(UrlParams& p, bool open) const = 0;
  virtual void opened() {}  // the reader has just switched to this view
};

}  // namespace vigil::web
