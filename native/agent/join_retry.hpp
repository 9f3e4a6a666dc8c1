#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <vigil/base/time.hpp>
#include <vigil/swim/address.hpp>
#include <vigil/swim/outbox.hpp>

namespace vigil::native {

// What one join attempt may cost. A seed's name can resolve to thousands of addresses (a DNS
// answer over TCP holds some 4,000 A records; a hosts file any number), and the addresses are
// whatever the resolver says, not members we know.
struct JoinLimits {
  // Addresses asked at once in one attempt. All are asked in parallel, so an attempt ends within
  // one stream timeout and holds at most this many descriptors; the rest wait for later
  // attempts. Eight covers a seed list of a handful of names of a few addresses each, as
  // clusters are usually given, in one attempt.
  static constexpr std::size_t kMaxAddressesPerAttempt = 8;
  // Addresses an attempt's log line names; the others are counted ("and 5 more").
  static constexpr std::size_t kLoggedAddresses = 3;
  // A failure's reason in the log line, after escaping: the end is cut off past this.
  static constexpr std::size_t kMaxReasonChars = 80;
};

// Totals since the agent started, for /metrics.
struct JoinCounters {
  std::uint64_t asked = 0;     // addresses asked for a join exchange
  std::uint64_t deferred = 0;  // resolved, but left to a later attempt by kMaxAddressesPerAttempt
};

// Which addresses each attempt asks.
//
// memberlist's Join (which Serf's -retry-join calls once per attempt) resolves every seed anew,
// as here, then asks every address of every seed, one after the other, each within its 10 s TCP
// timeout, and counts the answers. A name of 3,000 unreachable addresses makes one attempt last
// over 8 hours, and a seed written after it is asked only at the end. We depart from it: an
// attempt asks at most kMaxAddressesPerAttempt addresses, all at once, taken round robin over the
// seeds (the next address of each seed before a second of any), and the next attempt goes on
// from where this one stopped, seed by seed. So every seed is asked at every attempt (or, with
// more seeds than the limit, in turn), a live seed answers however many dead addresses another
// name brings, and every address of every name is asked within a bounded number of attempts.
// As in memberlist one answer makes the join; unlike it, what is not asked is counted.
class JoinPlanner {
 public:
  struct Pick {
    std::vector<swim::Address> ask;
    std::size_t resolved = 0;  // distinct addresses the seeds resolved to
    std::size_t deferred() const { return resolved - ask.size(); }
  };

  explicit JoinPlanner(std::size_t max_per_attempt = JoinLimits::kMaxAddressesPerAttempt)
      : max_(max_per_attempt) {}

  // `by_seed[i]`: what the i-th seed resolved to for this attempt (empty if it did not), in the
  // resolver's order, without repeats. Seeds keep their places from one attempt to the next.
  Pick pick(const std::vector<std::vector<swim::Address>>& by_seed);
  const JoinCounters& counters() const { return counters_; }

 private:
  std::size_t max_;
  std::vector<std::size_t> next_;  // per seed: where its next attempt starts
  std::size_t first_seed_ = 0;     // with more seeds than places: who goes first next time
  JoinCounters counters_;
};

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
// and what comes next; `not_asked` addresses were left to later attempts. At most
// kLoggedAddresses addresses are named, the others counted, so a name of thousands of addresses
// makes a line of a few hundred bytes; reasons are escaped (cli::printable) and cut short.
std::string join_log_line(int attempt, const JoinRetry& retry, const swim::JoinResult& result,
                          const std::vector<UnresolvedSeed>& unresolved, JoinRetry::Next next,
                          std::size_t not_asked = 0);

// The Prometheus lines for `counters` (called at the end of metrics_text).
std::string join_metrics_text(const JoinCounters& counters);

}  // namespace vigil::native
