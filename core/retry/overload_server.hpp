// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <deque>
#include <queue>
#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/rng.hpp>
#include <vigil/retry/backoff.hpp>
#include <vigil/retry/params.hpp>
#include <vigil/retry/retry_budget.hpp>
#include <vigil/retry/retry_quota.hpp>

namespace vigil::retry {

// Defences against a retry storm, each switchable, any combination allowed.
struct Mitigations {
  bool budget = false;    // clients: RetryBudget, retries at most a share of first attempts
  bool quota = false;     // clients: RetryQuota, the AWS SDKs' token bucket
  bool deadline = false;  // server: drop a request whose client has given up when it is dequeued
  bool shed = false;      // server: refuse at once a request that would wait past its deadline

  bool any() const { return budget || quota || deadline || shed; }
};

// "none", "all", or a comma list of budget, quota, deadline, shed.
Result<Mitigations> parse_mitigations(const std::string& text);
std::string mitigations_name(const Mitigations& m);

// One server, a FIFO queue and open-loop clients (a retry storm, event by event).
//
// First attempts arrive as a Poisson process; service times are exponential with mean
// 1 / capacity (an M/M/1 queue while nothing goes wrong). Each attempt has its own deadline,
// `timeout_ms` after it is sent: the client waits that long, then gives up on it and, if it has
// attempts left and its mitigations allow, retries after a backoff. The server knows nothing of
// this unless told (`deadline`): it serves abandoned requests all the same, which is the wasted
// work of a storm. A response counts as goodput when it reaches a client still waiting for it.
// During the trigger the server runs at `trigger_capacity` of its capacity and the arrival rate
// is multiplied by `trigger_load`.
struct ServerOptions {
  // Defaults and ranges: server_param (retry/params.hpp).
  double arrival_rps = server_param::arrival.def;
  double capacity_rps = server_param::capacity.def;
  double timeout_ms = server_param::timeout.def;
  int tries = static_cast<int>(server_param::tries.def);  // per request, the first included
  Backoff backoff{BackoffStrategy::full_jitter, 0.02, 1.0, 0.001};
  int seconds = static_cast<int>(server_param::seconds.def);
  double trigger_at_s = server_param::trigger_at.def;
  double trigger_seconds = server_param::trigger_seconds.def;
  double trigger_capacity = server_param::trigger_capacity.def;
  double trigger_load = server_param::trigger_load.def;
  double settle_seconds = 10.0;  // allowed after the trigger before "after" is measured
  Mitigations mitigations;
  RetryBudgetConfig budget;
  RetryQuotaConfig quota;
  std::uint32_t seed = static_cast<std::uint32_t>(kSeedParam.def);

  Status validate() const;
  double trigger_end_s() const { return trigger_at_s + trigger_seconds; }
};

struct ServerSecond {
  int second = 0;
  std::int64_t offered = 0;  // attempts sent: first attempts and retries
  std::int64_t retries = 0;
  std::int64_t completed = 0;  // throughput: requests the server worked through
  std::int64_t goodput = 0;    // of which answered a client still waiting
  std::int64_t dropped = 0;    // deadline propagation: expired at dequeue, not served
  std::int64_t rejected = 0;   // load shedding: refused on arrival
  std::int64_t denied = 0;     // retries the budget or quota did not allow
  std::int64_t failed = 0;     // requests given up for good (out of attempts or denied)
  std::int64_t queue = 0;      // waiting at the end of the second
  double p50_ms = 0.0;         // server-side latency (arrival to completion) of completions;
  double p99_ms = 0.0;         // NaN in a second with none
};

struct ServerSummary {
  // Means per second over: before = [1, trigger start), during = the trigger,
  // after = [trigger end + settle_seconds, end). Whole seconds only; NaN for an empty window.
  double goodput_before = 0.0;
  double goodput_during = 0.0;
  double goodput_after = 0.0;
  double throughput_before = 0.0;
  double throughput_after = 0.0;
  double retry_share = 0.0;   // retries / first attempts, whole run
  double wasted_share = 0.0;  // completions nobody was waiting for / completions, whole run
  bool recovered = false;     // goodput_after >= 90% of goodput_before
};

class OverloadServer {
 public:
  static Result<OverloadServer> create(const ServerOptions& options);

  bool finished() const { return elapsed() >= options_.seconds; }
  int elapsed() const { return static_cast<int>(per_second_.size()); }
  void run_second();

  const std::vector<ServerSecond>& per_second() const { return per_second_; }
  std::int64_t first_attempts() const { return first_attempts_; }
  std::int64_t retries() const { return retries_; }
  ServerSummary summary() const;

 private:
  enum class Kind { arrival, send, timeout, done };
  struct Event {
    double at;
    std::uint64_t order;
    Kind kind;
    std::int32_t id;      // attempt id (send: request id)
    std::int32_t detail;  // send: attempt index; otherwise unused
    std::int32_t paid;    // send: what the quota took for it
  };
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.at != b.at ? a.at > b.at : a.order > b.order;
    }
  };
  enum class State : std::uint8_t { pending, succeeded, failed };
  struct Attempt {
    std::int32_t request;
    std::int32_t index;
    std::int32_t paid;
    double sent;
    double deadline;
    State state;
  };
  struct Request {
    double previous_delay;
    bool done;
  };

  explicit OverloadServer(const ServerOptions& options);
  void push(double at, Kind kind, std::int32_t id, std::int32_t detail = 0, std::int32_t paid = 0);
  bool in_trigger(double t) const;
  double capacity_at(double t) const;
  void send(double now, std::int32_t request, std::int32_t index, std::int32_t paid);
  void serve_next(double now);
  void give_up_on(double now, std::int32_t attempt, bool after_timeout);
  ServerSecond& bucket() { return current_; }

  ServerOptions options_;
  Rng arrivals_, service_, backoff_;
  RetryBudget budget_;
  RetryQuota quota_;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  std::uint64_t order_ = 0;
  std::vector<Attempt> attempts_;
  std::vector<Request> requests_;
  std::deque<std::int32_t> queue_;
  bool busy_ = false;
  std::int64_t first_attempts_ = 0;
  std::int64_t retries_ = 0;
  ServerSecond current_;
  std::vector<double> latencies_;  // this second's completions, ms
  std::vector<ServerSecond> per_second_;
};

}  // namespace vigil::retry
