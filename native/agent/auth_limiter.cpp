#include "agent/auth_limiter.hpp"

#include <cstdio>
#include <sstream>

#include "http/prometheus_text.hpp"

namespace vigil::native {

bool AuthLimiter::admits(const std::string& address, Millis now) {
  auto it = table_.find(address);
  // Refills in pieces do not quite add up to 1.0 (as in TokenBucket::take).
  return it == table_.end() || it->second.bucket.tokens(now) >= 1.0 - 1e-9;
}

void AuthLimiter::failed(const std::string& address, Millis now) {
  ++counters_.failures;
  entry(address, now).bucket.take(now);
  note(failures_, address, now);
}

void AuthLimiter::refused(const std::string& address, Millis now) {
  ++counters_.refused;
  if (auto it = table_.find(address); it != table_.end()) it->second.last_seen = now;
  note(refusals_, address, now);
}

AuthLimiter::Entry& AuthLimiter::entry(const std::string& address, Millis now) {
  auto it = table_.find(address);
  if (it == table_.end()) {
    make_room(now);
    it =
        table_.emplace(address, Entry{TokenBucket(limits_.failures_per_second, limits_.burst), now})
            .first;
  }
  it->second.last_seen = now;
  return it->second;
}

void AuthLimiter::make_room(Millis now) {
  if (table_.size() < limits_.max_addresses) return;
  // An address whose bucket is full again is as good as unknown: forgetting it changes nothing.
  for (auto it = table_.begin(); it != table_.end();) {
    if (it->second.bucket.tokens(now) >= limits_.burst - 1e-9)
      it = table_.erase(it);
    else
      ++it;
  }
  if (table_.size() < limits_.max_addresses) return;
  auto oldest = table_.begin();
  for (auto it = table_.begin(); it != table_.end(); ++it)
    if (it->second.last_seen < oldest->second.last_seen) oldest = it;
  table_.erase(oldest);
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
              "Remote addresses with recent wrong tokens being tracked.", addresses);
  return out.str();
}

}  // namespace vigil::native
