#pragma once

#include <array>
#include <memory>

#include "panels/panel.hpp"
#include "panels/retry/retry_view.hpp"
#include "ui/url_params.hpp"

namespace vigil::web {

// The retry-storm demo: four views of the objects `vigil lab retry ...` runs, one at a time,
// chosen by the radio buttons or &view=NAME.
//  - hysteresis: the fluid model's load swept up and back down (HysteresisView);
//  - chain: amplification through N services retrying k times (ChainView);
//  - fleet: clients retrying after an outage, per backoff strategy (FleetView);
//  - server: the metastable queue with its trigger and the mitigations (ServerView).
// Every view keeps its parameters, so switching back finds it as it was left.
class RetryPanel : public Panel {
 public:
  explicit RetryPanel(const UrlParams& params);

  void advance(double real_ms) override;
  void draw() override;
  nlohmann::json state() const override;
  bool animating() const override { return views_[open_]->animating(); }
  void save(UrlParams& params) const override;

 private:
  static constexpr std::size_t kViews = 4;

  void draw_view_selector();

  std::array<std::unique_ptr<RetryView>, kViews> views_;
  std::size_t open_ = 0;
  double advance_ms_ = 0, draw_ms_ = 0;
  double advance_ms_max_ = 0;  // since this view was opened
};

}  // namespace vigil::web
