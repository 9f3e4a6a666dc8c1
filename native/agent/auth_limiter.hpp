#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <vigil/base/time.hpp>
#include "http/token_bucket.hpp"

namespace vigil::native {

// Wrong tokens, counted per remote address across all its connections. Each address has a token
// bucket that every failed attempt spends; while it is empty, commands from that address that
// need the token are refused without the token being looked at, so reconnecting buys nothing:
// an address gets at most `burst` + `failures_per_second` x seconds guesses checked. A correct
// token spends nothing. The table of addresses is bounded: a full table first forgets addresses
// whose bucket has refilled (they carry no history), then the one heard from least recently.
class AuthLimiter {
 public:
  struct Limits {
    double failures_per_second = 2;
    double burst = 10;
    std::size_t max_addresses = 4096;
    Millis report_every{10000};  // at most one log line per kind this often
  };
  struct Counters {
    std::uint64_t failures = 0;  // commands whose token was checked and wrong (or missing)
    std::uint64_t refused = 0;   // commands refused unchecked: their address was out of attempts
  };

  AuthLimiter() : AuthLimiter(Limits{}) {}
  explicit AuthLimiter(Limits limits) : limits_(limits) {}

  // Whether a command from `address` may have its token checked now (spends nothing).
  bool admits(const std::string& address, Millis now);
  // The token of a command from `address` was wrong or missing.
  void failed(const std::string& address, Millis now);
  // A command from `address` was refused because admits() said no.
  void refused(const std::string& address, Millis now);

  const Limits& limits() const { return limits_; }
  const Counters& counters() const { return counters_; }
  std::size_t addresses() const { return table_.size(); }

  // Log lines due at `now`: for each kind with news, the first at once, then at most one every
  // `report_every`, each summing what happened since the previous one.
  std::vector<std::string> reports(Millis now);

 private:
  struct Entry {
    TokenBucket bucket;
    Millis last_seen;
  };
  struct Pending {
    std::uint64_t count = 0;
    Millis since{0};  // when the first unreported event happened
    std::string last_address;
    std::optional<Millis> reported;  // the last line's time
  };
  Entry& entry(const std::string& address, Millis now);
  void make_room(Millis now);
  static void note(Pending& p, const std::string& address, Millis now);
  std::optional<std::string> report(Pending& p, Millis now, const char* one, const char* many);

  Limits limits_;
  Counters counters_;
  std::unordered_map<std::string, Entry> table_;
  Pending failures_;
  Pending refusals_;
};

// The limiter's counters in Prometheus text format, for /metrics.
std::string auth_metrics_text(const AuthLimiter::Counters& counters, std::size_t addresses);

}  // namespace vigil::native
