#include <vigil/retry/retry_quota.hpp>

#include <algorithm>

namespace vigil::retry {

Status RetryQuotaConfig::validate() const {
  if (capacity < 1 || capacity > 1'000'000)
    return Error{"the retry quota's capacity must be between 1 and 1000000"};
  if (retry_cost < 0 || timeout_cost < 0 || success_increment < 0)
    return Error{"retry quota costs and increments must be >= 0"};
  return ok_status();
}

RetryQuota::RetryQuota(const RetryQuotaConfig& config)
    : config_(config), available_(config.capacity) {}

std::optional<int> RetryQuota::acquire(bool after_timeout) {
  const int cost = after_timeout ? config_.timeout_cost : config_.retry_cost;
  if (cost > available_) return std::nullopt;
  available_ -= cost;
  return cost;
}

void RetryQuota::on_success(int paid) {
  available_ =
      std::min(config_.capacity, available_ + (paid > 0 ? paid : config_.success_increment));
}

}  // namespace vigil::retry
