#pragma once

#include <optional>
#include <string>
#include <vector>

#include <vigil/base/time.hpp>
#include <vigil/swim/outbox.hpp>

namespace vigil::native {

// When to try joining again, as Serf's and Consul's -retry-join: a failed attempt is followed by
// another `interval` later, up to `max_attempts` attempts in all (0: for ever). An attempt
// succeeds when any seed answers with its state.
class JoinRetry {
 public:
  enum class Next { joined, retry, give_up };

  JoinRetry(Millis interval, int max_attempts) : interval_(interval), max_attempts_(max_attempts) {}

  // An attempt should start now: the first at once, later ones `interval` after a failure.
  bool due(Millis now) const { return waiting_ && now >= next_at_; }
  // While waiting for the next attempt: when it is due.
  std::optional<Millis> next_at() const {
    return waiting_ ? std::optional(next_at_) : std::nullopt;
  }
  // Starts an attempt; returns its number, from 1.
  int start();
  // The attempt under way ended.
  Next finish(Millis now, bool joined);

  int attempts() const { return attempts_; }
  int max_attempts() const { return max_attempts_; }
  Millis interval() const { return interval_; }

 private:
  Millis interval_;
  int max_attempts_;
  int attempts_ = 0;
  bool waiting_ = true;
  Millis next_at_{0};
};

// One seed from the command line that did not resolve: "name:port" and the resolver's reason.
struct UnresolvedSeed {
  std::string seed;
  std::string reason;
};

// The log line for an ended attempt: which seeds were tried, which answered or why none did,
// and what comes next.
std::string join_log_line(int attempt, const JoinRetry& retry, const swim::JoinResult& result,
                          const std::vector<UnresolvedSeed>& unresolved, JoinRetry::Next next);

}  // namespace vigil::native
