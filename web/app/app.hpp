#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/share.hpp"
#include "panels/panel.hpp"
#include "ui/url_params.hpp"

namespace vigil::web {

// The application: the demos as tabs, or one demo alone and chromeless when embedded
// (?embed=1). Panels are built on first view and only the visible one runs.
class App {
 public:
  explicit App(UrlParams params);

  void frame(double real_ms);  // advance the visible demo and draw one ImGui frame's content
  // Whether the visible demo will change without input (see Panel::animating).
  bool animating();
  // The page's query string as it would rebuild the current demo: the parameters the page was
  // opened with, the active demo, and that demo's own (Panel::save); never the agents' token.
  std::string query();
  // The link and the embed snippet that reproduce the current demo (the share / embed popup).
  ShareTexts share();
  // What the whole browser frame cost (ImGui, the demo, GL submission) and when it ended, both
  // in ms of performance.now(): tests and the documentation's figures read them from state().perf.
  void record_frame_cost(double cost_ms, double ended_at_ms);
  nlohmann::json state() const;
  // What the page tells assistive technology: the demo's title (the canvas' label), a few
  // sentences on what it shows now, and the words that change when something happens (see
  // demo_summary.hpp).
  nlohmann::json describe() const;

 private:
  struct Demo {
    const char* id;
    const char* title;
    std::function<std::unique_ptr<Panel>(const UrlParams&)> make;
    std::unique_ptr<Panel> panel;
  };

  Panel& active();
  // Gives a trace from the page to the demo that reads traces, showing that demo.
  void deliver_trace(const TraceFile& trace);
  void draw_header();
  void draw_demo_buttons();
  void draw_keys_sheet();

  UrlParams params_;
  std::vector<Demo> demos_;
  std::size_t active_ = 0;
  bool embed_ = false;
  bool keys_sheet_open_ = false;
  bool select_tab_ = true;  // the tab bar must select active_ (first frame, or set elsewhere)
  ShareTexts share_;        // what the share / embed popup shows, made when it opens
  std::uint64_t frames_ = 0;
  double first_frame_at_ms_ = 0;
  double advance_ms_total_ = 0;       // CPU spent in the visible demo's advance()
  std::vector<double> recent_costs_;  // the last kCostWindow frame costs, ring buffer
  std::size_t next_cost_ = 0;
  static constexpr std::size_t kCostWindow = 120;
};

}  // namespace vigil::web
