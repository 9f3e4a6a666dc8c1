#include <vigil/retry/backoff.hpp>

#include <algorithm>
#include <cmath>

namespace vigil::retry {

namespace {

struct Named {
  BackoffStrategy strategy;
  const char* name;
};

constexpr Named kNames[] = {{BackoffStrategy::none, "none"},
                            {BackoffStrategy::fixed, "fixed"},
                            {BackoffStrategy::exponential, "exponential"},
                            {BackoffStrategy::full_jitter, "full-jitter"},
                            {BackoffStrategy::equal_jitter, "equal-jitter"},
                            {BackoffStrategy::decorrelated, "decorrelated"}};

}  // namespace

std::string backoff_name(BackoffStrategy strategy) {
  for (const auto& n : kNames)
    if (n.strategy == strategy) return n.name;
  return "?";
}

const std::vector<std::string>& backoff_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& n : kNames) v.push_back(n.name);
    return v;
  }();
  return names;
}

Result<BackoffStrategy> parse_backoff(const std::string& name) {
  for (const auto& n : kNames)
    if (name == n.name) return n.strategy;
  std::string list;
  for (const auto& n : kNames) list += (list.empty() ? "" : "|") + std::string(n.name);
  return Error{"--strategy must be one of " + list + ", got '" + name + "'"};
}

Status Backoff::validate() const {
  if (auto s = fleet_param::base.check(base_s); !s) return s;
  if (auto s = fleet_param::cap.check(cap_s); !s) return s;
  if (!(cap_s >= base_s)) return Error{"--cap must be at least --base"};
  if (!(immediate_s > 0.0 && immediate_s <= base_s))
    return Error{"the immediate retry's wait must be > 0 and at most --base"};
  return ok_status();
}

double Backoff::ceiling(int retry) const {
  // ldexp overflows to infinity for huge exponents, which min() then caps.
  return std::min(cap_s, std::ldexp(base_s, std::clamp(retry, 0, 2000)));
}

double Backoff::delay(int retry, double previous_s, Rng& rng) const {
  switch (strategy) {
    case BackoffStrategy::none:
      return immediate_s;
    case BackoffStrategy::fixed:
      return base_s;
    case BackoffStrategy::exponential:
      return ceiling(retry);
    case BackoffStrategy::full_jitter:
      return ceiling(retry) * rng.uniform();
    case BackoffStrategy::equal_jitter: {
      const double half = ceiling(retry) / 2.0;
      return half + half * rng.uniform();
    }
    case BackoffStrategy::decorrelated: {
      const double high = std::max(base_s, previous_s * 3.0);
      return std::min(cap_s, base_s + (high - base_s) * rng.uniform());
    }
  }
  return base_s;
}

}  // namespace vigil::retry
