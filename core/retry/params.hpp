// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>

#include <vigil/base/param_spec.hpp>

namespace vigil::retry {

// The retry demos' parameters (see ParamSpec): the models' defaults and ranges, the flags of
// `vigil lab retry ...` and the web demos' URL keys and sliders.

// Every run of the time demos (fleet, server) starts from this PRNG seed unless told otherwise.
inline constexpr ParamSpec kSeedParam = seed_spec(2);

// --- retry chain: amplification through N services retrying k times (retry/chain.hpp).
namespace chain_param {
inline constexpr ParamSpec depth{.flag = "depth",
                                 .label = "N services",
                                 .help = "services in the chain, N",
                                 .def = 5,
                                 .min = 1,
                                 .max = 64,
                                 .view_min = 1,
                                 .view_max = 20,
                                 .integer = true};
inline constexpr ParamSpec tries{.flag = "retries",
                                 .key = "tries",
                                 .alias = "retries",
                                 .label = "k attempts",
                                 .help = "attempts per hop, k (the first call included)",
                                 .def = 3,
                                 .min = 1,
                                 .max = 100,
                                 .view_min = 1,
                                 .view_max = 10,
                                 .integer = true};
inline constexpr ParamSpec fail{.flag = "fail",
                                .alias = "p",
                                .label = "p (last hop fails)",
                                .help = "failure probability of calls to the last service, p",
                                .def = 0.3,
                                .min = 0,
                                .max = 1,
                                .view_min = 0,
                                .view_max = 1,
                                .digits = 3};
inline constexpr std::array all{depth, tries, fail};
}  // namespace chain_param

// --- retry hysteresis: the fluid model (retry/hysteresis.hpp) and its load sweep.
namespace hysteresis_param {
inline constexpr ParamSpec timeout{.flag = "timeout",
                                   .label = "timeout (ms)",
                                   .unit = "ms",
                                   .help = "client timeout",
                                   .def = 50,
                                   .min = 0,
                                   .max = 100000,
                                   .min_open = true,
                                   .view_min = 2,
                                   .view_max = 500};
inline constexpr ParamSpec mu_max{.flag = "mu-max",
                                  .alias = "mu",
                                  .label = "mu_max (req/s)",
                                  .unit = "req/s",
                                  .help = "server capacity",
                                  .def = 1000,
                                  .min = 0,
                                  .max = 1e7,
                                  .min_open = true,
                                  .view_min = 100,
                                  .view_max = 5000};
inline constexpr ParamSpec l0{.flag = "l0",
                              .label = "L0 (ms)",
                              .unit = "ms",
                              .help = "base latency",
                              .def = 20,
                              .min = 0,
                              .max = 10000,
                              .min_open = true,
                              .view_min = 1,
                              .view_max = 200,
                              .digits = 1};
// 0.1 already traps the server at the queue limit whatever the load (see HysteresisModel).
inline constexpr ParamSpec alpha{.flag = "alpha",
                                 .label = "alpha",
                                 .help = "capacity degradation with latency",
                                 .def = 0,
                                 .min = 0,
                                 .max = 1e6,
                                 .view_min = 0,
                                 .view_max = 1,
                                 .digits = 2};
inline constexpr ParamSpec beta{.flag = "beta",
                                .label = "beta",
                                .help = "degradation exponent",
                                .def = 2,
                                .min = 0,
                                .max = 10,
                                .view_min = 0,
                                .view_max = 4,
                                .digits = 2};
inline constexpr ParamSpec gamma{.flag = "gamma",
                                 .label = "gamma",
                                 .help = "retry amplification (load x 1 + gamma in a storm)",
                                 .def = 2,
                                 .min = 0,
                                 .max = 100,
                                 .view_min = 0,
                                 .view_max = 10,
                                 .digits = 2};
inline constexpr ParamSpec kappa{.flag = "kappa",
                                 .label = "kappa (1/ms)",
                                 .unit = "per ms",
                                 .help = "sharpness of the retry onset",
                                 .def = 0.5,
                                 .min = 0,
                                 .max = 100,
                                 .min_open = true,
                                 .view_min = 0.02,
                                 .view_max = 5,
                                 .log = true,
                                 .digits = 3};
// The page's ceiling keeps RK4 steps per simulated second, which grow with eta * mu_max^2 (see
// retry::settle), near one frame's work.
inline constexpr ParamSpec eta{.flag = "eta",
                               .label = "eta",
                               .unit = "ms per req/s",
                               .help = "latency gained per second per req/s of excess load",
                               .def = 1,
                               .min = 0,
                               .max = 1000,
                               .min_open = true,
                               .view_min = 0.05,
                               .view_max = 5,
                               .log = true,
                               .digits = 2};
inline constexpr ParamSpec max_latency{.flag = "max-latency",
                                       .label = "max latency (ms)",
                                       .unit = "ms",
                                       .help = "queue limit",
                                       .def = 1000,
                                       .min = 0,
                                       .max = 100000,
                                       .min_open = true,
                                       .view_min = 100,
                                       .view_max = 10000,
                                       .log = true};
inline constexpr ParamSpec lambda_min{.flag = "lambda-min",
                                      .label = "lambda0 from",
                                      .unit = "req/s",
                                      .help = "lowest load",
                                      .def = 100,
                                      .min = 0,
                                      .max = 1e7,
                                      .min_open = true,
                                      .view_min = 5,
                                      .view_max = 5000};
inline constexpr ParamSpec lambda_max{.flag = "lambda-max",
                                      .label = "lambda0 to",
                                      .unit = "req/s",
                                      .help = "highest load",
                                      .def = 1350,
                                      .min = 0,
                                      .max = 1e7,
                                      .min_open = true,
                                      .view_min = 50,
                                      .view_max = 10000};
inline constexpr ParamSpec step{.flag = "step",
                                .label = "step (req/s)",
                                .unit = "req/s",
                                .help = "load step",
                                .def = 25,
                                .min = 0,
                                .max = 1e7,
                                .min_open = true,
                                .view_min = 5,
                                .view_max = 250};
inline constexpr std::array model{timeout, mu_max, l0, alpha, beta, gamma, kappa, eta, max_latency};
inline constexpr std::array sweep{lambda_min, lambda_max, step};
}  // namespace hysteresis_param

// --- retry fleet: clients retrying after an outage (retry/fleet.hpp, retry/backoff.hpp).
namespace fleet_param {
inline constexpr ParamSpec clients{.flag = "clients",
                                   .label = "clients",
                                   .help = "clients that failed at t = 0",
                                   .def = 4000,
                                   .min = 1,
                                   .max = 1e6,
                                   .view_min = 10,
                                   .view_max = 20000,
                                   .integer = true,
                                   .log = true};
inline constexpr ParamSpec seconds{.flag = "seconds",
                                   .label = "seconds",
                                   .unit = "s",
                                   .help = "seconds simulated",
                                   .def = 35,
                                   .min = 1,
                                   .max = 3600,
                                   .view_min = 5,
                                   .view_max = 120,
                                   .integer = true};
inline constexpr ParamSpec base{.flag = "base",
                                .label = "backoff base (s)",
                                .unit = "s",
                                .help = "backoff base",
                                .def = 1,
                                .min = 0,
                                .max = 3600,
                                .min_open = true,
                                .view_min = 0.01,
                                .view_max = 10,
                                .log = true,
                                .digits = 2};
inline constexpr ParamSpec cap{.flag = "cap",
                               .label = "backoff cap (s)",
                               .unit = "s",
                               .help = "backoff cap",
                               .def = 20,
                               .min = 0,
                               .max = 86400,
                               .min_open = true,
                               .view_min = 0.1,
                               .view_max = 120,
                               .log = true,
                               .digits = 1};
inline constexpr ParamSpec capacity{.flag = "capacity",
                                    .label = "capacity (req/s)",
                                    .unit = "req/s",
                                    .help = "server capacity",
                                    .def = 1000,
                                    .min = 0,
                                    .max = 1e7,
                                    .min_open = true,
                                    .view_min = 10,
                                    .view_max = 10000,
                                    .log = true};
inline constexpr std::array all{clients, seconds, base, cap, capacity};
}  // namespace fleet_param

// --- retry server: the metastable queue and its trigger (retry/overload_server.hpp).
namespace server_param {
inline constexpr ParamSpec arrival{.flag = "arrival",
                                   .label = "arrivals (req/s)",
                                   .unit = "req/s",
                                   .help = "first attempts per second (Poisson)",
                                   .def = 700,
                                   .min = 0,
                                   .max = 100000,
                                   .min_open = true,
                                   .view_min = 50,
                                   .view_max = 5000};
inline constexpr ParamSpec capacity{.flag = "capacity",
                                    .label = "capacity (req/s)",
                                    .unit = "req/s",
                                    .help = "service rate (exponential service)",
                                    .def = 1000,
                                    .min = 0,
                                    .max = 100000,
                                    .min_open = true,
                                    .view_min = 100,
                                    .view_max = 5000};
inline constexpr ParamSpec timeout{.flag = "timeout",
                                   .label = "timeout (ms)",
                                   .unit = "ms",
                                   .help = "client timeout per attempt",
                                   .def = 100,
                                   .min = 0,
                                   .max = 600000,
                                   .min_open = true,
                                   .view_min = 5,
                                   .view_max = 2000,
                                   .log = true};
inline constexpr ParamSpec tries{.flag = "tries",
                                 .label = "tries",
                                 .help = "attempts per request, the first included",
                                 .def = 3,
                                 .min = 1,
                                 .max = 10,
                                 .view_min = 1,
                                 .view_max = 10,
                                 .integer = true};
inline constexpr ParamSpec budget_ratio{.flag = "budget-ratio",
                                        .label = "budget ratio",
                                        .help = "retry budget: retries per first attempt",
                                        .def = 0.1,
                                        .min = 0,
                                        .max = 10,
                                        .view_min = 0,
                                        .view_max = 1,
                                        .digits = 2};
inline constexpr ParamSpec trigger_at{.flag = "trigger-at",
                                      .label = "starts at (s)",
                                      .unit = "s",
                                      .help = "when the trigger starts",
                                      .def = 10,
                                      .min = 1,
                                      .max = 600,
                                      .view_min = 1,
                                      .view_max = 100};
inline constexpr ParamSpec trigger_seconds{.flag = "trigger-seconds",
                                           .label = "lasts (s)",
                                           .unit = "s",
                                           .help = "how long the trigger lasts",
                                           .def = 5,
                                           .min = 0,
                                           .max = 600,
                                           .view_min = 0,
                                           .view_max = 60};
inline constexpr ParamSpec trigger_capacity{.flag = "trigger-capacity",
                                            .label = "capacity share",
                                            .help = "share of capacity left during the trigger",
                                            .def = 0.5,
                                            .min = 0,
                                            .max = 10,
                                            .min_open = true,
                                            .view_min = 0.05,
                                            .view_max = 2,
                                            .digits = 2};
inline constexpr ParamSpec trigger_load{.flag = "trigger-load",
                                        .label = "load x",
                                        .help = "load multiplier during the trigger",
                                        .def = 1,
                                        .min = 0,
                                        .max = 100,
                                        .view_min = 0,
                                        .view_max = 5,
                                        .digits = 2};
inline constexpr ParamSpec seconds{.flag = "seconds",
                                   .label = "run (s)",
                                   .unit = "s",
                                   .help = "seconds simulated",
                                   .def = 60,
                                   .min = 3,
                                   .max = 600,
                                   .view_min = 20,
                                   .view_max = 300,
                                   .integer = true};
inline constexpr std::array all{arrival,      capacity,   timeout,         tries,
                                budget_ratio, trigger_at, trigger_seconds, trigger_capacity,
                                trigger_load, seconds};
}  // namespace server_param

}  // namespace vigil::retry
