#include "agent/ack_trace.hpp"

#include <cstdio>
#include <sstream>

#include "http/prometheus_text.hpp"

namespace vigil::native {

namespace {

// What a std::map node costs beyond its key and value: three links, a colour, allocator slack.
constexpr std::size_t kMapNodeOverhead = 48;

}  // namespace

AckTrace::AckTrace(double wall_offset_ms, std::size_t entries_per_peer, std::size_t max_peers)
    : wall_offset_ms_(wall_offset_ms),
      entries_per_peer_(entries_per_peer < 1 ? 1 : entries_per_peer),
      max_peers_(max_peers < 1 ? 1 : max_peers) {}

void AckTrace::record(const std::string& peer, double at_ms) {
  auto it = peers_.find(peer);
  if (it == peers_.end()) {
    if (peers_.size() >= max_peers_) evict_stalest();
    it = peers_.emplace(peer, Peer{}).first;
  }
  Peer& p = it->second;
  p.touched = ++sequence_;
  if (p.ring.size() < entries_per_peer_) {
    p.ring.push_back(at_ms);
    ++entries_;
    return;
  }
  p.ring[p.head] = at_ms;
  p.head = (p.head + 1) % p.ring.size();
  ++rows_dropped_;
}

void AckTrace::evict_stalest() {
  // A linear scan, only when a new peer meets a full record: rare, and at most kPeers long.
  auto stalest = peers_.begin();
  for (auto it = peers_.begin(); it != peers_.end(); ++it)
    if (it->second.touched < stalest->second.touched) stalest = it;
  entries_ -= stalest->second.ring.size();
  peers_.erase(stalest);
  ++peers_evicted_;
}

std::vector<double> AckTrace::wall_times(const std::string& peer) const {
  std::vector<double> out;
  auto it = peers_.find(peer);
  if (it == peers_.end()) return out;
  const Peer& p = it->second;
  out.reserve(p.ring.size());
  for (std::size_t i = 0; i < p.ring.size(); ++i)
    out.push_back(p.ring[(p.head + i) % p.ring.size()] + wall_offset_ms_);
  return out;
}

std::string AckTrace::csv(const std::string& self, const std::string& peer,
                          Millis probe_interval) const {
  const std::vector<double> times = wall_times(peer);
  // RFC 4180: a name holding a comma or a quote is quoted, its quotes doubled.
  std::string sender = peer;
  if (peer.find_first_of(",\"") != std::string::npos) {
    sender = "\"";
    for (const char c : peer) sender += c == '"' ? std::string("\"\"") : std::string(1, c);
    sender += '"';
  }
  std::string out = "# vigil trace: ack arrivals from " + peer + " seen by " + self +
                    ", probe interval " + std::to_string(probe_interval.count()) +
                    " ms\ntime_ms,sender\n";
  out.reserve(out.size() + times.size() * (sender.size() + 20));
  char row[48];
  for (const double t : times) {
    std::snprintf(row, sizeof row, "%.3f,", t);
    out += row;
    out += sender;
    out += '\n';
  }
  return out;
}

AckTrace::Counters AckTrace::counters() const {
  Counters c;
  c.entries = entries_;
  c.peers = peers_.size();
  c.bytes = sizeof(AckTrace);
  for (const auto& [name, p] : peers_)
    c.bytes += kMapNodeOverhead + sizeof(std::string) + name.capacity() + sizeof(Peer) +
               p.ring.capacity() * sizeof(double);
  c.rows_dropped = rows_dropped_;
  c.peers_evicted = peers_evicted_;
  c.exports = exports_;
  return c;
}

std::string ack_trace_metrics_text(const AckTrace::Counters& c) {
  std::ostringstream out;
  write_gauge(out, "vigil_trace_entries", "Ack arrival times held for traces, all peers together.",
              c.entries);
  write_gauge(out, "vigil_trace_peers", "Peers with an ack trace held.", c.peers);
  write_gauge(out, "vigil_trace_bytes", "Memory held by the ack traces (an estimate).", c.bytes);
  write_counter(out, "vigil_trace_rows_dropped_total",
                "Oldest ack times overwritten once a peer's trace was full.", c.rows_dropped);
  write_counter(out, "vigil_trace_peers_evicted_total",
                "Peer traces dropped to make room for a peer heard from more recently.",
                c.peers_evicted);
  write_counter(out, "vigil_trace_exports_total", "Traces served over HTTP (GET /v1/trace).",
                c.exports);
  return out.str();
}

}  // namespace vigil::native
