#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vigil/sim/swim_cluster.hpp>
#include "scenes/scene.hpp"

namespace vigil::web {

// The SWIM demo's scripted stories (&scene=NAME): each a small cluster with a fixed seed, so that
// the same packets fly every time, and beats that inject one fault and narrate what follows.
struct SwimSceneSpec {
  std::string name;
  int nodes = 6;
  std::string profile = "local";
  bool lifeguard = true;
  std::uint32_t seed = 1;
  double delay_ms = 50;  // one-way link delay: long enough to watch a packet cross the ring
  double speed = 0.2;    // slow motion by default
  int focus = 0;         // the member the story is about
  int observer = -1;     // whose view colours the ring (-1: the consensus)
};

const std::vector<std::string>& swim_scene_names();
std::optional<SwimSceneSpec> swim_scene_spec(std::string_view name);

// The story's beats; actions act on whatever cluster `cluster()` returns when they run (a replay
// builds a new one), and set the playback tempo (a factor on the reader's speed) through `tempo`.
Scene make_swim_scene(const SwimSceneSpec& spec, std::function<sim::SwimCluster&()> cluster,
                      std::function<void(double)> tempo);

}  // namespace vigil::web
