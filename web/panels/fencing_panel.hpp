#pragma once

#include <imgui.h>

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include <vigil/fencing/stale_leader.hpp>
#include "panels/panel.hpp"
#include "ui/url_params.hpp"

namespace vigil::web {

// The fencing demo (fencing tokens as Kleppmann 2016 describes them): the stale-leader
// scenario of core/fencing, played in simulated time on four lanes (issuer, old leader, new
// leader, resource). The old leader is frozen past its lease, the issuer hands the next token
// to a new leader, and the old leader's late write is either rejected by the resource (fencing
// on) or lands over the new leader's value (fencing off). The run is computed whole by
// fencing::run_stale_leader, the same function `vigil lab fencing` prints, and revealed event
// by event as time passes.
class FencingPanel : public Panel {
 public:
  explicit FencingPanel(const UrlParams& params);

  void advance(double real_ms) override;
  void draw() override;
  nlohmann::json state() const override;
  bool animating() const override { return playing_ && !done(); }
  void save(UrlParams& params) const override;

 private:
  void rerun();              // the scenario with the current controls, from time 0
  void seek(double sim_ms);  // reveals every event at or before sim_ms
  void step();               // to the next instant with events
  fencing::StaleLeaderOptions options() const;
  const fencing::Event* last_shown() const;
  bool wake_write_shown() const { return ok_ && shown_ > run_.wake_write; }
  bool done() const { return ok_ && sim_ms_ >= static_cast<double>(run_.end.count()); }
  // What has happened so far, in one sentence, and the colour to show it in.
  std::string sentence(ImU32* color = nullptr) const;

  void draw_controls();
  void draw_sentence();
  void draw_lanes(float height);
  struct LaneView;     // where the lanes are on screen this frame
  struct WriteLabels;  // where write labels were drawn, to keep the next ones clear
  void draw_leases(const LaneView& v) const;
  void draw_leader_lives(const LaneView& v) const;
  void draw_highest_token(const LaneView& v) const;
  void draw_lane_events(const LaneView& v) const;
  void draw_write(const LaneView& v, std::size_t i, WriteLabels& labels) const;
  void draw_lane_tooltip(const LaneView& v) const;
  void draw_resource(float height);
  void draw_log(float height);

  // Controls (whole milliseconds, as the CLI takes them); defaults from stale_leader_param.
  int lease_ms_ = static_cast<int>(fencing::stale_leader_param::lease.def);
  int pause_ms_ = static_cast<int>(fencing::stale_leader_param::pause.def);
  int interval_ms_ = static_cast<int>(fencing::stale_leader_param::interval.def);
  int old_writes_ = static_cast<int>(fencing::stale_leader_param::old_writes.def);
  int token_ = static_cast<int>(fencing::stale_leader_param::token.def);
  bool new_first_ = true;
  bool fencing_ = true;
  bool participate_ = false;
  double speed_ = 0;  // simulated ms per real ms; from the URL or its spec's default
  bool playing_ = false;
  bool compact_ = false;  // embedded: no introduction, no log

  // The run and how far it has been played.
  bool ok_ = false;
  std::string error_;
  fencing::StaleLeaderResult run_;
  nlohmann::json timeline_ = nlohmann::json::array();  // `vigil lab fencing --format json` rows
  double sim_ms_ = 0;
  std::size_t shown_ = 0;   // events revealed: those at or before sim_ms_
  std::size_t logged_ = 0;  // events in the log at the last frame (to scroll to new ones)
};

}  // namespace vigil::web
