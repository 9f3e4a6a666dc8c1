// SPDX-License-Identifier: Apache-2.0
// A header for the documentation check's own test: every kind of declaration it reads, each
// documented but one (`undocumented_rate`), which the check must name. A comment covers the
// declarations under it up to the next blank line.
#pragma once

#include <cstdint>

namespace vigil::fixture {

// A probe's outcome.
enum class Outcome { kAck, kTimeout };

// Counts of one peer's probes.
struct Tally {
  std::uint64_t acks = 0;      // answered in time
  std::uint64_t timeouts = 0;  // unanswered past the deadline

  // The share of probes answered, 0..1 (1 before any probe).
  double ack_rate() const {
    return acks + timeouts == 0 ? 1.0 : double(acks) / double(acks + timeouts);
  }
  // Its complement, and the plain copy (defaulted members need no comment of their own).
  double loss_rate() const { return 1.0 - ack_rate(); }
  Tally& operator=(const Tally&) = default;

  double undocumented_rate() const { return 1.0 - ack_rate(); }

 private:
  int not_public_ = 0;
};

// Holds a value of any type.
template <typename T>
class Box {
 public:
  // Wraps `value`.
  explicit Box(T value) : value_(value) {}

  // The value held.
  const T& get() const { return value_; }

 private:
  T value_;
  void hidden() {}
};

namespace detail {
inline int not_checked() {
  return 0;
}
}  // namespace detail

// Adds a tally's counts into another.
inline void add(Tally& into, const Tally& from) {
  into.acks += from.acks;
  into.timeouts += from.timeouts;
}

}  // namespace vigil::fixture
