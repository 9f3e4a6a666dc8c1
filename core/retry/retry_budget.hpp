// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include <vigil/base/result.hpp>
#include <vigil/retry/params.hpp>

namespace vigil::retry {

// A client-wide retry budget as Google's SRE book (chapter 21) and Finagle's RetryBudget describe
// it: retries may be at most a fixed share of requests. Every first attempt deposits `ratio` of a
// token, up to `max_tokens`; every retry withdraws a whole one, and a retry that finds less than
// one token is refused, so the request fails instead. Over any stretch of time,
//   retries <= initial_tokens + ratio * first attempts.
// gRPC's retry throttling is a different bucket (failures drain it, successes refill it, retries
// stop below half); this one bounds the share directly, which is the property the labs show.
struct RetryBudgetConfig {
  double ratio = server_param::budget_ratio.def;
  double max_tokens = 100.0;
  double initial_tokens = 100.0;

  Status validate() const;
};

class RetryBudget {
 public:
  explicit RetryBudget(const RetryBudgetConfig& config = {});

  void on_first_attempt();
  bool allows_retry() const { return micro_ >= kUnit; }
  // Withdraws a token; call only when allows_retry().
  void spend();
  // allows_retry() and, if so, spend().
  bool try_retry();

  double tokens() const { return static_cast<double>(micro_) / kUnit; }

 private:
  // Millionths of a token, so that ten deposits of 0.1 make exactly one token.
  static constexpr std::int64_t kUnit = 1'000'000;
  std::int64_t deposit_, cap_, micro_;
};

}  // namespace vigil::retry
