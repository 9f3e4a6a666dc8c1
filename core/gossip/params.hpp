// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>

#include <vigil/base/param_spec.hpp>

namespace vigil::gossip {

// The gossip demos' parameters (see ParamSpec): the models' defaults and ranges, the flags of
// `vigil lab gossip|membership|heartbeats` and the web demo's URL keys and sliders. Both views of
// the page share one member count under the URL key "n".

// --- one rumour (SpreadOptions, lab::GossipOptions): `vigil lab gossip`, the page's spread view.
namespace spread_param {
inline constexpr ParamSpec nodes{.flag = "nodes",
                                 .key = "n",
                                 .label = "members",
                                 .help = "members",
                                 .def = 1000,
                                 .min = 1,
                                 .max = 10'000'000,
                                 .view_min = 10,
                                 .view_max = 1'000'000,
                                 .integer = true,
                                 .log = true};
inline constexpr ParamSpec fanout{.flag = "fanout",
                                  .label = "fanout",
                                  .help = "contacts per member per round",
                                  .def = 1,
                                  .min = 1,
                                  .max = 1000,
                                  .view_min = 1,
                                  .view_max = 10,
                                  .integer = true};
// A lost message is drawn per message: at 1 nothing would ever arrive, so 1 itself is refused.
inline constexpr ParamSpec loss = loss_spec(0, 0.9, "independent loss probability per message");
// Also below the member count (SpreadOptions::validate): the rumour starts at a live member.
inline constexpr ParamSpec dead{
    .flag = "dead",
    .label = "dead",
    .help = "crashed members (the last ones): never informed, never answer",
    .def = 0,
    .min = 0,
    .max = 9'999'999,
    .view_min = 0,
    .view_max = 999'999,
    .integer = true,
    .log = true};
inline constexpr ParamSpec max_rounds{.flag = "max-rounds",
                                      .label = "round cap",
                                      .help = "round cap per run; 0 for 10 x (log2 n + 10)",
                                      .def = 0,
                                      .min = 0,
                                      .max = 1'000'000,
                                      .view_min = 0,
                                      .view_max = 1000,
                                      .integer = true};
inline constexpr ParamSpec trials{.flag = "trials",
                                  .label = "trials",
                                  .help = "runs averaged",
                                  .def = 5,
                                  .min = 1,
                                  .max = 10000,
                                  .view_min = 1,
                                  .view_max = 10,
                                  .integer = true};
// The seed with which mulberry32 reproduces the JavaScript push table digit for digit.
inline constexpr ParamSpec seed = seed_spec(44);
inline constexpr std::array all{nodes, fanout, trials, loss, dead, max_rounds};
}  // namespace spread_param

// --- heartbeat-counter membership (HeartbeatConfig, lab::MembershipOptions): `vigil lab
// membership`, the page's membership view.
namespace membership_param {
// Every member holds a list of n entries and receives about fanout lists a round: n² memory and
// n² · fanout work a round, interactive up to a few thousand members; the page sweeps twelve
// T_fail values between frames, so it stops at 200.
inline constexpr ParamSpec nodes{.flag = "nodes",
                                 .key = "n",
                                 .label = "members",
                                 .help = "members",
                                 .def = 100,
                                 .min = 2,
                                 .max = 2000,
                                 .view_min = 10,
                                 .view_max = 200,
                                 .integer = true};
inline constexpr ParamSpec fanout{.flag = "fanout",
                                  .label = "fanout",
                                  .help = "peers each member sends its list to per round",
                                  .def = 2,
                                  .min = 1,
                                  .max = 100,
                                  .view_min = 1,
                                  .view_max = 10,
                                  .integer = true};
// The page selects one T_fail of the twelve it sweeps; the command line takes a list.
inline constexpr ParamSpec t_fail{.flag = "tfail",
                                  .label = "T_fail",
                                  .help = "rounds without growth before failed",
                                  .def = 10,
                                  .min = 1,
                                  .max = 100000,
                                  .view_min = 1,
                                  .view_max = 12,
                                  .integer = true};
// Also at least T_fail when not 0 (HeartbeatConfig::validate).
inline constexpr ParamSpec t_cleanup{.flag = "tcleanup",
                                     .label = "T_cleanup",
                                     .help =
                                         "rounds without growth before the entry is dropped; 0 "
                                         "for 2 x tfail",
                                     .def = 0,
                                     .min = 0,
                                     .max = 100000,
                                     .view_min = 0,
                                     .view_max = 100,
                                     .integer = true};
// The command line's 30 trials of 40 rounds take seconds for twelve T_fail values: the page
// offers at most 10 trials and opens at 3 (web/panels/gossip_panel.hpp).
inline constexpr ParamSpec trials{.flag = "trials",
                                  .label = "trials",
                                  .help = "independent clusters per T_fail",
                                  .def = 30,
                                  .min = 1,
                                  .max = 1000,
                                  .view_min = 1,
                                  .view_max = 10,
                                  .integer = true};
inline constexpr ParamSpec rounds{.flag = "rounds",
                                  .key = "watched",
                                  .label = "rounds watched",
                                  .help = "rounds watched for false suspicions before the crash",
                                  .def = 40,
                                  .min = 0,
                                  .max = 100000,
                                  .view_min = 10,
                                  .view_max = 100,
                                  .integer = true};
inline constexpr ParamSpec loss =
    loss_spec(0, 0.9, "independent loss probability per gossip message");
inline constexpr ParamSpec seed = seed_spec(1998);
inline constexpr std::array all{nodes, fanout, t_fail, t_cleanup, trials, rounds, loss};
}  // namespace membership_param

// --- messages per interval (lab::HeartbeatCostOptions): `vigil lab heartbeats`, counted by
// formula, so its range is wide.
namespace heartbeat_cost_param {
inline constexpr ParamSpec nodes{.flag = "nodes",
                                 .label = "members",
                                 .help = "members",
                                 .def = 100,
                                 .min = 2,
                                 .max = 1'000'000,
                                 .view_min = 2,
                                 .view_max = 10000,
                                 .integer = true,
                                 .log = true};
// Also below the member count (HeartbeatCostOptions::validate).
inline constexpr ParamSpec fanout{.flag = "fanout",
                                  .label = "fanout",
                                  .help = "gossip fanout",
                                  .def = 2,
                                  .min = 1,
                                  .max = 999'999,
                                  .view_min = 1,
                                  .view_max = 10,
                                  .integer = true};
inline constexpr std::array all{nodes, fanout};
}  // namespace heartbeat_cost_param

}  // namespace vigil::gossip
