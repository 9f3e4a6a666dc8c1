#pragma once

#include <optional>
#include <string>
#include <vector>

#include <vigil/lab/hysteresis_sweep.hpp>
#include <vigil/lab/retry_experiments.hpp>
#include <vigil/retry/hysteresis.hpp>
#include "panels/retry/retry_view.hpp"

namespace vigil::web {

// The fluid model of a retry storm: the load swept up and back down, settled a simulated second
// at a time within a frame budget, with the collapse and recovery loads and the equilibria at
// every load of the grid. The sweep restarts whenever a parameter moves.
class HysteresisView : public RetryView {
 public:
  HysteresisView(const UrlParams& p, bool open);

  void advance(double real_ms) override;
  void draw_controls() override;
  void draw_plots() override;
  bool animating() const override;
  void state(nlohmann::json& s) const override;
  void save(UrlParams& p, bool open) const override;

 private:
  void restart();
  bool equilibria_done() const;
  std::vector<std::string> cli() const;

  lab::HysteresisOptions options_;
  std::optional<lab::HysteresisSweep> sweep_;
  std::string error_;
  std::vector<std::vector<retry::Equilibrium>> equilibria_;  // per load of the grid
  double compute_ms_ = 0;                                    // compute time of this sweep
  bool show_equilibria_ = true;                              // computed and drawn
  bool show_up_ = true, show_down_ = true, show_stable_ = true, show_unstable_ = true;
};

}  // namespace vigil::web
