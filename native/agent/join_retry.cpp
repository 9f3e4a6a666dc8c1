#include "agent/join_retry.hpp"

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include "cli/duration.hpp"
#include "cli/printable.hpp"
#include "http/prometheus_text.hpp"

namespace vigil::native {

int JoinRetry::start() {
  waiting_ = false;
  return ++attempts_;
}

JoinRetry::Next JoinRetry::finish(Millis now, bool joined) {
  if (joined) return Next::joined;
  if (max_attempts_ > 0 && attempts_ >= max_attempts_) return Next::give_up;
  waiting_ = true;
  next_at_ = now + interval_;
  return Next::retry;
}

JoinPlanner::Pick JoinPlanner::pick(const std::vector<std::vector<swim::Address>>& by_seed) {
  Pick out;
  const std::size_t seeds = by_seed.size();
  next_.resize(seeds, 0);
  if (seeds == 0) return out;
  first_seed_ %= seeds;
  std::unordered_set<swim::Address> distinct;
  std::size_t longest = 0;
  for (const auto& addresses : by_seed) {
    distinct.insert(addresses.begin(), addresses.end());
    longest = std::max(longest, addresses.size());
  }
  out.resolved = distinct.size();

  std::unordered_set<swim::Address> chosen;
  std::vector<std::size_t> taken(seeds, 0);  // places each seed's list moved on by
  std::size_t first_round_served = seeds;    // seeds that had their first turn
  for (std::size_t round = 0; round < longest && out.ask.size() < max_; ++round) {
    for (std::size_t k = 0; k < seeds; ++k) {
      if (out.ask.size() >= max_) {
        if (round == 0) first_round_served = k;
        break;
      }
      const std::size_t s = (first_seed_ + k) % seeds;
      const auto& addresses = by_seed[s];
      if (round >= addresses.size()) continue;
      taken[s] = round + 1;
      // Two names for one address: asked once, and it takes no second place.
      const swim::Address& a = addresses[(next_[s] + round) % addresses.size()];
      if (chosen.insert(a).second) out.ask.push_back(a);
    }
  }
  for (std::size_t s = 0; s < seeds; ++s)
    if (!by_seed[s].empty()) next_[s] = (next_[s] + taken[s]) % by_seed[s].size();
  // More seeds than places: those left without a turn go first next time.
  first_seed_ = (first_seed_ + first_round_served) % seeds;
  counters_.asked += out.ask.size();
  counters_.deferred += out.deferred();
  return out;
}

namespace {

// A reason as the log shows it: escaped, and cut short (at a character of the input, so no
// escape is cut in half) past JoinLimits::kMaxReasonChars.
std::string shown_reason(const std::string& reason) {
  std::string shown = cli::printable(reason);
  if (shown.size() <= JoinLimits::kMaxReasonChars) return shown;
  // Escaping never shortens, so the input's first kMaxReasonChars bytes are enough to start from.
  for (std::size_t n = std::min(reason.size(), JoinLimits::kMaxReasonChars); n > 0; --n) {
    shown = cli::printable(std::string_view(reason).substr(0, n));
    if (shown.size() + 3 <= JoinLimits::kMaxReasonChars) return shown + "...";
  }
  return "...";
}

// The first kLoggedAddresses of `items` joined by `separator`, and how many more there were.
std::string first_few(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  const std::size_t named = std::min(items.size(), JoinLimits::kLoggedAddresses);
  for (std::size_t i = 0; i < named; ++i) out += (i ? separator : "") + items[i];
  if (items.size() > named)
    out += std::string(separator) + "and " + std::to_string(items.size() - named) + " more";
  return out;
}

}  // namespace

std::string join_log_line(int attempt, const JoinRetry& retry, const swim::JoinResult& result,
                          const std::vector<UnresolvedSeed>& unresolved, JoinRetry::Next next,
                          std::size_t not_asked) {
  std::vector<std::string> failures;
  for (const auto& f : result.failures)
    failures.push_back(f.seed.to_string() + ": " + shown_reason(f.reason));
  for (const auto& u : unresolved)
    failures.push_back(cli::printable(u.seed) + ": cannot resolve (" + shown_reason(u.reason) +
                       ")");
  std::string share;
  if (not_asked > 0) {
    const std::size_t asked = result.contacted.size() + result.failures.size();
    share = std::to_string(asked) + " of " + std::to_string(asked + not_asked) +
            " addresses asked (" + std::to_string(not_asked) + " not asked in this attempt)";
  }

  std::string line = "join attempt " + std::to_string(attempt);
  if (retry.max_attempts() > 0) line += "/" + std::to_string(retry.max_attempts());
  if (next == JoinRetry::Next::joined) {
    std::vector<std::string> answered;
    for (const auto& a : result.contacted) answered.push_back(a.to_string());
    line += " succeeded: " + first_few(answered, ", ") + " answered";
    if (!failures.empty()) line += " (and " + first_few(failures, "; ") + ")";
    if (!share.empty()) line += "; " + share;
    return line;
  }
  line += " failed: ";
  if (!share.empty()) line += share + ": ";
  line += failures.empty() ? std::string("no seed to try") : first_few(failures, "; ");
  if (next == JoinRetry::Next::retry)
    line += "; next attempt in " + cli::duration_text(retry.interval());
  else
    line +=
        "; giving up after " + std::to_string(attempt) + (attempt == 1 ? " attempt" : " attempts");
  return line;
}

std::string join_metrics_text(const JoinCounters& c) {
  const std::string cap = std::to_string(JoinLimits::kMaxAddressesPerAttempt);
  std::ostringstream out;
  write_counter(out, "vigil_join_addresses_asked_total",
                "Addresses asked for a join exchange (at most " + cap + " per attempt).", c.asked);
  write_counter(out, "vigil_join_addresses_deferred_total",
                "Addresses the join seeds resolved to that an attempt did not ask: past its " +
                    cap + ", left to later attempts.",
                c.deferred);
  return out.str();
}

}  // namespace vigil::native
