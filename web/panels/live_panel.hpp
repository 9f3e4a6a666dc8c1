#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/url_params.hpp"
#include "live/agent_link.hpp"
#include "panels/panel.hpp"
#include "plot/plot.hpp"

namespace vigil::web {

// The live cluster: real agents over WebSocket, each row of the matrix one agent's own view,
// per-peer phi and ack gaps, counters, and fault injection once the agents' token is entered.
class LivePanel : public Panel {
 public:
  explicit LivePanel(const UrlParams& params);

  void advance(double real_ms) override;
  void draw() override;
  nlohmann::json state() const override;
  // Event-driven: every WebSocket message asks for a frame (AgentLink), so nothing needs
  // drawing in between.
  bool animating() const override { return false; }
  void save(UrlParams& params) const override;

 private:
  void connect_all();
  void take_demo_config();
  std::vector<std::string> member_names() const;
  void draw_controls();
  void draw_matrix(float height);
  void draw_agent_list(float height);  // the matrix as a list, for a phone
  void draw_peer(float height);
  void draw_peer_table(const AgentLink& l);
  static plot::HeatCell heat_cell(int row, int col, void* self);

  char addresses_[512] = "";
  char token_[128] = "";
  bool demo_checked_ = false;
  std::vector<std::unique_ptr<AgentLink>> links_;
  int selected_agent_ = 0, selected_peer_ = 0;
  double loss_pct_ = 10, delay_ms_ = 0, pause_ms_ = 2000;
  double last_snapshot_at_ms_ = 0;  // performance.now() of the last snapshot request
  std::vector<std::string> names_cache_;
};

}  // namespace vigil::web
