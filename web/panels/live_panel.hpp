#pragma once

#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "live/agent_link.hpp"
#include "panels/panel.hpp"
#include "panels/ring_view.hpp"
#include "ui/plot.hpp"
#include "ui/url_params.hpp"

namespace vigil::web {

// The live cluster: real agents over WebSocket, each row of the matrix one agent's own view,
// per-peer phi and ack gaps, counters, and fault injection once the agents' token is entered.
// Connected to one agent, it finds the others: every vigil agent advertises its live view's URL
// in its member metadata (the Serf tag vigil-view), which members lists carry as "view".
class LivePanel : public Panel {
 public:
  explicit LivePanel(const UrlParams& params);

  void advance(double real_ms) override;
  void draw() override;
  nlohmann::json state() const override;
  // Event-driven: every WebSocket message asks for a frame (AgentLink), so nothing needs
  // drawing in between — except packets flying on the ring.
  bool animating() const override { return show_packets_ && ring_in_air_ > 0; }
  void save(UrlParams& params) const override;

 private:
  // A discovered agent: its name and its live view's URL.
  struct Discovered {
    std::string name, view;
  };
  // One view follows at most this many agents: each is a WebSocket streaming ten times a second.
  static constexpr std::size_t kMaxAgents = 32;

  void connect_all();
  void add_agent(const std::string& view);
  // From the links' member lists: agents not yet followed, members with no view of their own,
  // and links that never opened to an agent the others hold dead or left (dropped).
  void discover();
  void drop_dead_links();
  // The peer fault injection aims at: the user's pick while it is listed, else the first member
  // the selected agent holds alive (never the agent itself, never an unnamed address).
  void pick_peer();
  const AgentLink* selected_link() const;
  void draw_discovered();
  void take_demo_config();
  std::vector<std::string> member_names() const;
  void draw_controls();
  void draw_matrix(float height);
  void draw_agent_list(float height);  // the matrix as a list, for a phone
  void draw_peer(float height);
  void draw_peer_table(const AgentLink& l);
  // How the agent's probes of each peer ended: a one-way fault shows here as failed direct
  // pings answered through helpers, before anyone is suspected.
  void draw_probe_table(const AgentLink& l);
  // The selected agent's most recent packets, newest first.
  void draw_packet_list();
  // Every followed agent's packets on a ring of the cluster's members, coloured by the selected
  // agent's view; clicking an agent selects it.
  ring::Model ring_model(double page_now_ms) const;
  void draw_ring(ImVec2 size);
  static plot::HeatCell heat_cell(int row, int col, void* self);

  char addresses_[2048] = "";
  char token_[128] = "";
  bool demo_checked_ = false;
  std::vector<std::unique_ptr<AgentLink>> links_;
  int selected_agent_ = 0, selected_peer_ = 0;
  double loss_pct_ = 10, delay_ms_ = 0, pause_ms_ = 2000;
  double last_snapshot_at_ms_ = 0;  // performance.now() of the last snapshot request
  std::vector<std::string> names_cache_;
  std::vector<Discovered> discovered_;
  std::set<std::string> observed_only_;  // members with no live view (Serf, Consul, ...)
  std::set<std::string> dropped_;        // agents left out of the rows: dead or left
  std::string peer_;
  bool peer_chosen_ = false;
  bool show_packets_ = false;      // every followed agent streams its packet log
  std::string probe_table_agent_;  // whose probe table the last frame drew, and its rows
  std::size_t probe_table_rows_ = 0;
  std::size_t ring_in_air_ = 0;  // flights drawn in the last frame
  std::size_t ring_cuts_ = 0;    // blocked links drawn in the last frame
  ImVec2 ring_size_{0, 0};       // what the ring and its legend were given, device px
  float narrow_plots_em_ = 0;    // what the plots' box held last frame on a phone, in font heights
  std::uint64_t ring_flights_ = 0;  // flights the ring has shown since packets were turned on
  double ring_latest_ms_ = 0;       // the newest flight counted in ring_flights_ (page clock)
};

}  // namespace vigil::web
