#include <vigil/retry/retry_budget.hpp>

#include <algorithm>
#include <cmath>

namespace vigil::retry {

Status RetryBudgetConfig::validate() const {
  if (auto s = server_param::budget_ratio.check(ratio); !s) return s;
  if (!(max_tokens >= 1.0 && max_tokens <= 1e9))
    return Error{"the retry budget's token cap must be between 1 and 1e9"};
  if (!(initial_tokens >= 0.0 && initial_tokens <= max_tokens))
    return Error{"the retry budget's initial tokens must be between 0 and its cap"};
  return ok_status();
}

RetryBudget::RetryBudget(const RetryBudgetConfig& config)
    : deposit_(std::llround(config.ratio * kUnit)),
      cap_(std::llround(config.max_tokens * kUnit)),
      micro_(std::llround(config.initial_tokens * kUnit)) {}

void RetryBudget::on_first_attempt() {
  micro_ = std::min(cap_, micro_ + deposit_);
}

void RetryBudget::spend() {
  micro_ -= kUnit;
}

bool RetryBudget::try_retry() {
  if (!allows_retry()) return false;
  spend();
  return true;
}

}  // namespace vigil::retry
