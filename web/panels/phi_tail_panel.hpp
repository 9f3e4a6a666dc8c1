#pragma once

#include <array>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>

#include <vigil/base/time.hpp>
#include <vigil/detect/phi_accrual.hpp>
#include <vigil/detect/suspicion_tracker.hpp>
#include <vigil/sim/heartbeat_stream.hpp>
#include "panels/panel.hpp"
#include "scenes/phi_scene.hpp"
#include "scenes/scene.hpp"
#include "scenes/scene_strip.hpp"
#include "ui/phi_trace.hpp"
#include "ui/url_params.hpp"

namespace vigil::web {

// The phi tail demo: a reference distribution of heartbeat gaps with the tail beyond the current
// silence shaded (phi is -log10 of that area), and a live simulated heartbeat stream whose phi is
// plotted over time for each tail model.
class PhiTailPanel : public Panel {
 public:
  explicit PhiTailPanel(const UrlParams& params);

  // Moves the live stream forward by a frame's worth of wall time.
  void advance(double real_ms) override;
  void draw() override;
  nlohmann::json state() const override;
  bool animating() const override;
  void save(UrlParams& params) const override;
  // The reader's own trace replaces the simulated stream (file picker, drop or trace=URL).
  bool load_trace(const TraceFile& file) override;

 private:
  static constexpr std::size_t kModels = 4;  // normal, logistic, exponential, empirical
  // Five detectors on the live stream: three fixed timeouts and phi (normal model)
  // above two thresholds the user can drag.
  static constexpr std::size_t kDetectors = 5;

  struct Sample {
    double t_s;
    std::array<double, kModels> phi;
    std::uint8_t suspecting;  // bit i: detector i suspects
  };

  bool detector_suspects(std::size_t i) const;
  double suspicion_delay_ms(std::size_t i) const;  // silence at which detector i suspects
  std::string detector_name(std::size_t i) const;
  void draw_timeline(float height);
  void draw_detector_table();
  nlohmann::json detectors_json() const;

  void restart_live();
  void reset_detectors();  // for the stream's or the trace's cadence
  // Where heartbeats come from: the simulated stream, or the reader's trace played back.
  void take_arrivals(std::vector<Millis>& out);
  std::optional<Millis> crash_at() const;  // the stream's crash, or where the trace was cut
  bool sender_crashed() const;
  double cadence_ms() const;
  double timeout_ms(std::size_t i) const;
  double history_seconds() const;
  const char* time_label() const;
  TraceDetectors trace_detectors() const;

  Millis trace_end() const;
  void close_trace();
  void seek_trace(Millis t);
  void draw_trace_controls();
  void draw_trace_table();
  void draw_frontier_plot(float height);
  nlohmann::json trace_json() const;
  // Runs the stream to `t`, with the scene's beats at their exact times on the way.
  void run_to(Millis t);
  void simulate_to(Millis t);

  // scene=pause-crash: the story, its clock held until the reader sees the demo.
  void start_scene();
  void begin_scene();  // the story starts now: its first beat at once
  void step_scene();   // to the next heartbeat's arrival, or the next beat if none comes first
  PhiReadout scene_readout() const;
  void note_silence_end(Millis arrived);  // before the heartbeat arriving then is counted
  void draw_scene();
  void apply_link();
  double reference_phi() const;
  std::optional<double> live_silence_ms() const;
  void follow_live();

  void draw_controls();
  void draw_reference_plot(float height);
  void draw_live_phi_plot(float height);
  void draw_histogram_plot(float height);

  // The reference distribution (sliders, or the live fit when following it); from the URL or
  // detect::phi_param's defaults.
  double mean_ms_ = 0, std_ms_ = 0, pause_ms_ = 0, silence_ms_ = 0;
  int model_ = 0;
  bool follow_live_ = false;
  bool log_density_ = false;  // a log axis shows the tail's shape, invisible on a linear one

  // The live stream and one detector per tail model, all fed the same arrivals.
  // From the URL or sim::heartbeat_param's defaults.
  double interval_ms_ = 0, delay_ms_ = 0, jitter_ms_ = 0;
  double loss_ = 0;  // a probability; the page shows it in %
  std::uint32_t seed_ = 0;
  std::uint32_t restarts_ = 0;
  std::optional<sim::HeartbeatStream> stream_;
  std::array<std::optional<detect::PhiAccrual>, kModels> detectors_;
  Millis now_{0};
  double carry_ms_ = 0;
  std::uint64_t received_ = 0;
  std::deque<Sample> history_;
  double thresholds_[2] = {8.0, 12.0};
  std::array<detect::SuspicionTracker, kDetectors> trackers_;
  std::array<Millis, kDetectors> trackers_at_{};  // each tracker's latest observation
  std::string link_error_;

  // A reader's trace, played back on the same time axis at a chosen speed.
  mutable std::optional<PhiTrace> trace_;  // mutable: its figures are computed on demand
  std::string trace_url_;  // when it came from trace=URL, which then stays in the page's URL
  std::string trace_error_;
  std::string trace_sender_;  // sender= from the URL, for the trace it names
  detect::TimeUnit trace_unit_ = detect::TimeUnit::automatic;
  std::size_t trace_next_ = 0;   // the next arrival to deliver
  std::vector<Millis> arrived_;  // this step's arrivals, reused: at 1000x a frame brings thousands
  std::optional<Millis> trace_cut_;
  int trace_speed_ = 1;  // index into kTraceSpeeds
  bool trace_playing_ = true;
  // The live stream runs by itself, unless the reader asked for reduced motion.
  bool live_playing_ = true;
  double budget_ = 0, confidence_ = 0;  // tuning, from lab::tune_param

  Scene scene_;
  bool scene_playing_ = true;
  CaptionRoom caption_room_;
  // From the scene's last mark: the highest phi, and how long phi stayed above threshold A,
  // both taken exactly at each silence's end (a silence's phi peaks as it ends), so that the
  // story tells the same numbers at any frame rate.
  double scene_peak_phi_ = 0;
  double scene_false_ms_ = 0;
};

}  // namespace vigil::web
