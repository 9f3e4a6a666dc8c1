// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>

#include <vigil/base/param_spec.hpp>

namespace vigil::lab {

// The SWIM demos' parameters (see ParamSpec): SwimRunOptions' and SwimProbeOptions' defaults and
// ranges, the flags of `vigil lab swim|swim-probe` and the web demo's URL keys and sliders.

// --- swim: crash members of a simulated cluster (SwimRunOptions), and the page's cluster.
namespace swim_param {
// The page runs every member in the browser: a thousand still play in real time.
inline constexpr ParamSpec nodes{.flag = "nodes",
                                 .key = "n",
                                 .label = "nodes",
                                 .help = "cluster size",
                                 .def = 100,
                                 .min = 2,
                                 .max = 5000,
                                 .view_min = 2,
                                 .view_max = 1000,
                                 .integer = true,
                                 .log = true};
// Also below the cluster size (SwimRunOptions::validate). The page's &kill= names one member to
// crash, not a count, so it is not this parameter.
inline constexpr ParamSpec kill{.flag = "kill",
                                .label = "crashed",
                                .help = "members crashed after warm-up",
                                .def = 1,
                                .min = 0,
                                .max = 4999,
                                .view_min = 0,
                                .view_max = 100,
                                .integer = true};
inline constexpr ParamSpec periods{.flag = "periods",
                                   .label = "periods",
                                   .help = "probe periods observed after the crash",
                                   .def = 60,
                                   .min = 1,
                                   .max = 100000,
                                   .view_min = 10,
                                   .view_max = 600,
                                   .integer = true};
// Beyond 60% a probe and its indirect helpers mostly fail, and the page shows little but churn.
inline constexpr ParamSpec loss = loss_spec(0, 0.6, "independent loss probability per datagram");
// Also, with --kill, at most the cluster size (SwimRunOptions::validate).
inline constexpr ParamSpec slow{.flag = "slow",
                                .label = "slow members",
                                .help = "members that read incoming datagrams late",
                                .def = 0,
                                .min = 0,
                                .max = 5000,
                                .view_min = 0,
                                .view_max = 100,
                                .integer = true};
inline constexpr ParamSpec slow_periods{.flag = "slow-periods",
                                        .label = "lateness (periods)",
                                        .unit = "periods",
                                        .help = "how late the slow members read",
                                        .def = 5,
                                        .min = 0,
                                        .max = 100,
                                        .view_min = 0,
                                        .view_max = 20,
                                        .digits = 1};
inline constexpr ParamSpec seed = seed_spec(1, "PRNG seed");
inline constexpr std::array all{nodes, kill, periods, loss, slow, slow_periods};
}  // namespace swim_param

// --- swim-probe: how often a probe of a live member fails under loss (SwimProbeOptions).
namespace swim_probe_param {
// The command line asks for it every time (the default is the model's).
inline constexpr ParamSpec loss = loss_spec(0.05, 0.6, "independent loss probability per message");
inline constexpr ParamSpec indirect{.flag = "indirect",
                                    .label = "indirect helpers",
                                    .help = "indirect helpers asked (IndirectChecks)",
                                    .def = 3,
                                    .min = 0,
                                    .max = 16,
                                    .view_min = 0,
                                    .view_max = 8,
                                    .integer = true};
inline constexpr ParamSpec probes{.flag = "probes",
                                  .label = "probes",
                                  .help = "probes to simulate",
                                  .def = 200000,
                                  .min = 1,
                                  .max = 100'000'000,
                                  .view_min = 1000,
                                  .view_max = 1'000'000,
                                  .integer = true,
                                  .log = true};
// Also at least indirect + 2 (SwimProbeOptions::validate): the prober, its target and helpers.
inline constexpr ParamSpec nodes{.flag = "nodes",
                                 .label = "nodes",
                                 .help = "cluster size",
                                 .def = 20,
                                 .min = 2,
                                 .max = 1000,
                                 .view_min = 2,
                                 .view_max = 100,
                                 .integer = true};
inline constexpr ParamSpec seed = seed_spec(2002, "PRNG seed");
inline constexpr std::array all{loss, indirect, probes, nodes};
}  // namespace swim_probe_param

}  // namespace vigil::lab
