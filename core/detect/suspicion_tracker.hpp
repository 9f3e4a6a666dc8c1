// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <optional>

#include <vigil/base/time.hpp>

namespace vigil::detect {

// The live counterpart of qos.hpp: fed a detector's verdict at successive instants (a browser
// frame, a timer tick), it keeps the same Chen-Toueg-Aguilera numbers as they happen: false
// alarms and time wrongly suspected while the sender was up, and the detection time once it
// crashed. The verdict is taken to hold between observations.
class SuspicionTracker {
 public:
  void observe(Millis now, bool suspecting, std::optional<Millis> crashed_at);
  void reset() { *this = SuspicionTracker{}; }

  bool suspecting() const { return suspecting_; }
  std::size_t false_alarms() const { return false_alarms_; }
  double false_suspicion_ms() const { return false_ms_; }
  // Crash -> start of the suspicion still in force (0 if it began before the crash).
  std::optional<double> detection_ms() const;

 private:
  bool started_ = false;
  Millis last_{0};
  bool suspecting_ = false;
  Millis since_{0};  // when the current suspicion began
  std::size_t false_alarms_ = 0;
  double false_ms_ = 0.0;
  std::optional<Millis> crashed_at_;
};

}  // namespace vigil::detect
