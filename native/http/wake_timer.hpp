#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include <vigil/base/result.hpp>

namespace vigil::native {

// A one-shot wake-up as a descriptor (Linux timerfd) that a poll loop watches like any socket.
//
// Why not libwebsockets' own timers: its service loop turns the time left into whole
// milliseconds for poll() by truncation, so a timer due in 4.9 ms gets a 4 ms poll, then polls
// with a zero timeout until it is due: up to a millisecond of busy polling on every wake-up.
// A timerfd armed at an absolute time wakes the poll exactly once, when it is due.
class WakeTimer {
 public:
  using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC, as the timerfd is

  // Opens the descriptor (non-blocking, close-on-exec), disarmed.
  static Result<WakeTimer> open();
  // Does not close: once handed to a poll loop that owns its descriptors, closing is the loop's.
  int fd() const { return fd_; }

  // Fires at `at` (at once if it has passed), replacing any earlier time. A time equal to the
  // one already armed costs no system call: a host re-arms after every event, mostly unchanged.
  void arm_at(Clock::time_point at);
  // Called when the descriptor is readable: clears it. False if it had not fired (a spurious
  // wake-up, or re-armed meanwhile).
  bool take();
  // Re-arms so far, each one system call.
  std::uint64_t arms() const { return arms_; }

 private:
  explicit WakeTimer(int fd) : fd_(fd) {}
  int fd_ = -1;
  std::optional<Clock::time_point> armed_;
  std::uint64_t arms_ = 0;
};

}  // namespace vigil::native
