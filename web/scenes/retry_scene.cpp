#include "scenes/retry_scene.hpp"

#include <cstdio>
#include <vector>

namespace vigil::web {

namespace {

Millis second(int s) {
  return Millis{static_cast<std::int64_t>(s) * 1000};
}

std::string printf_string(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// 347490 -> "347,490": counts of calls run to six figures.
std::string count(double v) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%.0f", v);
  std::string s = digits, out;
  const std::size_t sign = (!s.empty() && s[0] == '-') ? 1 : 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i > sign && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

}  // namespace

Scene fleet_outage_scene(const FleetReadout& setup, const FleetSceneHooks& hooks) {
  std::vector<SceneBeat> beats;
  beats.push_back(
      {second(0),
       printf_string("An outage has just ended: at t = 0 all %s clients saw a call fail, and "
                     "the server is back with room for %s req/s. Three fleets retry: "
                     "without backoff (red), with exponential backoff (orange), and with "
                     "exponential backoff and full jitter (green).",
                     count(setup.clients).c_str(), count(setup.capacity_rps).c_str()),
       [hooks] { hooks.show_three(); }});
  beats.push_back({second(1), "", [hooks] {
                     const FleetReadout r = hooks.read();
                     hooks.narrate(printf_string(
                         "Second 1: without backoff each client retries every 10 ms: %s calls "
                         "reached the server, %.0fx its capacity. That is a retry storm. Full "
                         "jitter sent %s.",
                         count(static_cast<double>(r.none.offered)).c_str(),
                         static_cast<double>(r.none.offered) / r.capacity_rps,
                         count(static_cast<double>(r.full_jitter.offered)).c_str()));
                   }});
  beats.push_back({second(3), "", [hooks] {
                     const FleetReadout r = hooks.read();
                     hooks.narrate(printf_string(
                         "Exponential backoff without jitter: every client waits the same 1 s, "
                         "2 s, 4 s..., so they all retry in the same instant. Its busiest 100 ms "
                         "ran at %s req/s, %.0fx capacity, and %s clients are still waiting.",
                         count(r.exponential.peak_rps).c_str(),
                         r.exponential.peak_rps / r.capacity_rps,
                         count(static_cast<double>(r.exponential.waiting)).c_str()));
                   }});
  // Every few seconds the same reading again, so that the caption never speaks of a moment long
  // past while the clock runs on.
  for (const int at : {6, 10, 15}) {
    beats.push_back(
        {second(at), "", [hooks, at] {
           const FleetReadout r = hooks.read();
           const std::string none =
               r.none.waiting == 0
                   ? printf_string(
                         "no backoff has got everyone through by brute force: "
                         "%s calls for %s clients",
                         count(static_cast<double>(r.none.calls)).c_str(), count(r.clients).c_str())
                   : printf_string("no backoff has made %s calls and %s clients still wait",
                                   count(static_cast<double>(r.none.calls)).c_str(),
                                   count(static_cast<double>(r.none.waiting)).c_str());
           hooks.narrate(printf_string(
               "%d s: %s. Full jitter has made %s calls so far; %s clients wait. Without jitter: "
               "%s calls, %s clients wait.",
               at, none.c_str(), count(static_cast<double>(r.full_jitter.calls)).c_str(),
               count(static_cast<double>(r.full_jitter.waiting)).c_str(),
               count(static_cast<double>(r.exponential.calls)).c_str(),
               count(static_cast<double>(r.exponential.waiting)).c_str()));
         }});
  }
  beats.push_back(
      {second(20), "", [hooks] {
         const FleetReadout r = hooks.read();
         const std::string jitter =
             r.full_jitter.waiting == 0
                 ? printf_string("full jitter has answered every client, with %s calls",
                                 count(static_cast<double>(r.full_jitter.calls)).c_str())
                 : printf_string("full jitter has %s clients left after %s calls",
                                 count(static_cast<double>(r.full_jitter.waiting)).c_str(),
                                 count(static_cast<double>(r.full_jitter.calls)).c_str());
         hooks.narrate(
             printf_string("20 s: %s; no backoff needed %s. Without jitter %s clients still wait: "
                           "each synchronised wave finds room for a few.",
                           jitter.c_str(), count(static_cast<double>(r.none.calls)).c_str(),
                           count(static_cast<double>(r.exponential.waiting)).c_str()));
       }});
  return Scene(kOutageStormScene, std::move(beats));
}

Scene server_outage_scene(const ServerReadout& setup, const ServerSceneHooks& hooks) {
  const int start = static_cast<int>(setup.trigger_at_s);
  const int end = static_cast<int>(setup.trigger_at_s + setup.trigger_seconds);
  std::vector<SceneBeat> beats;
  beats.push_back(
      {second(0),
       printf_string("Steady: %s requests a second reach a server that serves %s. A "
                     "client waits %.0f ms for an answer, then retries. Goodput (green) "
                     "follows the arrivals.",
                     count(setup.arrival_rps).c_str(), count(setup.capacity_rps).c_str(),
                     setup.timeout_ms),
       nullptr});
  beats.push_back({second(start), "", [hooks] {
                     const ServerReadout r = hooks.read();
                     hooks.narrate(printf_string(
                         "Second %d: goodput %s req/s, %s queued. Now a slowdown: for %.0f s the "
                         "server runs at %.0f%% speed (%s req/s). The queue grows, requests wait "
                         "past %.0f ms, and their clients retry.",
                         r.run.second, count(static_cast<double>(r.run.goodput)).c_str(),
                         count(static_cast<double>(r.run.queue)).c_str(), r.trigger_seconds,
                         100.0 * r.trigger_capacity,
                         count(r.capacity_rps * r.trigger_capacity).c_str(), r.timeout_ms));
                   }});
  beats.push_back({second(start + 3), "", [hooks] {
                     const ServerReadout r = hooks.read();
                     hooks.narrate(printf_string(
                         "The storm: clients send %s req/s (%s of them retries), %.1fx what the "
                         "server can serve even at full speed. It serves %s; %s of those reach a "
                         "client still waiting.",
                         count(static_cast<double>(r.run.offered)).c_str(),
                         count(static_cast<double>(r.run.retries)).c_str(),
                         static_cast<double>(r.run.offered) / r.capacity_rps,
                         count(static_cast<double>(r.run.throughput)).c_str(),
                         count(static_cast<double>(r.run.goodput)).c_str()));
                   }});
  beats.push_back({second(end + 3), "", [hooks, end] {
                     const ServerReadout r = hooks.read();
                     hooks.narrate(printf_string(
                         "Second %d: the slowdown ended at second %d and the server is back at %s "
                         "req/s, yet clients still send %s: retries of requests that timed out in "
                         "the queue keep it full. It serves %s a second; goodput %s.",
                         r.run.second, end, count(r.capacity_rps).c_str(),
                         count(static_cast<double>(r.run.offered)).c_str(),
                         count(static_cast<double>(r.run.throughput)).c_str(),
                         count(static_cast<double>(r.run.goodput)).c_str()));
                   }});
  beats.push_back(
      {second(end + 11), "", [hooks] {
         const ServerReadout r = hooks.read();
         hooks.narrate(printf_string(
             "Second %d, 11 s after the slowdown: still stuck. Goodput %s req/s against %s before; "
             "%.0f%% of the server's work so far answered nobody. Its cause is gone "
             "but the failure stays: it is metastable.",
             r.run.second, count(static_cast<double>(r.run.goodput)).c_str(),
             count(r.arrival_rps).c_str(), 100.0 * r.run.wasted_share));
       }});
  beats.push_back(
      {second(kServerActTwoAt),
       printf_string("Act 2: the same slowdown, but clients keep a retry budget: retries "
                     "at most %.0f%% of first attempts. Top: with the budget; below: "
                     "without, as before.",
                     100.0 * setup.budget_ratio),
       [hooks] { hooks.budget_act(); }});
  beats.push_back({second(kServerActTwoAt + start + 3), "", [hooks] {
                     const ServerReadout r = hooks.read();
                     hooks.narrate(printf_string(
                         "The slowdown again: with the budget clients send %s req/s (%s retries); "
                         "without it, %s (%s retries).",
                         count(static_cast<double>(r.run.offered)).c_str(),
                         count(static_cast<double>(r.run.retries)).c_str(),
                         count(static_cast<double>(r.baseline.offered)).c_str(),
                         count(static_cast<double>(r.baseline.retries)).c_str()));
                   }});
  beats.push_back({second(kServerActTwoAt + end + 9), "", [hooks, end] {
                     const ServerReadout r = hooks.read();
                     const std::string recovery =
                         r.run.recovered_second >= 0
                             ? printf_string(
                                   "goodput was back to normal %d s after the slowdown "
                                   "and is now %s req/s",
                                   r.run.recovered_second + 1 - end,
                                   count(static_cast<double>(r.run.goodput)).c_str())
                             : printf_string("goodput is %s req/s",
                                             count(static_cast<double>(r.run.goodput)).c_str());
                     hooks.narrate(printf_string(
                         "With the budget %s (queue %s); without it, goodput %s. Capping retries "
                         "lets the queue drain once the slowdown ends: the server recovers on its "
                         "own.",
                         recovery.c_str(), count(static_cast<double>(r.run.queue)).c_str(),
                         count(static_cast<double>(r.baseline.goodput)).c_str()));
                   }});
  return Scene(kOutageStormScene, std::move(beats));
}

}  // namespace vigil::web
