#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <vigil/lab/swim_params.hpp>
#include <vigil/sim/swim_cluster.hpp>
#include "panels/panel.hpp"
#include "panels/ring_view.hpp"
#include "scenes/scene.hpp"
#include "scenes/swim_scenes.hpp"
#include "ui/heatmap_texture.hpp"
#include "ui/palette.hpp"
#include "ui/plot.hpp"
#include "ui/url_params.hpp"

namespace vigil::web {

// The SWIM cluster demo: N engines over the simulated network, with faults to inject and an
// event log. Up to 32 members it shows them on a ring with every packet in flight (view=ring),
// and can play scripted scenes (scene=crash...) step by step; any size shows the matrix of views
// (view=matrix), each row one node's own view of the others.
class SwimPanel : public Panel {
 public:
  explicit SwimPanel(const UrlParams& params);

  void advance(double real_ms) override;
  void draw() override;
  nlohmann::json state() const override;
  bool animating() const override { return true; }  // the cluster runs while it is shown
  void save(UrlParams& params) const override;

 private:
  struct Cell {
    ring::Look state = view::MemberState::alive;  // nullopt: the observer does not know it
    std::uint32_t incarnation = 1;
  };

  void restart();
  void on_event(const sim::ClusterEvent& e);
  void reset_row(std::size_t observer);
  // Brings the cached picture of the matrix up to date with matrix_ and who is up.
  void refresh_cell(std::size_t observer, std::size_t observed);
  void refresh_row(std::size_t observer);
  swim::Config current_config() const;
  void apply_link();
  void toggle_partition();
  void log_event(const sim::ClusterEvent& e);

  void draw_controls();
  void draw_matrix(float height);
  // The ring view: caption and transport, the ring, its legend, the clicked member's details.
  void draw_ring_view(float height);
  void draw_transport();
  void draw_member_details(float height);
  ring::Model ring_model() const;
  ring::Look look_of(std::size_t observed) const;  // by the chosen observer, or by consensus
  void on_packet(const sim::PacketTrace& t);
  // Runs the cluster to `t`, playing the scene's beats due on the way at their exact times.
  void run_to(Millis t);
  // Advances to the next event that changes what the ring shows (a packet sent or arriving, a
  // change of state, a beat of the scene); one probe period.
  void step_event();
  void step_period();
  void prune_flights();
  void replay();
  bool ring_offered() const { return nodes_ <= kRingMax; }
  bool showing_ring() const { return ring_view_ && ring_offered(); }
  void draw_traffic(float height);
  plot::HeatCell heat_cell(std::size_t observer, std::size_t observed) const;
  // state()'s parts: how the live observers see everyone and the selected member, the matrix's
  // picture, what the ring shows this frame and the clicked member's details.
  nlohmann::json views_json() const;
  nlohmann::json matrix_json() const;
  nlohmann::json in_flight_json() const;
  nlohmann::json ring_members_json() const;
  nlohmann::json details_json() const;

  static constexpr int kRingMax = 32;
  static constexpr std::size_t kMaxFlights = 4096;

  // Parameters. The page opens on a ring of eight, where every packet can be followed.
  int nodes_ = 8;
  int profile_ = 1;  // index into swim::Config::profile_names(): lan, wan, local, teaching
  bool lifeguard_ = true;
  double loss_ = lab::swim_param::loss.def;  // a probability; the page shows a percentage
  double speed_ = 1;
  std::uint32_t seed_ = static_cast<std::uint32_t>(lab::swim_param::seed.def);
  int selected_ = 0, other_ = 1;
  bool ring_view_ = true;
  double delay_ms_ = 1;  // one-way link delay
  int color_by_ = -1;    // whose view colours the ring: -1 by consensus
  bool paused_ = false;
  double tempo_ = 1;  // the scene's factor on speed_ (slow motion, fast forward)

  // The scene being told, if any (&scene=NAME).
  std::optional<SwimSceneSpec> scene_spec_;
  Scene scene_;

  // The ring's record of traffic, from the cluster's packet tap (small clusters only).
  std::deque<ring::Flight> flights_;
  std::uint64_t packets_ = 0;
  std::vector<std::string> first_seen_;  // packet and news kinds in the order first sent
  std::uint32_t seen_mask_ = 0;
  std::vector<std::int64_t> alive_incarnation_;  // per member, the latest alive news (-1: none)
  std::vector<int> accusations_;                 // per member, suspicions it raised itself
  int clicked_ = -1;                             // the member whose details are shown
  ImVec4 ring_rect_{0, 0, 0, 0};
  std::vector<ImVec2> member_centres_;
  std::uint64_t steps_ = 0, step_engine_events_ = 0;

  std::unique_ptr<sim::SwimCluster> cluster_;
  std::vector<Cell> matrix_;  // observer-major
  // matrix_ as drawn, kept between frames: a million cells cannot be redrawn every frame.
  std::unique_ptr<plot::HeatmapTexture> heat_;
  // The palette heat_'s colours came from: when the page's theme flips, every cell is repainted.
  const plot::Palette* painted_with_ = nullptr;
  // Where the matrix was last drawn (screen pixels: min x, min y, max x, max y) and the cell
  // under the mouse (-1: none), for state().
  ImVec4 matrix_rect_{0, 0, 0, 0};
  int hovered_row_ = -1, hovered_col_ = -1;
  // What building the panel took (the cluster, its matrix, a warm-up before &kill= and such)
  // and the datagrams of that warm-up. The app builds a panel inside its first advance(), so
  // the simulation's own speed is (datagrams - setup_datagrams) / (advance time - setup_ms),
  // as the native bench leaves its setup out.
  double setup_ms_ = 0;
  std::uint64_t setup_datagrams_ = 0;
  std::deque<std::string> log_;
  std::uint64_t events_ = 0;
  double carry_ms_ = 0;
  bool partitioned_ = false;
  // Traffic per node per probe period, sampled every period for the plot.
  std::vector<double> traffic_t_, traffic_msgs_, traffic_bytes_;
  Millis next_sample_{0};
  Millis last_sample_{0};
  std::uint64_t last_datagrams_ = 0, last_bytes_ = 0;
};

}  // namespace vigil::web
