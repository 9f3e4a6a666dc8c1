#pragma once

#include <functional>
#include <optional>
#include <string>

#include <vigil/base/time.hpp>
#include "scenes/scene.hpp"

namespace vigil::web {

// What the phi demo reports to its scene when a beat narrates.
struct PhiReadout {
  double threshold = 8;  // the phi detector the story follows
  double phi = 0;        // its phi now
  double peak_phi = 0;   // its highest phi since the last mark
  double mean_ms = 0;    // the fit of the gaps
  double std_ms = 0;
  double longest_gap_ms = 0;                      // the longest gap in the detector's window
  std::size_t false_alarms = 0;                   // suspicions of a live sender so far
  double false_suspicion_ms = 0;                  // and their total length
  std::optional<double> detection_ms;             // crash -> the suspicion in force
  std::optional<double> silence_at_detection_ms;  // silence when it began
};

// The demo's machinery the scene drives.
struct PhiSceneHooks {
  std::function<void()> mark;                // start the peak afresh from now
  std::function<void(Millis)> pause_sender;  // the sender stops from now for this long
  std::function<void()> crash_sender;
  std::function<PhiReadout()> read;
  std::function<void(std::string)> narrate;  // replaces the caption of the beat just reached
  std::function<void()> hold;                // the story is told: stop the clock
};

inline constexpr const char* kPauseCrashScene = "pause-crash";

// scene=pause-crash: a healthy stream, a process pause that phi takes for a crash (or nearly
// does), then a real crash and the time it takes to detect it.
Scene pause_crash_scene(double interval_ms, const PhiSceneHooks& hooks);

}  // namespace vigil::web
