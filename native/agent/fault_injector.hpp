#pragma once

#include <optional>
#include <set>

#include <vigil/base/result.hpp>
#include <vigil/base/rng.hpp>
#include <vigil/base/time.hpp>
#include <vigil/swim/address.hpp>

namespace vigil::native {

// Network faults an agent applies to its own traffic, on request from the live view: loss and
// added delay (on send, receive or both), one-way blocks towards chosen peers, and pauses.
struct FaultSettings {
  double loss = 0.0;
  double delay_ms = 0.0;
  double jitter_ms = 0.0;  // standard deviation of the added delay (normal, truncated at 0)
  bool on_send = true;
  bool on_receive = false;

  Status validate() const;
};

class FaultInjector {
 public:
  explicit FaultInjector(Rng rng) : rng_(rng) {}

  Status configure(const FaultSettings& settings);
  const FaultSettings& settings() const { return settings_; }

  void block(const swim::Address& peer) { blocked_.insert(peer); }
  void unblock(const swim::Address& peer) { blocked_.erase(peer); }
  const std::set<swim::Address>& blocked() const { return blocked_; }

  // Stops all protocol work until `until` (like SIGSTOP), keeping what arrives queued.
  void pause_until(Millis until) { paused_until_ = std::max(paused_until_, until); }
  bool paused(Millis now) const { return now < paused_until_; }
  Millis paused_until() const { return paused_until_; }

  // The fate of a datagram: how long to hold it back, or nothing when it is dropped.
  std::optional<Millis> outgoing(const swim::Address& to);
  std::optional<Millis> incoming();

 private:
  std::optional<Millis> apply(bool direction_enabled);

  Rng rng_;
  FaultSettings settings_;
  std::set<swim::Address> blocked_;
  Millis paused_until_{0};
};

}  // namespace vigil::native
