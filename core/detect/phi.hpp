// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <span>
#include <string_view>

#include <vigil/base/result.hpp>

namespace vigil::detect {

// How a phi-accrual detector turns "silent for t" into a tail probability P(next gap > t).
enum class TailModel {
  normal,       // Hayashibara et al.: normal fit, tail 0.5*erfc(z/sqrt 2)
  logistic,     // Akka's closed-form approximation of the normal tail
  exponential,  // Cassandra: exponential fit, phi = t / (mean * ln 10)
  empirical,    // fraction of the window's gaps longer than t
};

std::string_view to_string(TailModel model);
Result<TailModel> parse_tail_model(std::string_view text);

// P(Z > z) for a standard normal Z, computed from erfc so that the far tail keeps its precision
// instead of being lost in 1 - F(z).
double normal_tail(double z);

// -log10(tail); +infinity when the tail underflowed to zero.
double phi_from_tail(double tail);

// Each model's phi for a silence of `elapsed_ms`. The pause margin shifts the whole distribution
// right (Akka's acceptable-heartbeat-pause): silences shorter than the margin look like none.
// These do not validate; callers pass checked parameters.
double phi_normal(double elapsed_ms, double mean_ms, double stddev_ms, double pause_margin_ms);
double phi_logistic(double elapsed_ms, double mean_ms, double stddev_ms, double pause_margin_ms);
double phi_exponential(double elapsed_ms, double mean_ms, double pause_margin_ms);
double phi_empirical(double elapsed_ms, std::span<const double> gaps_ms, double pause_margin_ms);

// The checked form, for values that come from outside (CLI, UI): each input in its range in
// detect::phi_param (elapsed >= 0, mean > 0, stddev > 0 but ignored by the exponential model,
// pause margin >= 0, all finite and at most a day).
// The empirical model needs a window of gaps and is not available here.
Result<double> phi(double elapsed_ms, double mean_ms, double stddev_ms,
                   double pause_margin_ms = 0.0, TailModel model = TailModel::normal);

}  // namespace vigil::detect
