// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>

#include <vigil/base/param_spec.hpp>

namespace vigil::detect {

// The inputs of the phi formula (detect::phi, see ParamSpec): its range checks, the flags of
// `vigil lab phi` and the phi demo's URL keys and sliders for its reference distribution. The
// defaults are the page's (Hayashibara et al.'s example: a 1 s cadence, 50 ms spread, 1.2 s of
// silence); the command line requires --mean, --silence and, for the normal and logistic
// models, --std.
namespace phi_param {
// A day bounds every time: phi is already infinite long before.
inline constexpr double kMaxMs = 86'400'000;

inline constexpr ParamSpec mean{.flag = "mean",
                                .label = "mean (ms)",
                                .unit = "ms",
                                .help = "mean inter-arrival time",
                                .def = 1000,
                                .min = 0,
                                .max = kMaxMs,
                                .min_open = true,
                                .view_min = 1,
                                .view_max = 3000,
                                .digits = 1};
inline constexpr ParamSpec std_dev{.flag = "std",
                                   .label = "std-dev (ms)",
                                   .unit = "ms",
                                   .help = "standard deviation (normal and logistic)",
                                   .def = 50,
                                   .min = 0,
                                   .max = kMaxMs,
                                   .min_open = true,
                                   .view_min = 1,
                                   .view_max = 1000,
                                   .digits = 1};
inline constexpr ParamSpec silence{.flag = "silence",
                                   .label = "silence (ms)",
                                   .unit = "ms",
                                   .help = "time since the last heartbeat",
                                   .def = 1200,
                                   .min = 0,
                                   .max = kMaxMs,
                                   .view_min = 0,
                                   .view_max = 6000};
// Akka's acceptable-heartbeat-pause.
inline constexpr ParamSpec pause{.flag = "pause",
                                 .label = "pause margin (ms)",
                                 .unit = "ms",
                                 .help = "pause margin added to the mean",
                                 .def = 0,
                                 .min = 0,
                                 .max = kMaxMs,
                                 .view_min = 0,
                                 .view_max = 3000};
inline constexpr std::array all{mean, std_dev, silence, pause};

// The phi demo's two phi detectors, whose thresholds the reader drags on the plot of phi over
// time (page only: the lab's detectors are fixed at 8 and 12). The plot shows 0 to 16; tuning on
// a trace may recommend more, which the plot's axis then stretches to.
constexpr ParamSpec threshold_spec(std::string_view key, std::string_view flag,
                                   std::string_view label, std::string_view help, double def) {
  return {.flag = flag,
          .key = key,
          .label = label,
          .help = help,
          .def = def,
          .min = 0.5,
          .max = 1000,
          .view_min = 0.5,
          .view_max = 1000,
          .digits = 1};
}
inline constexpr ParamSpec threshold_a = threshold_spec("threshold_a", "threshold-a", "threshold A",
                                                        "the first phi detector's threshold", 8);
inline constexpr ParamSpec threshold_b = threshold_spec("threshold_b", "threshold-b", "threshold B",
                                                        "the second phi detector's threshold", 12);
}  // namespace phi_param

}  // namespace vigil::detect
