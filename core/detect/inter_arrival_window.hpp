// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace vigil::detect {

// The last `capacity` heartbeat inter-arrival gaps, oldest first, with their mean and population
// standard deviation. Statistics are recomputed in two passes on every push: exact whatever the
// history, and cheap at heartbeat rates.
class InterArrivalWindow {
 public:
  explicit InterArrivalWindow(std::size_t capacity);

  void push(double gap_ms);

  std::size_t size() const { return gaps_.size(); }
  std::size_t capacity() const { return capacity_; }
  bool empty() const { return gaps_.empty(); }
  double mean_ms() const { return mean_; }
  double stddev_ms() const { return stddev_; }

  // Gaps in arrival order (oldest first) — copies out of the ring.
  std::vector<double> chronological() const;
  // Gaps in storage order: the right input for order-free questions (counts, histograms).
  std::span<const double> unordered() const { return gaps_; }

 private:
  std::size_t capacity_;
  std::size_t oldest_ = 0;  // index of the oldest gap once the ring is full
  std::vector<double> gaps_;
  double mean_ = 0.0;
  double stddev_ = 0.0;
};

}  // namespace vigil::detect
