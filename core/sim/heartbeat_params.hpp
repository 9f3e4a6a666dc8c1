// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>

#include <vigil/base/param_spec.hpp>

namespace vigil::sim {

// A simulated heartbeat stream's parameters (see ParamSpec): HeartbeatConfig's range checks and
// the phi demo's URL keys and sliders for its live stream. The defaults are the page's: a
// 100 ms cadence over a slightly noisy link.
namespace heartbeat_param {
// A day bounds every time: a cadence or delay beyond it says nothing new about detection.
inline constexpr double kMaxMs = 86'400'000;

// Whole milliseconds, like every time in the simulation.
inline constexpr ParamSpec interval{.flag = "interval",
                                    .label = "interval (ms)",
                                    .unit = "ms",
                                    .help = "time between heartbeats",
                                    .def = 100,
                                    .min = 1,
                                    .max = kMaxMs,
                                    .view_min = 20,
                                    .view_max = 2000,
                                    .integer = true};
inline constexpr ParamSpec delay{.flag = "delay",
                                 .label = "delay (ms)",
                                 .unit = "ms",
                                 .help = "mean one-way delay",
                                 .def = 30,
                                 .min = 0,
                                 .max = kMaxMs,
                                 .view_min = 0,
                                 .view_max = 500};
// The delay is a normal deviate truncated at 0 (DelayModel::normal).
inline constexpr ParamSpec jitter{.flag = "jitter",
                                  .label = "jitter (ms)",
                                  .unit = "ms",
                                  .help = "standard deviation of the one-way delay",
                                  .def = 20,
                                  .min = 0,
                                  .max = kMaxMs,
                                  .view_min = 0,
                                  .view_max = 300};
inline constexpr ParamSpec loss{.flag = "loss",
                                .label = "loss",
                                .help = "probability that a heartbeat is lost",
                                .def = 0.05,
                                .min = 0,
                                .max = 1,
                                .view_min = 0,
                                .view_max = 0.5,
                                .percent = true};
inline constexpr ParamSpec seed = seed_spec(1, "PRNG seed of the stream's delays and losses");
inline constexpr std::array all{interval, delay, jitter, loss, seed};
}  // namespace heartbeat_param

}  // namespace vigil::sim
