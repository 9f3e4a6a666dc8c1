#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <vigil/retry/backoff.hpp>
#include <vigil/retry/fleet.hpp>
#include "panels/retry/time_view.hpp"
#include "scenes/retry_scene.hpp"

namespace vigil::web {

// Clients retrying after an outage, one retry::Fleet per backoff strategy, second by second, as
// in Brooker's simulations in "Exponential Backoff And Jitter" (AWS Architecture Blog, 2015).
class FleetView : public TimeView {
 public:
  static constexpr ParamSpec kSpeed{.flag = "speed",
                                    .label = "sim s / real s",
                                    .help = "simulated seconds per real second",
                                    .def = 4,
                                    .min = 0.5,
                                    .max = 60,
                                    .view_min = 0.5,
                                    .view_max = 60,
                                    .digits = 1};

  FleetView(const UrlParams& p, bool open);

  void draw_controls() override;
  void draw_plots() override;
  float plots_em() const override;
  void state(nlohmann::json& s) const override;
  void save(UrlParams& p, bool open) const override;

 private:
  static constexpr std::size_t kStrategies = 6;
  struct Run {
    retry::BackoffStrategy strategy;
    bool shown = true;  // its legend entry toggles it; every fleet runs
    std::optional<retry::Fleet> fleet;
  };

  void run_second() override;
  bool finished() const override;
  int second() const override;
  int seconds() const override { return options_.seconds; }
  void restart() override;
  void next_seed() override;
  Scene make_scene() override;

  FleetReadout readout() const;
  std::vector<std::string> cli() const;  // without --strategy

  retry::FleetOptions options_;
  std::array<Run, kStrategies> runs_;
  std::string error_;
  int metric_ = 0;  // 0: calls per second, 1: busiest 100 ms, 2: still waiting
  bool log_ = true;
};

}  // namespace vigil::web
