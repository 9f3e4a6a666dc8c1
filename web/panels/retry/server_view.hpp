#pragma once

#include <optional>
#include <string>
#include <vector>

#include <vigil/retry/overload_server.hpp>
#include "panels/retry/time_view.hpp"
#include "scenes/retry_scene.hpp"

namespace vigil::web {

// One queue, its clients' timeouts and retries, and a trigger that overloads it for a while: a
// metastable failure (Bronson et al., "Metastable Failures in Distributed Systems", HotOS 2021),
// with and without the mitigations, beside a run without any.
class ServerView : public TimeView {
 public:
  static constexpr ParamSpec kSpeed{.flag = "speed",
                                    .label = "sim s / real s",
                                    .help = "simulated seconds per real second",
                                    .def = 5,
                                    .min = 0.5,
                                    .max = 60,
                                    .view_min = 0.5,
                                    .view_max = 60,
                                    .digits = 1};

  ServerView(const UrlParams& p, bool open);

  void draw_controls() override;
  void draw_plots() override;
  float plots_em() const override;
  void state(nlohmann::json& s) const override;
  void save(UrlParams& p, bool open) const override;

 private:
  void run_second() override;
  bool finished() const override { return !server_ || server_->finished(); }
  int second() const override { return server_ ? server_->elapsed() : 0; }
  int seconds() const override { return options_.seconds; }
  void restart() override;
  void next_seed() override;
  Scene make_scene() override;

  ServerReadout readout() const;
  std::vector<std::string> cli(const retry::Mitigations& m) const;
  void draw_summary_table(const std::string& mine);
  bool summary_on_side() const;  // too narrow for seven columns
  void draw_plot(const char* id, const retry::OverloadServer& server, const char* title,
                 float height);

  retry::ServerOptions options_;
  std::optional<retry::OverloadServer> server_, baseline_;  // baseline: no mitigation
  std::string error_;
  bool compare_ = true;
  bool show_queue_ = true;
  bool show_capacity_ = true, show_offered_ = true, show_throughput_ = true, show_goodput_ = true;
  float narrow_plots_em_ = 0;  // on a phone: the height of what draw_plots drew last, in fonts
};

}  // namespace vigil::web
