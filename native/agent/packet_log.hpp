#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <vigil/base/time.hpp>
#include <vigil/swim/node.hpp>
#include <vigil/wire/packet_summary.hpp>
#include "http/lws_host.hpp"
#include "http/token_bucket.hpp"

namespace vigil::native {

// How much of an agent's traffic one viewer may be sent (docs/websocket.md, "Packet log").
struct PacketLogLimits {
  // Packets logged to one viewer a second; more are skipped and counted. A three-member LAN
  // cluster sends some ten datagrams a second, so only floods and large clusters meet it.
  static constexpr double kPacketsPerSecond = 200;
  // The bucket holds one batch period's worth, so no second holds more than the rate plus that.
  static constexpr double kBurst = 20;
  // Packets described but not yet sent to one viewer, in bytes of JSON (a batch at most).
  static constexpr std::size_t kMaxPendingBytes = 64 * 1024;
  // A viewer whose WebSocket queue already holds this much (it reads slower than the agent
  // writes) is not sent batches: they are skipped, so packets never close a viewer that still
  // reads its snapshots and stats within the host's per-viewer budget.
  static constexpr std::size_t kMaxViewerQueueBytes = 256 * 1024;
};

// One packet as the log describes it, before its contents are looked at.
struct PacketSighting {
  Millis at{0};
  bool outgoing = false;
  bool stream = false;   // push-pull or TCP fallback ping, not a datagram
  bool dropped = false;  // by this agent's own fault injector
  Millis delay{0};       // held back by the fault injector
  std::size_t size = 0;  // bytes on the wire (label and encryption included)
  swim::Address address{};
};

// What a datagram carries, from the bytes on the wire: the label is removed and, with a keyring,
// the packet opened as the engine opens it, so the summary is of the plaintext.
wire::PacketSummary summarize_wire_datagram(const swim::Node& node,
                                            std::span<const std::uint8_t> bytes);
// A stream message's plaintext: a full-state exchange, or a ping or ack (TCP fallback).
wire::PacketSummary summarize_stream_message(std::span<const std::uint8_t> plaintext);

// One log entry's JSON: {"t","dir","via","kind","peer","address","size","dropped",...}.
nlohmann::json packet_json(const PacketSighting& s, const wire::PacketSummary& summary,
                           const std::string& peer);

// The sampled packet log each viewer may ask for: off for every viewer until it asks, limited
// to PacketLogLimits per viewer, sent as one batch per tick. Nothing is described (decoded,
// named, rendered) for a packet no viewer will be sent.
class PacketLog {
 public:
  struct Counters {
    std::uint64_t logged = 0;  // packets described (each once, however many viewers get it)
    std::uint64_t sent = 0;    // entries sent to viewers, counted per viewer
    std::uint64_t skipped =
        0;  // entries a viewer was not sent: over its rate, pending or queue bound
    std::uint64_t batches = 0;  // batch messages sent
  };

  void subscribe(LwsHost::ClientId viewer, bool on);
  void forget(LwsHost::ClientId viewer) { viewers_.erase(viewer); }
  // Someone asked: the agent looks at packets only then.
  bool active() const { return !viewers_.empty(); }
  std::size_t viewers() const { return viewers_.size(); }

  // A packet seen at `at`: each viewer takes it within its limits; `describe` is called (once)
  // only when at least one does.
  void record(Millis at, const std::function<nlohmann::json()>& describe);

  // One batch per viewer with something to say: packets pending, or packets skipped since its
  // last batch. `queued(viewer)` is the viewer's WebSocket queue in bytes.
  std::vector<std::pair<LwsHost::ClientId, std::string>> flush(
      Millis now, const std::function<std::size_t(LwsHost::ClientId)>& queued);

  const Counters& counters() const { return counters_; }

 private:
  struct Viewer {
    Viewer() : bucket(PacketLogLimits::kPacketsPerSecond, PacketLogLimits::kBurst) {}
    TokenBucket bucket;
    std::string pending;  // entries' JSON, comma-separated
    std::size_t pending_count = 0;
    std::uint64_t skipped = 0;  // since its last batch
    std::uint64_t skipped_total = 0;
  };
  void skip(Viewer& v, std::uint64_t n);

  std::map<LwsHost::ClientId, Viewer> viewers_;
  Counters counters_;
};

// The Prometheus lines for the packet log (called at the end of metrics_text).
std::string packet_log_metrics_text(const PacketLog::Counters& counters, std::size_t viewers);

}  // namespace vigil::native
