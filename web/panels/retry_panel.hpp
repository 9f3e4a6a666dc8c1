#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "app/url_params.hpp"
#include <vigil/lab/hysteresis_sweep.hpp>
#include <vigil/lab/retry_experiments.hpp>
#include "panels/panel.hpp"
#include "plot/plot.hpp"
#include <vigil/retry/backoff.hpp>
#include <vigil/retry/chain.hpp>
#include <vigil/retry/fleet.hpp>
#include <vigil/retry/hysteresis.hpp>
#include <vigil/retry/overload_server.hpp>
#include "scenes/retry_scene.hpp"
#include "scenes/scene.hpp"
#include "scenes/scene_strip.hpp"

namespace vigil::web {

// The retry-storm demo, four views of the objects `vigil lab retry ...` runs:
//  - hysteresis: the fluid model's load swept up and back down, settled a simulated second at a
//    time within a frame budget, with the collapse and recovery loads and the equilibria;
//  - chain: amplification through N services retrying k times, against the reference table;
//  - fleet: clients retrying after an outage, one Fleet per backoff strategy, second by second;
//  - server: the metastable queue with its trigger, with and without the mitigations.
class RetryPanel : public Panel {
 public:
  explicit RetryPanel(const UrlParams& params);

  void advance(double real_ms) override;
  void draw() override;
  nlohmann::json state() const override;
  bool animating() const override;
  void save(UrlParams& params) const override;

 private:
  enum class View { hysteresis, chain, fleet, server };
  static constexpr std::size_t kStrategies = 6;

  struct FleetRun {
    retry::BackoffStrategy strategy;
    bool shown = true;  // its legend entry toggles it; every fleet runs
    std::optional<retry::Fleet> fleet;
  };

  // Hysteresis: the sweep restarts whenever a parameter moves.
  void restart_sweep();
  void compute_sweep(double budget_ms);
  bool equilibria_done() const;
  // Chain: the closed forms, recomputed when N, k or p move.
  void recompute_chain();
  // Fleet and server: restart at second 0 with the current options; run one second of each.
  void restart_fleets();
  void step_fleets();
  bool fleets_finished() const;
  int fleet_second() const;
  void restart_server();
  void step_server();
  bool server_finished() const;
  // Whole seconds of the active time view, as many as the playing speed asks for this frame.
  void play(double real_ms);
  // One simulated second of the active time view, and of its scene if it tells one.
  void step_time_view();

  // scene=outage-storm (fleet and server views): a story told over the time view, which holds at
  // second 0 until the reader sees the demo.
  bool scene_shown() const { return scene_.active() && view_ == scene_view_; }
  void start_scene();
  void begin_scene();  // the reader is here: the first beat, and play
  void draw_scene();
  FleetReadout fleet_readout() const;
  ServerReadout server_readout() const;

  void draw_view_selector();
  void draw_hysteresis_controls();
  void draw_hysteresis_plots();
  void draw_chain_controls();
  void draw_chain_plots();
  void draw_fleet_controls();
  void draw_fleet_plots();
  void draw_server_controls();
  void draw_server_plots();
  void draw_play_controls(bool finished, int second, int seconds);
  void draw_server_plot(const char* id, const retry::OverloadServer& server, const char* title,
                        float height);

  std::vector<std::string> hysteresis_cli() const;
  std::vector<std::string> chain_cli() const;
  std::vector<std::string> fleet_cli() const;  // without --strategy
  std::vector<std::string> server_cli(const retry::Mitigations& m) const;

  View view_ = View::hysteresis;
  double advance_ms_ = 0, draw_ms_ = 0;
  double advance_ms_max_ = 0;  // since this view was opened

  // Hysteresis.
  lab::HysteresisOptions hyst_;
  std::optional<lab::HysteresisSweep> sweep_;
  std::string sweep_error_;
  std::vector<std::vector<retry::Equilibrium>> equilibria_;  // per load of the grid
  double sweep_ms_ = 0;                                      // compute time of this sweep
  bool show_equilibria_ = true;                              // computed and drawn
  bool show_up_ = true, show_down_ = true, show_stable_ = true, show_unstable_ = true;

  // Chain.
  retry::Chain chain_;
  retry::ChainAmplification amp_;
  std::vector<lab::ChainRow> reference_rows_;
  std::vector<double> chain_p_, chain_amp_;  // amplification against p for the current N, k

  // Fleet.
  retry::FleetOptions fleet_options_;
  std::array<FleetRun, kStrategies> fleets_;
  std::string fleet_error_;
  int fleet_metric_ = 0;  // 0: calls per second, 1: busiest 100 ms, 2: still waiting
  bool fleet_log_ = true;
  double fleet_speed_ = 4;  // simulated seconds per real second

  // Server.
  retry::ServerOptions server_options_;
  std::optional<retry::OverloadServer> server_, baseline_;  // baseline: no mitigation
  std::string server_error_;
  bool compare_ = true;
  bool show_queue_ = true;
  bool show_capacity_ = true, show_offered_ = true, show_throughput_ = true, show_goodput_ = true;
  double server_speed_ = 5;

  bool fleet_playing_ = false, server_playing_ = false;
  double carry_ = 0;    // simulated seconds owed to the playing view
  double step_ms_ = 0;  // the last simulated second of the active time view, ms of compute

  Scene scene_;
  View scene_view_ = View::fleet;
  int scene_seconds_ = 0;  // the scene's clock: runs on across a restart within the story
  CaptionRoom caption_room_;
};

}  // namespace vigil::web
