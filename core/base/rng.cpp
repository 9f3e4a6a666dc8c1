#include <vigil/base/rng.hpp>

#include <cmath>
#include <numbers>

namespace vigil {

std::uint32_t Rng::next_u32() {
  state_ += 0x6D2B79F5u;
  std::uint32_t t = state_;
  t = (t ^ (t >> 15)) * (t | 1u);
  t ^= t + (t ^ (t >> 7)) * (t | 61u);
  return t ^ (t >> 14);
}

double Rng::uniform() {
  return static_cast<double>(next_u32()) / 4294967296.0;
}

std::uint32_t Rng::below(std::uint32_t n) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(next_u32()) * n) >> 32);
}

bool Rng::chance(double p) {
  return uniform() < p;
}

double Rng::normal() {
  // 1 - u keeps the logarithm's argument in (0, 1].
  const double u1 = 1.0 - uniform();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

Rng Rng::fork(std::uint32_t stream) const {
  std::uint32_t x = state_ ^ (stream * 0x9E3779B9u + 0x7F4A7C15u);
  x = (x ^ (x >> 16)) * 0x85EBCA6Bu;
  x = (x ^ (x >> 13)) * 0xC2B2AE35u;
  return Rng(x ^ (x >> 16));
}

}  // namespace vigil
