#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <vigil/base/time.hpp>

namespace vigil::web {

// One beat of a scripted story: at `at` (simulated time since the scene began) the action runs
// (a crash, a lossy link, a heal) and the caption becomes what the reader sees.
struct SceneBeat {
  Millis at{0};
  std::string caption;
  std::function<void()> action;  // may be empty: a beat that only narrates
};

// A short story told over a demo's simulation (a crash and its detection, a partition and its
// heal). The demo owns its simulation and clock; it asks the scene which beats are due as time
// passes. The scene waits for the reader: it holds at time zero until the demo has been in view
// (see screen::in_view), so that it is not over before anyone reads it.
class Scene {
 public:
  Scene() = default;
  Scene(std::string name, std::vector<SceneBeat> beats);

  bool active() const { return !name_.empty(); }
  const std::string& name() const { return name_; }
  // Whether the story may run: once true it stays true (scrolling away pauses the whole demo).
  bool started() const { return started_; }
  void start() { started_ = true; }

  // Runs every beat due at or before `since_start`; returns how many ran.
  std::size_t run_due(Millis since_start);
  // When the next beat is due (Millis::max() when the story is told).
  Millis next_at() const;
  bool finished() const { return next_ >= beats_.size(); }
  // 0 before the first beat, then the number of beats reached.
  std::size_t beat() const { return next_; }
  // The beat whose caption shows, from 0 (also 0 before the first beat has run): what every
  // demo's state() reports as `step`.
  std::size_t current() const { return next_ == 0 ? 0 : next_ - 1; }
  std::size_t beats() const { return beats_.size(); }
  const std::string& caption() const;
  // Rewrites the caption of the beat reached last: an action may narrate with numbers that are
  // only known when it runs (how high phi went, how long detection took).
  void set_caption(std::string caption);

 private:
  std::string name_;
  std::vector<SceneBeat> beats_;
  std::size_t next_ = 0;
  bool started_ = false;
};

}  // namespace vigil::web
