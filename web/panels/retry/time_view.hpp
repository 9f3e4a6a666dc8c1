#pragma once

#include <vigil/retry/params.hpp>
#include "panels/retry/retry_view.hpp"
#include "scenes/scene.hpp"
#include "scenes/scene_strip.hpp"

namespace vigil::web {

// What the two views that run in simulated time (fleet, server) share: play, pause, step and
// restart, a speed, and the scene=outage-storm story told over the run, which holds at second 0
// until the reader sees the demo.
class TimeView : public RetryView {
 public:
  // URL keys of the open time view, beside the model's own.
  static constexpr ParamSpec kSecond{.flag = "second",
                                     .label = "open at second",
                                     .help = "open the run this many simulated seconds in",
                                     .def = 0,
                                     .min = 0,
                                     .max = 600,
                                     .view_min = 0,
                                     .view_max = 600,
                                     .integer = true};

  void advance(double real_ms) override;
  void draw_header() override;
  bool animating() const override;
  void opened() override { carry_ = 0; }

 protected:
  // `speed`: the view's simulated seconds per real second, its default and range.
  TimeView(const UrlParams& p, bool open, const ParamSpec& speed);
  // The end of a derived constructor: opens the run at &second=k, or starts the story.
  void open_at(const UrlParams& p, bool open);

  virtual void run_second() = 0;
  virtual bool finished() const = 0;
  virtual int second() const = 0;
  virtual int seconds() const = 0;
  virtual void restart() = 0;
  virtual void next_seed() = 0;
  // Puts the run at the story's start and returns the story.
  virtual Scene make_scene() = 0;

  bool scene_shown() const { return scene_.active(); }
  void start_scene();
  void narrate(std::string caption) { scene_.set_caption(std::move(caption)); }
  // One simulated second, and of the story if one is told.
  void step();
  void draw_play_controls();
  void save_time(UrlParams& p, bool open) const;
  void state_time(nlohmann::json& view, nlohmann::json& s) const;
  void drop_carry() { carry_ = 0; }

  bool playing_ = false;

 private:
  void begin_scene();  // the reader is here: the first beat, and play
  void play(double real_ms);

  const ParamSpec& speed_spec_;
  double speed_;
  double carry_ = 0;    // simulated seconds owed
  double step_ms_ = 0;  // the last simulated second, ms of compute
  Scene scene_;
  int scene_seconds_ = 0;  // the story's clock: runs on across a restart within it
  CaptionRoom caption_room_;
};

}  // namespace vigil::web
