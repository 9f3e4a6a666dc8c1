// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <vigil/base/event_queue.hpp>
#include <vigil/base/result.hpp>
#include <vigil/base/rng.hpp>
#include <vigil/base/time.hpp>

namespace vigil::sim {

// One-way delay of a simulated link.
struct DelayModel {
  enum class Kind { constant, normal };
  Kind kind = Kind::constant;
  double mean_ms = 1.0;
  double stddev_ms = 0.0;  // normal only: a normal deviate truncated at 0 (redrawn while negative)

  static DelayModel constant(double ms) { return {Kind::constant, ms, 0.0}; }
  static DelayModel normal(double mean_ms, double stddev_ms) {
    return {Kind::normal, mean_ms, stddev_ms};
  }

  Status validate() const;
  double sample(Rng& rng) const;
};

// The sender stops for `duration` from `at` (a SIGSTOP, a stop-the-world GC): nothing is sent
// meanwhile; on resume it sends the overdue heartbeat at once, then keeps its original cadence.
struct SenderPause {
  Millis at{0};
  Millis duration{0};
  Millis end() const { return at + duration; }
};

struct HeartbeatConfig {
  Millis interval{100};
  DelayModel delay;
  double loss = 0.0;                // independent loss probability per heartbeat
  std::vector<SenderPause> pauses;  // may also be added while running
  std::optional<Millis> crash_at;   // nothing is sent at or after this instant

  Status validate() const;
};

struct Heartbeat {
  std::uint64_t seq = 0;
  Millis sent{0};
  Millis arrived{0};
};

// A heartbeat sender and the link to one receiver, in virtual time. The first heartbeat leaves at
// t = 0. Delays are rounded to whole milliseconds. Loss and delay draws happen per send, in send
// order, so advancing in many small steps or in one jump yields the same arrivals.
class HeartbeatStream {
 public:
  static Result<HeartbeatStream> create(HeartbeatConfig config, Rng rng);

  // Sends everything due up to `now` and returns the heartbeats that have arrived by `now`,
  // in arrival order (ties in send order).
  std::vector<Heartbeat> advance(Millis now);

  // Fault injection while running (the browser's buttons).
  void pause(Millis at, Millis duration);
  void crash(Millis at);
  // Changes the cadence and the link for heartbeats sent from now on (pauses and crash stay).
  Status reconfigure(Millis interval, DelayModel delay, double loss);

  const HeartbeatConfig& config() const { return config_; }
  std::uint64_t sent() const { return sent_; }
  std::uint64_t lost() const { return lost_; }
  bool crashed_by(Millis now) const { return config_.crash_at && now >= *config_.crash_at; }

 private:
  HeartbeatStream(HeartbeatConfig config, Rng rng) : config_(std::move(config)), rng_(rng) {}
  const SenderPause* pause_covering(Millis t) const;

  HeartbeatConfig config_;
  Rng rng_;
  Millis next_send_{0};
  Millis last_sent_{0};
  bool stopped_ = false;
  std::uint64_t sent_ = 0;
  std::uint64_t lost_ = 0;
  EventQueue<Heartbeat> in_flight_;
};

}  // namespace vigil::sim
