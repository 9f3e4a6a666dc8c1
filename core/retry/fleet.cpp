#include <vigil/retry/fleet.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

namespace vigil::retry {

Status FleetOptions::validate() const {
  if (auto s = fleet_param::clients.check(clients); !s) return s;
  if (auto s = fleet_param::seconds.check(seconds); !s) return s;
  if (auto s = fleet_param::capacity.check(capacity_rps); !s) return s;
  return backoff.validate();
}

Result<Fleet> Fleet::create(const FleetOptions& options) {
  if (auto s = options.validate(); !s) return s.error();
  return Fleet(options);
}

Fleet::Fleet(const FleetOptions& options)
    : options_(options),
      rng_(options.seed),
      calendar_(static_cast<std::size_t>(options.seconds) * kTicksPerSecond),
      retries_made_(static_cast<std::size_t>(options.clients), 0),
      previous_delay_(static_cast<std::size_t>(options.clients), options.backoff.base_s),
      waiting_(options.clients) {
  for (int c = 0; c < options_.clients; ++c)
    schedule(c, 0, options_.backoff.delay(0, previous_delay_[c], rng_));
}

void Fleet::schedule(int client, std::int64_t tick, double delay_s) {
  previous_delay_[client] = delay_s;
  const auto ticks = std::max<std::int64_t>(1, std::llround(delay_s * kTicksPerSecond));
  const std::int64_t due = tick + ticks;
  // A retry after the horizon never happens within the run; the client counts as unfinished.
  if (due < static_cast<std::int64_t>(calendar_.size()))
    calendar_[static_cast<std::size_t>(due)].push_back(client);
}

void Fleet::run_second() {
  if (finished()) return;
  FleetSecond sec;
  sec.second = elapsed();
  const double per_tick = options_.capacity_rps * kTickMs / 1000.0;
  std::int64_t window = 0;
  for (int i = 0; i < kTicksPerSecond; ++i, ++tick_) {
    std::vector<std::int32_t> due = std::move(calendar_[static_cast<std::size_t>(tick_)]);
    calendar_[static_cast<std::size_t>(tick_)] = {};
    const auto n = static_cast<std::int64_t>(due.size());
    credit_ = std::min(credit_ + per_tick, std::max(per_tick, 1.0));
    const std::int64_t served = std::min<std::int64_t>(n, static_cast<std::int64_t>(credit_));
    credit_ -= static_cast<double>(served);
    // Partial Fisher-Yates: the first `served` entries become a uniform random subset.
    for (std::int64_t k = 0; k < served; ++k) {
      const auto j = k + rng_.below(static_cast<std::uint32_t>(n - k));
      std::swap(due[static_cast<std::size_t>(k)], due[static_cast<std::size_t>(j)]);
    }
    for (std::int64_t k = served; k < n; ++k) {
      const int c = due[static_cast<std::size_t>(k)];
      const int made = ++retries_made_[c];
      schedule(c, tick_, options_.backoff.delay(made, previous_delay_[c], rng_));
    }
    sec.offered += n;
    sec.successes += served;
    waiting_ -= served;
    window += n;
    if ((i + 1) % kTicksPerWindow == 0) {
      sec.peak_rps = std::max(sec.peak_rps, static_cast<double>(window) * (1000.0 / 100.0));
      window = 0;
    }
  }
  total_calls_ += sec.offered;
  sec.waiting = waiting_;
  per_second_.push_back(sec);
}

double Fleet::peak_rps() const {
  double peak = 0.0;
  for (const auto& s : per_second_) peak = std::max(peak, s.peak_rps);
  return peak;
}

int Fleet::peak_second() const {
  int at = -1;
  double peak = 0.0;
  for (const auto& s : per_second_)
    if (s.peak_rps > peak) {
      peak = s.peak_rps;
      at = s.second;
    }
  return at;
}

}  // namespace vigil::retry
