#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <vigil/base/time.hpp>

namespace vigil::native {

struct AckTraceLimits {
  // Rows kept per peer: over an hour of acks at one a second; ~32 KiB held, ~100 KiB of CSV.
  static constexpr std::size_t kEntriesPerPeer = 4096;
  // Peers kept at once: the ones heard from most recently. A pool's churn (or a flood of
  // names) cannot grow the record past kPeers x kEntriesPerPeer times.
  static constexpr std::size_t kPeers = 1024;
};

// When the acks of this agent's probes arrived, per peer: a rolling record a user downloads
// (GET /v1/trace) to replay a real network's heartbeats through the detectors offline.
// Times are kept on the agent's monotonic clock, so that a row never goes backwards when the
// wall clock is stepped; they are turned into Unix time only for export.
class AckTrace {
 public:
  struct Counters {
    std::uint64_t entries = 0;        // rows held, all peers together
    std::uint64_t peers = 0;          // peers with a record
    std::uint64_t bytes = 0;          // memory the record holds (an estimate, allocations included)
    std::uint64_t rows_dropped = 0;   // oldest rows overwritten by newer ones (per-peer cap)
    std::uint64_t peers_evicted = 0;  // whole records dropped for a newer peer (peer cap)
    std::uint64_t exports = 0;        // traces served
  };

  // `wall_offset_ms`: Unix time in ms at monotonic time 0.
  explicit AckTrace(double wall_offset_ms,
                    std::size_t entries_per_peer = AckTraceLimits::kEntriesPerPeer,
                    std::size_t max_peers = AckTraceLimits::kPeers);

  // An ack from `peer` at `at_ms` on the monotonic clock (ms, fractions kept).
  void record(const std::string& peer, double at_ms);
  bool has(const std::string& peer) const { return peers_.count(peer) != 0; }
  // The peer's rows as Unix times in ms, oldest first; empty for an unknown peer.
  std::vector<double> wall_times(const std::string& peer) const;
  // The contract's CSV: a comment line, the header, one row per ack (3 decimals), oldest first.
  std::string csv(const std::string& self, const std::string& peer, Millis probe_interval) const;
  void count_export() { ++exports_; }
  Counters counters() const;

 private:
  struct Peer {
    std::vector<double> ring;  // grows to the cap, then `head` is the oldest row
    std::size_t head = 0;
    std::uint64_t touched = 0;  // record() sequence number of the last ack
  };
  void evict_stalest();

  double wall_offset_ms_;
  std::size_t entries_per_peer_;
  std::size_t max_peers_;
  std::map<std::string, Peer> peers_;
  std::uint64_t sequence_ = 0;
  std::uint64_t entries_ = 0;
  std::uint64_t rows_dropped_ = 0;
  std::uint64_t peers_evicted_ = 0;
  std::uint64_t exports_ = 0;
};

// The record's gauges and counters in Prometheus text (vigil_trace_...).
std::string ack_trace_metrics_text(const AckTrace::Counters& c);

}  // namespace vigil::native
