// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/retry/params.hpp>

namespace vigil::retry {

// A fluid model of a retry storm (a metastable failure in the sense of Bronson et al. 2021),
// with latency L (ms) as the state:
//
//   offered(L)  = lambda0 * [1 + gamma * sigmoid(kappa * (L - timeout))]    (the usual form)
//   capacity(L) = mu_max / (1 + alpha * (L / L0)^beta)                      (the usual form)
//   dL/dt       = eta * (offered(L) - carried(L))
//
// The usual form balances offered load against capacity(L) directly. Both sides then move the same
// way as L grows (more retries, less capacity), so offered - capacity only ever increases: there
// is at most one equilibrium and it is unstable, and latency either sinks to its floor or runs
// away for good. No bistability, no recovery. What latency balances against is the load the
// server *carries* at that latency: a queue shows latency above its floor only when it is busy,
// and busier means longer. We take the M/M/1 waiting time W = s * rho / (1 - rho), with
// s = 1000 / capacity ms the service time and W = L - L0 the queueing part of the latency, so
//
//   carried(L) = capacity(L) * rho,   rho = W / (W + s),
//
// which rises from 0 at L = L0 towards capacity. Equilibria are the roots of
// offered(L) = carried(L); a root is stable when offered - carried falls through zero there.
// With the retry sigmoid the curves cross three times between two loads: a healthy root, an
// unstable one near the timeout, and the storm. Above the upper load the healthy root is gone
// (collapse); below the lower one the storm is (recovery).
//
// The storm's latency needs a ceiling: with offered load (1 + gamma) * lambda0 above what the
// server can carry, an open queue grows without bound. `max_latency_ms` is that ceiling, the
// queue limit of a real server (arrivals beyond it are refused); latency is clamped to
// [L0, max_latency_ms], and a pinned ceiling counts as a stable equilibrium "at the limit".
//
// Capacity degradation (alpha > 0) is a second sustaining effect in its own right: a server that
// loses capacity as its queue grows is trapped at the ceiling even without retries, whatever the
// load, once capacity(max_latency) falls below it. With alpha = 0.1 the server
// could not carry even 909 req/s at its base latency (capacity(L0) = mu_max / 1.1), let alone
// 950 before collapse; the model's usual figures (collapse near 950, recovery
// near 320, about mu_max / (1 + gamma)) are those of a server without degradation, so alpha
// defaults to 0 here and stays available as an option.
struct HysteresisModel {
  // Defaults and ranges: hysteresis_param (retry/params.hpp).
  double timeout_ms = hysteresis_param::timeout.def;
  double mu_max = hysteresis_param::mu_max.def;  // req/s
  double l0_ms = hysteresis_param::l0.def;       // base latency of an idle server
  double alpha = hysteresis_param::alpha.def;    // capacity degradation (0.1 traps the server)
  double beta = hysteresis_param::beta.def;
  // Retry amplification: a storm multiplies load by 1 + gamma (3 tries at the default 2).
  double gamma = hysteresis_param::gamma.def;
  // 1/ms: at the default 0.5 retries rise from 12% to 88% of their maximum within +-4 ms.
  double kappa = hysteresis_param::kappa.def;
  // ms of latency per request/s of excess for a second. The default 1 is 1000 / mu_max: an excess
  // request waits one service time behind the queue.
  double eta = hysteresis_param::eta.def;
  double max_latency_ms = hysteresis_param::max_latency.def;  // the queue limit

  Status validate() const;

  double offered(double latency_ms, double lambda0) const;
  double capacity(double latency_ms) const;
  double carried(double latency_ms) const;
  // d latency / dt in ms per second.
  double drift(double latency_ms, double lambda0) const;
  // Responses per second that reach their client before the timeout: the carried load times the
  // M/M/1 chance that a request waits no longer than timeout - L0,
  //   P(W <= t) = 1 - rho * exp(-rho * t / W_mean).
  double goodput(double latency_ms) const;
};

struct Equilibrium {
  double latency_ms = 0.0;
  bool stable = false;
  bool at_limit = false;  // pinned at max_latency_ms, not a root
};

// Every equilibrium for one load, lowest latency first. Roots are bracketed on a 0.05 ms grid and
// refined by bisection; two roots closer than that (right at a fold) may be missed.
std::vector<Equilibrium> equilibria(const HysteresisModel& model, double lambda0);

struct Settled {
  double latency_ms = 0.0;
  double seconds = 0.0;  // simulated time it took
  bool converged = false;
};

// Integrates dL/dt from `start_ms` with classical RK4 at a fixed step, clamping L to
// [L0, max_latency_ms] after every step, until L moves less than 1e-3 ms in a simulated second,
// or sits at the ceiling still pushed upwards, or `max_seconds` have passed. The step is 1 ms, or
// less when the model's fastest mode needs it: RK4 is stable for rate * step < 2.78, and the rate
// is at most eta * (mu_max^2 / 1000 + lambda0 * gamma * kappa / 4) per second (the slopes of the
// carried load at L0 and of the retry sigmoid at the timeout). Near a fold the approach is slow,
// which is why the default time budget is generous.
Settled settle(const HysteresisModel& model, double lambda0, double start_ms,
               double max_seconds = 600.0);

}  // namespace vigil::retry
