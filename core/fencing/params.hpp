// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>

#include <vigil/base/param_spec.hpp>

namespace vigil::fencing {

// The stale-leader demo's parameters (see ParamSpec): StaleLeaderOptions' defaults and ranges, the
// flags of `vigil lab fencing` and the web demo's URL keys and sliders. Times are whole
// milliseconds.
namespace stale_leader_param {
// A day bounds lease and pause: beyond it the timeline says nothing new.
inline constexpr double kMaxSpanMs = 86'400'000;

// A leader renews at every write, so the lease must outlast one write interval (checked by
// StaleLeaderOptions::validate): hence at least 2 ms.
inline constexpr ParamSpec lease{.flag = "lease",
                                 .label = "lease (ms)",
                                 .unit = "ms",
                                 .help = "lease length (a leader renews at every write)",
                                 .def = 1000,
                                 .min = 2,
                                 .max = kMaxSpanMs,
                                 .view_min = 100,
                                 .view_max = 5000,
                                 .integer = true};
inline constexpr ParamSpec pause{.flag = "pause",
                                 .label = "pause (ms)",
                                 .unit = "ms",
                                 .help = "how long the old leader is frozen (GC pause, SIGSTOP)",
                                 .def = 2000,
                                 .min = 0,
                                 .max = kMaxSpanMs,
                                 .view_min = 0,
                                 .view_max = 10000,
                                 .integer = true};
// The page's slider also stops below the lease.
inline constexpr ParamSpec interval{.flag = "interval",
                                    .label = "interval (ms)",
                                    .unit = "ms",
                                    .help = "time between a leader's writes; shorter than --lease",
                                    .def = 250,
                                    .min = 1,
                                    .max = kMaxSpanMs,
                                    .view_min = 20,
                                    .view_max = 1000,
                                    .integer = true};
inline constexpr ParamSpec old_writes{.flag = "old-writes",
                                      .key = "writes",
                                      .label = "old leader's writes",
                                      .help = "writes the old leader makes before the pause",
                                      .def = 2,
                                      .min = 0,
                                      .max = 1000,
                                      .view_min = 0,
                                      .view_max = 10,
                                      .integer = true};
// Tokens are 64-bit, but the command line and the page carry them as doubles: the range stops
// where every whole number is still exact. 0 means "no token".
inline constexpr ParamSpec token{
    .flag = "token",
    .label = "old leader's token",
    .help = "the old leader's fencing token; the new leader gets the next",
    .def = 41,
    .min = 1,
    .max = 1e15,
    .view_min = 1,
    .view_max = 1e9,
    .integer = true};
inline constexpr std::array all{lease, pause, interval, old_writes, token};
}  // namespace stale_leader_param

}  // namespace vigil::fencing
