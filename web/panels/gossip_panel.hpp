#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <vigil/gossip/params.hpp>
#include <vigil/gossip/spread_run.hpp>
#include <vigil/lab/gossip_experiments.hpp>
#include "panels/panel.hpp"
#include "ui/plot.hpp"
#include "ui/url_params.hpp"

namespace vigil::web {

// The gossip demo. "spread": one rumour over n members, stepped round by round, each
// member a grid cell coloured by the round it learnt, and the informed fraction against the
// mean-field curve. "membership": van Renesse's heartbeat-counter lists, the false suspicions and
// the time to agree on a crash for each T_fail, computed by the same lab code as the CLI.
class GossipPanel : public Panel {
 public:
  explicit GossipPanel(const UrlParams& params);

  void advance(double real_ms) override;
  void draw() override;
  nlohmann::json state() const override;
  bool animating() const override;
  void save(UrlParams& params) const override;

 private:
  enum class View { spread, membership };

  gossip::SpreadOptions spread_options() const;
  void restart();  // round 0 with the current parameters
  // Runs up to `rounds` rounds, stopping early once a round ends past the budget; returns how many.
  int step_rounds(int rounds, double budget_ms = 1e300);
  void after_step();
  void set_block(int block);
  void rebuild_image();
  ImU32 rank_color(int rank) const;

  void invalidate_membership();
  void compute_membership(double budget_ms);
  bool membership_ready() const {
    return membership_.size() == kTfails && membership_error_.empty();
  }
  const lab::MembershipRow* selected_row() const;

  void draw_controls();
  void draw_spread_controls(float label_width);
  void draw_membership_controls(float label_width);
  void draw_grid(float height);
  void draw_key();
  void draw_curve(float height);
  void draw_false_suspicions(float height);
  void draw_agreement(float height);
  void draw_false_by_round(float height);
  void grid_tooltip(int image_row, int image_col) const;
  static plot::HeatCell heat_cell(int row, int col, void* self);

  // The membership view sweeps T_fail = 1, 2, ... up to its slider's end.
  static constexpr std::size_t kTfails =
      static_cast<std::size_t>(gossip::membership_param::t_fail.view_max);

  // Spread parameters (fanout, loss and seed are the membership view's too).
  View view_ = View::spread;
  int nodes_ = static_cast<int>(gossip::spread_param::nodes.def);
  int fanout_ = static_cast<int>(gossip::spread_param::fanout.def);
  int mode_ = 0;                                  // index into kModes
  double loss_ = gossip::spread_param::loss.def;  // a probability; the page shows a percentage
  int dead_ = static_cast<int>(gossip::spread_param::dead.def);
  std::uint32_t seed_ = static_cast<std::uint32_t>(gossip::spread_param::seed.def);
  double rate_;  // rounds per second while playing
  bool playing_ = false;
  bool log_tail_ = false;

  // The run and what is derived from it once per round, never per frame.
  std::optional<gossip::SpreadRun> run_;
  double carry_ = 0;
  std::vector<double> measured_;  // informed fraction of the live members after each round
  std::vector<double> theory_;    // the mean-field expectation of the same
  std::vector<double> round_axis_;
  double theory_rounds_ = 0;
  std::optional<double> pittel_rounds_;
  int colour_rounds_ = 1;                            // the round the colour ramp ends at
  double step_ms_ = 0, image_ms_ = 0, draw_ms_ = 0;  // the last of each, for state()

  // Member i is cell (i / cols_, i % cols_). The heat map draws blocks of block_ x block_ cells,
  // summed up after every round (not every frame), so a million members cost little a frame.
  struct Block {
    int live = 0, informed = 0, dead = 0;
    int latest = -1;  // the latest round in which one of its members learnt
  };
  int cols_ = 1, rows_ = 1, block_ = 1, image_cols_ = 1, image_rows_ = 1;
  std::vector<Block> blocks_;
  std::vector<plot::HeatCell> image_;

  // Membership parameters and results (rows for T_fail = 1, 2, ... as they are computed). A sweep
  // of twelve T_fail values runs between frames, so the page opens on fewer trials and rounds
  // than the command line's, and on a T_fail that no longer suspects live members.
  int members_ = static_cast<int>(gossip::membership_param::nodes.def);
  int trials_ = 3;
  int watched_ = 20;
  int selected_tfail_ = 8;
  bool editing_ = false;  // a slider is held: wait for its release before computing
  std::vector<lab::MembershipRow> membership_;
  double membership_ms_ = 0;
  std::string membership_error_;
};

}  // namespace vigil::web
