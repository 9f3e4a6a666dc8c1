#include "agent/auth_limiter.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdio>
#include <cstring>
#include <sstream>

#include "http/prometheus_text.hpp"

namespace vigil::native {

std::string AuthLimiter::client_of(const std::string& address) {
  in_addr v4{};
  if (::inet_pton(AF_INET, address.c_str(), &v4) == 1)
    return (ntohl(v4.s_addr) >> 24) == 127 ? "127.0.0.0/8" : address;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, address.c_str(), &v6) != 1) return address;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return "127.0.0.0/8";  // the same machine
  std::memset(&v6.s6_addr[8], 0, 8);
  char text[INET6_ADDRSTRLEN] = {0};
  ::inet_ntop(AF_INET6, &v6, text, sizeof text);
  return std::string(text) + "/64";
}

bool AuthLimiter::admits(const std::string& address, Millis now) {
  auto it = table_.find(client_of(address));
  // Unknown, with room in the table: a full allowance.
  TokenBucket* b = it != table_.end() ? &it->second.bucket : make_room(now) ? nullptr : &overflow_;
  // Refills in pieces do not quite add up to 1.0 (as in TokenBucket::take).
  return !b || b->tokens(now) >= 1.0 - 1e-9;
}

void AuthLimiter::failed(const std::string& address, Millis now) {
  ++counters_.failures;
  bucket(client_of(address), now).take(now);
  note(failures_, address, now);
}

void AuthLimiter::refused(const std::string& address, Millis now) {
  ++counters_.refused;
  note(refusals_, address, now);
}

TokenBucket& AuthLimiter::bucket(const std::string& client, Millis now) {
  auto it = table_.find(client);
  if (it != table_.end()) return it->second.bucket;
  if (!make_room(now)) {
    ++counters_.shared;
    return overflow_;
  }
  return table_.emplace(client, Entry{TokenBucket(limits_.failures_per_second, limits_.burst)})
      .first->second.bucket;
}

bool AuthLimiter::make_room(Millis now) {
  if (table_.size() < limits_.max_addresses) return true;
  // A client whose bucket is full again is as good as unknown: forgetting it changes nothing.
  for (auto it = table_.begin(); it != table_.end();) {
    if (it->second.bucket.tokens(now) >= limits_.burst - 1e-9)
      it = table_.erase(it);
    else
      ++it;
  }
  return table_.size() < limits_.max_addresses;
}

void AuthLimiter::note(Pending& p, const std::string& address, Millis now) {
  if (p.count++ == 0) p.since = now;
  p.last_address = address;
}

std::optional<std::string> AuthLimiter::report(Pending& p, Millis now, const char* one,
                                               const char* many) {
  if (p.count == 0 || (p.reported && now - *p.reported < limits_.report_every)) return std::nullopt;
  char line[512];
  if (p.count == 1)
    std::snprintf(line, sizeof line, "%s from %s", one, p.last_address.c_str());
  else
    std::snprintf(line, sizeof line, "%llu %s over %.1f s, the last from %s",
                  static_cast<unsigned long long>(p.count), many,
                  static_cast<double>((now - p.since).count()) / 1000.0, p.last_address.c_str());
  p.count = 0;
  p.reported = now;
  return std::string(line);
}

std::vector<std::string> AuthLimiter::reports(Millis now) {
  std::vector<std::string> out;
  if (auto line = report(failures_, now, "a command with a wrong or missing token",
                         "commands with a wrong or missing token"))
    out.push_back(*line);
  if (auto line = report(refusals_, now,
                         "a command refused unchecked (too many wrong tokens from its address)",
                         "commands refused unchecked (too many wrong tokens from their address)"))
    out.push_back(*line);
  return out;
}

std::string auth_metrics_text(const AuthLimiter::Counters& counters, std::size_t addresses) {
  std::ostringstream out;
  write_counter(out, "vigil_auth_failures_total",
                "WebSocket commands whose token was checked and found wrong or missing.",
                counters.failures);
  write_counter(
      out, "vigil_auth_rate_limited_total",
      "WebSocket commands needing the token refused unchecked: their address had used up its "
      "allowance of wrong tokens.",
      counters.refused);
  write_gauge(out, "vigil_auth_tracked_addresses",
              "Clients (an IPv4 address, an IPv6 /64, this machine) with recent wrong tokens being "
              "tracked.",
              addresses);
  write_counter(out, "vigil_auth_shared_total",
                "Wrong tokens charged to the one allowance new clients share while the table of "
                "clients is full.",
                counters.shared);
  return out.str();
}

}  // namespace vigil::native
