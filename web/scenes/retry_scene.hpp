#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "scenes/scene.hpp"

namespace vigil::web {

inline constexpr const char* kOutageStormScene = "outage-storm";

// One fleet of the fleet view, as its scene narrates it.
struct FleetRunReadout {
  std::int64_t offered = 0;  // calls that reached the server in the latest second
  std::int64_t calls = 0;    // retries so far
  std::int64_t waiting = 0;  // clients still without an answer
  double peak_rps = 0;       // the busiest 100 ms so far, as a rate
};

struct FleetReadout {
  int clients = 0;
  double capacity_rps = 0;
  FleetRunReadout none, exponential, full_jitter;
};

struct FleetSceneHooks {
  std::function<FleetReadout()> read;
  std::function<void()> show_three;  // hide all fleets but none, exponential and full jitter
  std::function<void(std::string)> narrate;
};

// scene=outage-storm in the fleet view: 4,000 failed calls at once, and what each backoff makes of
// them: a storm without backoff, synchronised waves without jitter, a quick drain with it.
Scene fleet_outage_scene(const FleetReadout& setup, const FleetSceneHooks& hooks);

// One server run of the server view over its latest second.
struct ServerRunReadout {
  int second = 0;
  std::int64_t offered = 0;  // first attempts and retries
  std::int64_t retries = 0;
  std::int64_t throughput = 0;
  std::int64_t goodput = 0;
  std::int64_t queue = 0;
  double wasted_share = 0;    // completions nobody waited for, over the run so far
  int recovered_second = -1;  // the first second after the trigger with goodput back near arrivals
};

struct ServerReadout {
  double arrival_rps = 0, capacity_rps = 0, timeout_ms = 0;
  double trigger_at_s = 0, trigger_seconds = 0, trigger_capacity = 0;
  double budget_ratio = 0;
  ServerRunReadout run;       // the run on top: no mitigation in act 1, the budget in act 2
  bool has_baseline = false;  // act 2 compares with a run without mitigation
  ServerRunReadout baseline;
};

struct ServerSceneHooks {
  std::function<ServerReadout()> read;
  std::function<void()> budget_act;  // the same run again with a retry budget, beside none
  std::function<void(std::string)> narrate;
};

// scene=outage-storm in the server view: a server that slows down for a few seconds, the storm
// of retries it sets off, the storm outliving its cause (a metastable failure), then the same
// with a retry budget. Beats fall on whole simulated seconds of the scene's own clock, which
// runs on across the second act's restart.
Scene server_outage_scene(const ServerReadout& setup, const ServerSceneHooks& hooks);
// The second act starts at this second of the scene.
inline constexpr int kServerActTwoAt = 30;
// Each act's run is this long: enough for the storm to settle and the trigger to be forgotten.
inline constexpr int kServerSceneRunSeconds = 30;

}  // namespace vigil::web
