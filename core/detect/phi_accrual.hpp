// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include <vigil/base/result.hpp>
#include <vigil/base/time.hpp>
#include <vigil/detect/inter_arrival_window.hpp>
#include <vigil/detect/phi.hpp>

namespace vigil::detect {

// Defaults follow Akka's cluster failure detector (tuned for one heartbeat per second).
struct PhiAccrualConfig {
  TailModel model = TailModel::normal;
  std::size_t window = 1000;                  // max-sample-size
  double min_stddev_ms = 100.0;               // min-std-deviation: a floor under the fitted spread
  double pause_margin_ms = 0.0;               // acceptable-heartbeat-pause, added to the mean
  double first_heartbeat_estimate_ms = 1000;  // bootstraps the window before real gaps exist
  // Warm-up: until this many real gaps have been seen, phi stays 0 and the detector never
  // accuses. A fit of two or three gaps is all noise: its spread can be a few milliseconds, and
  // the first lost heartbeat then looks like a death (a minimum-samples rule in the spirit of
  // Cassandra's deliberately large first interval and Akka's bootstrap). 0 turns it off.
  std::size_t min_gaps = 10;

  Status validate() const;
};

// The phi-accrual failure detector (Hayashibara, Défago, Yared, Katayama 2004): instead of a
// verdict it outputs phi = -log10 P(a live sender would have stayed silent this long), using the
// recent inter-arrival gaps as the reference distribution. Phi is not the probability that the
// sender is dead.
class PhiAccrual {
 public:
  static Result<PhiAccrual> create(const PhiAccrualConfig& config);

  // A heartbeat arrived at `now`. The first one only starts the clock; later ones add a gap.
  void heartbeat(Millis now);

  // Phi at `now` (0 before the first heartbeat and during the warm-up).
  double phi(Millis now) const;
  // Phi after a silence of `silence_ms` since the last heartbeat, with the current window
  // (0 during the warm-up).
  double phi_after(double silence_ms) const;
  // The shortest silence at which phi reaches `threshold` (+infinity if it never does, as during
  // the warm-up). Phi is non-decreasing in the silence for every model, so this is where a
  // threshold detector fires.
  double silence_to_reach(double threshold) const;
  // True until min_gaps real gaps have been seen: phi does not accuse yet.
  bool warming_up() const { return gaps_seen_ < config_.min_gaps; }
  std::uint64_t gaps_seen() const { return gaps_seen_; }

  const PhiAccrualConfig& config() const { return config_; }
  const InterArrivalWindow& window() const { return window_; }
  std::optional<Millis> last_heartbeat() const { return last_; }
  double mean_ms() const { return window_.mean_ms(); }
  // The spread the normal and logistic models use: the window's, floored at min_stddev_ms.
  double effective_stddev_ms() const;

 private:
  explicit PhiAccrual(const PhiAccrualConfig& config);

  PhiAccrualConfig config_;
  InterArrivalWindow window_;
  std::optional<Millis> last_;
  std::uint64_t gaps_seen_ = 0;  // real gaps, bootstrap excluded
};

}  // namespace vigil::detect
