#pragma once

#include <cstdint>
#include <string>

#include <vigil/base/time.hpp>
#include <vigil/swim/address.hpp>
#include <vigil/wire/codec.hpp>
#include <vigil/wire/messages.hpp>
#include "http/lws_host.hpp"

namespace vigil::native {

class Agent;

// Bounds on the TCP streams a stranger can open on the protocol port. A push-pull carries one
// entry per member, about 100 bytes with Serf's tags (memberlist caps metadata at 512 bytes), so
// a 1,000-member cluster's exchange is well under 1 MiB.
struct StreamLimits {
  // memberlist's maxPushPullRequests: over it, a connection is accepted and closed at once.
  static constexpr std::size_t kMaxIncoming = 128;
  // One stream's buffer: 4x the largest exchange of a 1,000-member cluster with full metadata
  // (~0.6 MiB), still ~7,000 members at the metadata cap. memberlist allows 20 MiB, which lets
  // 25 idle connections hold half a gigabyte.
  static constexpr std::size_t kMaxBytesPerStream = 4 * 1024 * 1024;
  // The engine expands a compressed stream message to at most as much as a plain one may send.
  static_assert(kMaxBytesPerStream == wire::max_stream_expansion);
  // All streams' buffers together: four streams at their limit. A real cluster rarely has two
  // exchanges with one member in flight; a stream that would take the total past this is closed.
  static constexpr std::size_t kMaxBytesBuffered = 16 * 1024 * 1024;
  // Freeing a buffer this large hands heap memory back to the system (malloc_trim): glibc's
  // growing mmap threshold otherwise keeps junk streams' memory in the process after they end.
  static constexpr std::size_t kTrimAfter = 1024 * 1024;
};

// Why streams were turned away or cut short; /metrics shows them, the log sums them up.
struct StreamStats {
  std::uint64_t refused = 0;      // accepted and closed at once: kMaxIncoming already open
  std::uint64_t too_large = 0;    // over kMaxBytesPerStream
  std::uint64_t over_budget = 0;  // would take all buffers past kMaxBytesBuffered
  std::uint64_t timed_out = 0;    // not done by the stream deadline
  std::uint64_t junk = 0;  // bytes that are not a stream message (incl. foreign labels, bad keys)
  std::size_t open_incoming = 0;  // gauges, filled in when rendered
  std::size_t buffered = 0;

  bool operator==(const StreamStats&) const = default;
};

// The Prometheus lines for `stats` (called at the end of metrics_text).
std::string stream_metrics_text(const StreamStats& stats);

// One TCP connection carrying a push-pull exchange, as memberlist does it: the initiator writes
// its state and reads the peer's; the responder reads, merges, answers and closes. Messages are
// self-delimiting msgpack, so "complete" means "decodes".
class StreamLink : public RawHandler {
 public:
  enum class Role { initiator, responder };

  StreamLink(Agent& agent, Role role, int fd, std::uint64_t id, wire::Bytes request,
             Millis deadline);
  ~StreamLink() override;

  void attach(::lws* wsi) { wsi_ = wsi; }
  // This exchange is the agent's join: its answer completes the join.
  void mark_join() { join_ = true; }
  // Who is at the other end, for the packet log (a responder sees the peer's outgoing port).
  void set_peer(const swim::Address& peer) { peer_ = peer; }
  ::lws* wsi() const { return wsi_; }
  Role role() const { return role_; }
  Millis deadline() const { return deadline_; }
  bool closed() const { return closed_; }
  // Gives up at shutdown: an initiator reports the exchange as failed.
  void abort();
  // The deadline passed: gives up and counts it, unless the exchange was already done.
  void time_out();

  void on_readable() override;
  void on_writable() override;
  void on_closed() override;

 private:
  void fail(const char* reason = nullptr);  // the reason, when known, for a join's log
  void finish();
  // Grows the input buffer for `more` bytes within both limits; false (counted) if it cannot.
  bool make_room(std::size_t more);
  void release_buffer();
  // Whether the first byte of what arrived can start a stream message at all.
  bool plausible_start() const;

  Agent& agent_;
  Role role_;
  int fd_;
  ::lws* wsi_ = nullptr;
  std::uint64_t id_;
  swim::Address peer_{};
  wire::Bytes out_;
  std::size_t written_ = 0;
  wire::Bytes in_;
  std::size_t accounted_ = 0;  // in_'s capacity as counted in the agent's total
  Millis deadline_;
  bool connecting_;
  bool join_ = false;
  bool resolved_ = false;  // the engine has heard how it ended
  bool closing_ = false;
  bool closed_ = false;
};

}  // namespace vigil::native
