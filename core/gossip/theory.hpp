// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <vector>

#include <vigil/gossip/spread.hpp>

namespace vigil::gossip {

// Pittel (1987): push gossip with fanout f informs all n members in about
//   log_(f+1) n + ln(n) / f
// rounds: the informed count grows (f + 1)-fold while it is small, then each uninformed member
// misses all ~f·n pushes with probability e^-f, so the uninformed fraction shrinks e^f-fold a
// round. The fanout may be fractional (an effective fanout).
double pittel_rounds(double nodes, double fanout);

// The expected number of informed live members after each round, by the mean-field recursion on
// the uninformed count U (I informed, q = 1 / (n - 1) the chance a contact picks a given member,
// p the loss):
//   push       U' = U · (1 - q(1-p))^(f·I)              each of the f·I pushes misses a member
//   pull       U' = U · (1 - q·I·(1-p)²)^f              each of its f questions finds no one
//   push-pull  U' = U · (1 - q·I·(1-p)²)^f · (1 - q(1-p))^(f·I)
// For push with large n this is i' = i + (1 - i)(1 - e^(-f·i)) on the informed fraction i; for
// pull and push-pull near the end (I ≈ n, p = 0) it is s' = s^(f+1) and s' = s^(f+1) · e^(-f) on
// the uninformed fraction s: with f = 1 the uninformed fraction squares every round.
// [0] = 1; stops after `rounds` rounds or once fewer than 10^-9 members are expected uninformed.
std::vector<double> mean_field_curve(const SpreadOptions& options, int rounds);

// The expected completion time if the members still uninformed after r rounds were a Poisson
// count with the mean-field mean U_r: sum over r of P(U_r > 0) = 1 - e^(-U_r). It ignores how
// much the start varies (who the first few tell), so it runs a little under the simulation.
double mean_field_rounds(const SpreadOptions& options, int rounds);

}  // namespace vigil::gossip
