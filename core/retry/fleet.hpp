// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/rng.hpp>
#include <vigil/retry/backoff.hpp>
#include <vigil/retry/params.hpp>

namespace vigil::retry {

// A fleet after an outage, as in Brooker's backoff-and-jitter simulations (2015): `clients`
// clients all see their call fail at t = 0 (the outage) and retry under one backoff strategy
// against a server that is back with `capacity_rps`.
//
// Time runs in 10 ms ticks: a retry lands on the tick nearest its wake-up time, and never on the
// tick it was decided (so `none` retries every 10 ms, a client loop's turnaround). The server
// completes at most capacity_rps * 10 ms calls per tick (fractions carry over, idle capacity is
// not banked beyond one tick) and fails the rest at once; calls arriving in one tick are
// concurrent, so the ones served are a uniformly random subset. Enforcing capacity per tick
// rather than per second is what makes synchronisation costly: 4,000 calls in one instant find
// room for 10, while the same calls spread over a second find room for 1,000.
struct FleetOptions {
  int clients = static_cast<int>(fleet_param::clients.def);
  int seconds = static_cast<int>(fleet_param::seconds.def);
  Backoff backoff;  // full jitter, fleet_param's base and cap
  double capacity_rps = fleet_param::capacity.def;
  std::uint32_t seed = static_cast<std::uint32_t>(kSeedParam.def);

  Status validate() const;
};

struct FleetSecond {
  int second = 0;
  std::int64_t offered = 0;    // retries that reached the server during this second
  std::int64_t successes = 0;  // of which served
  double peak_rps = 0.0;       // the busiest 100 ms of the second, as a rate per second
  std::int64_t waiting = 0;    // clients still without an answer at the end of the second
};

class Fleet {
 public:
  static constexpr int kTickMs = 10;
  static constexpr int kTicksPerSecond = 1000 / kTickMs;
  static constexpr int kTicksPerWindow = 100 / kTickMs;  // peak_rps is measured over 100 ms

  static Result<Fleet> create(const FleetOptions& options);

  bool finished() const { return elapsed() >= options_.seconds; }
  int elapsed() const { return static_cast<int>(per_second_.size()); }
  void run_second();

  const std::vector<FleetSecond>& per_second() const { return per_second_; }
  std::int64_t total_calls() const { return total_calls_; }  // retries only; the t = 0 calls not
  std::int64_t unfinished() const { return waiting_; }
  double peak_rps() const;
  int peak_second() const;  // the second holding the busiest 100 ms (the first such), -1 if none

 private:
  explicit Fleet(const FleetOptions& options);
  void schedule(int client, std::int64_t tick, double delay_s);

  FleetOptions options_;
  Rng rng_;
  std::vector<std::vector<std::int32_t>> calendar_;  // clients due, per tick
  std::vector<int> retries_made_;
  std::vector<double> previous_delay_;
  double credit_ = 0.0;
  std::int64_t tick_ = 0;
  std::int64_t waiting_ = 0;
  std::int64_t total_calls_ = 0;
  std::vector<FleetSecond> per_second_;
};

}  // namespace vigil::retry
