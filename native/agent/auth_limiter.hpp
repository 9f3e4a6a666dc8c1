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

// Wrong tokens, counted per client across all its connections. Each client has a token bucket
// that every failed attempt spends; while it is empty, commands from that client that need the
// token are refused without the token being looked at, so reconnecting buys nothing: a client
// gets at most `burst` + `failures_per_second` x seconds guesses checked. A correct token spends
// nothing.
//
// A client is what one party cannot multiply cheaply (see client_of): an IPv4 address, an IPv6
// /64 (one host's usual allocation holds 2^64 addresses), and this machine as a whole (anyone on
// it can use every address of 127.0.0.0/8). The table of clients is bounded: a full table
// forgets clients whose bucket has refilled (they carry no history); past that, new clients
// share one bucket, so that a crowd of addresses cannot buy a fresh allowance each by pushing
// older ones out.
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
    std::uint64_t shared = 0;    // wrong tokens charged to the bucket new clients share (a full
                                 // table)
  };

  AuthLimiter() : AuthLimiter(Limits{}) {}
  explicit AuthLimiter(Limits limits) : limits_(limits) {}

  // The client an address belongs to, as the table keys it: "127.0.0.0/8" for any loopback
  // address, "2001:db8:1:2::/64" for an IPv6 address outside ::1, the address itself otherwise.
  static std::string client_of(const std::string& address);

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
  };
  struct Pending {
    std::uint64_t count = 0;
    Millis since{0};  // when the first unreported event happened
    std::string last_address;
    std::optional<Millis> reported;  // the last line's time
  };
  // The bucket of `client`, added to the table if there is room; the shared one otherwise.
  TokenBucket& bucket(const std::string& client, Millis now);
  // Forgets refilled clients when the table is full; false if it is still full.
  bool make_room(Millis now);
  static void note(Pending& p, const std::string& address, Millis now);
  std::optional<std::string> report(Pending& p, Millis now, const char* one, const char* many);

  Limits limits_;
  Counters counters_;
  std::unordered_map<std::string, Entry> table_;
  TokenBucket overflow_{limits_.failures_per_second, limits_.burst};
  Pending failures_;
  Pending refusals_;
};

// The limiter's counters in Prometheus text format, for /metrics.
std::string auth_metrics_text(const AuthLimiter::Counters& counters, std::size_t addresses);

}  // namespace vigil::native
