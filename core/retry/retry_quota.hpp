// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>

#include <vigil/base/result.hpp>

namespace vigil::retry {

// The AWS SDKs' "standard" retry quota: one bucket per client starts full at `capacity`; a retry
// after an error costs `retry_cost`, after a timeout `timeout_cost`; a retry that cannot pay is
// not made. A success gives back what its attempt paid, or `success_increment` if it was a first
// attempt, never above capacity. While a dependency fails broadly the bucket empties within a
// few dozen retries and stays empty, since only successes refill it.
struct RetryQuotaConfig {
  int capacity = 500;
  int retry_cost = 5;
  int timeout_cost = 10;
  int success_increment = 1;

  Status validate() const;
};

class RetryQuota {
 public:
  explicit RetryQuota(const RetryQuotaConfig& config = {});

  // The cost taken for a retry after a timeout (or another error), or nothing if the bucket
  // cannot pay it.
  std::optional<int> acquire(bool after_timeout);
  // An attempt succeeded; `paid` is what acquire() took for it (0 for a first attempt).
  void on_success(int paid);

  int available() const { return available_; }

 private:
  RetryQuotaConfig config_;
  int available_;
};

}  // namespace vigil::retry
