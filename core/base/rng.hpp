// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

namespace vigil {

// Seeded pseudo-random numbers for every simulation in vigil.
//
// Algorithm: mulberry32 (Tommy Ettinger, public domain). A 32-bit Weyl-sequence state advanced
// by 0x6D2B79F5 and mixed by two multiply-xorshift rounds; period 2^32. It uses only 32-bit
// integer arithmetic, so the sequence is bit-for-bit identical on native x86-64 and on
// WebAssembly, and identical to the common JavaScript `rand()` built on it: with the same
// seed, vigil reproduces tables computed by such scripts exactly. uniform() divides by 2^32 as
// they do.
//
// It is a simulation generator, never a source of secrets.
class Rng {
 public:
  explicit Rng(std::uint32_t seed) : state_(seed) {}

  std::uint32_t next_u32();

  // Uniform in [0, 1), with 32 bits of resolution.
  double uniform();

  // Uniform integer in [0, n) for n >= 1 (Lemire's multiply-shift; bias below 2^-32 * n).
  std::uint32_t below(std::uint32_t n);

  // True with probability p (p outside [0, 1] behaves as the nearest bound).
  bool chance(double p);

  // Standard normal deviate by Box-Muller (uses two uniforms per call, no cached spare, so the
  // number of draws per call is fixed). log/cos come from the platform's libm, so the last bit of
  // a normal deviate may differ between native and WebAssembly; the uniform stream never does.
  double normal();
  double normal(double mean, double stddev) { return mean + stddev * normal(); }

  // A generator for an independent sub-stream (a run, a node, a link), derived from this seed
  // and a stream number with the splitmix32 finaliser, without advancing this generator.
  Rng fork(std::uint32_t stream) const;

  std::uint32_t state() const { return state_; }

 private:
  std::uint32_t state_;
};

}  // namespace vigil
