#include "scenes/phi_scene.hpp"

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

namespace vigil::web {

namespace {

constexpr Millis kPauseAt{4000};
constexpr Millis kPauseFor{700};
// Long enough after the pause for the overdue heartbeat and a few more to arrive.
constexpr Millis kPauseToldAt{5400};
constexpr Millis kCrashAt{8000};
// The detector has grown patient after the pause (its window holds the 700 ms gap): this
// leaves it time to reach the threshold, and the crash still shows on the 10 s plot.
constexpr Millis kCrashToldAt{10500};

std::string phi_text(double phi) {
  if (!std::isfinite(phi)) return "∞";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", phi);
  return buf;
}

std::string printf_string(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

}  // namespace

Scene pause_crash_scene(double interval_ms, const PhiSceneHooks& hooks) {
  // What the pause beat measured, for the crash beat to compare with.
  auto std_before = std::make_shared<double>(0.0);
  std::vector<SceneBeat> beats;
  beats.push_back(
      {Millis{0},
       printf_string("A healthy sender: one heartbeat every %.0f ms, with a little jitter. "
                     "The detector learns the gaps; phi drops to 0 at each arrival and "
                     "stays far below the red threshold line.",
                     interval_ms),
       [hooks] { hooks.mark(); }});
  beats.push_back(
      {kPauseAt,
       printf_string("%.1f s: the sender freezes for %lld ms (a stop-the-world pause). "
                     "No heartbeats: the silence grows and phi climbs.",
                     kPauseAt.count() / 1000.0, static_cast<long long>(kPauseFor.count())),
       [hooks, std_before] {
         *std_before = hooks.read().std_ms;
         hooks.mark();
         hooks.pause_sender(kPauseFor);
       }});
  beats.push_back({kPauseToldAt, "", [hooks, std_before] {
                     const PhiReadout r = hooks.read();
                     const std::string verdict =
                         r.peak_phi >= r.threshold
                             ? printf_string(
                                   "it passed the threshold %.0f and suspected a live "
                                   "sender for %.0f ms: a false suspicion.",
                                   r.threshold, r.false_suspicion_ms)
                             : printf_string("just under the threshold %.0f: a near miss.",
                                             r.threshold);
                     hooks.narrate(printf_string(
                         "The sender is back: phi peaked at %s, %s The %.0f ms gap joined the "
                         "detector's window: its std-dev grew from %.0f to %.0f ms, so phi now "
                         "climbs more slowly.",
                         phi_text(r.peak_phi).c_str(), verdict.c_str(), r.longest_gap_ms,
                         *std_before, r.std_ms));
                     hooks.mark();
                   }});
  beats.push_back({kCrashAt,
                   printf_string("%.1f s: the sender crashes. No heartbeat will come again: phi "
                                 "climbs and stays up.",
                                 kCrashAt.count() / 1000.0),
                   [hooks] {
                     hooks.mark();
                     hooks.crash_sender();
                   }});
  beats.push_back(
      {kCrashToldAt, "", [hooks] {
         const PhiReadout r = hooks.read();
         if (r.detection_ms)
           hooks.narrate(printf_string(
               "Detected %.0f ms after the crash: phi passed %.0f after %.0f ms of "
               "silence and stays there (now %s). The pause cost %zu false "
               "suspicion%s; a lower threshold detects sooner and suspects more.",
               *r.detection_ms, r.threshold, r.silence_at_detection_ms.value_or(0.0),
               phi_text(r.phi).c_str(), r.false_alarms, r.false_alarms == 1 ? "" : "s"));
         else
           hooks.narrate(printf_string(
               "%.1f s after the crash phi is %s, still under %.0f: not detected yet.",
               (kCrashToldAt - kCrashAt).count() / 1000.0, phi_text(r.phi).c_str(), r.threshold));
         hooks.hold();
       }});
  return Scene(kPauseCrashScene, std::move(beats));
}

}  // namespace vigil::web
