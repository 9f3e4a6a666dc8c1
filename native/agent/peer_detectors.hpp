#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include <vigil/base/time.hpp>
#include <vigil/detect/phi_accrual.hpp>

namespace vigil::native {

// A phi-accrual detector per peer, fed by the acks of this agent's probes, so that the live view
// can plot each peer's inter-arrival gaps and phi as the in-browser demo does.
class PeerDetectors {
 public:
  explicit PeerDetectors(detect::PhiAccrualConfig config) : config_(config) {}

  // `expected_gap` seeds a new peer's detector (its bootstrap estimate and minimum spread): a
  // round-robin prober reaches each of N peers once every N probe periods, not every period.
  // It is asked only for a peer's first ack.
  void ack(const std::string& peer, Millis at, const std::function<Millis()>& expected_gap);
  void forget(const std::string& peer) { detectors_.erase(peer); }
  const detect::PhiAccrual* find(const std::string& peer) const;
  // Phi now, or nothing before the first ack.
  std::optional<double> phi(const std::string& peer, Millis now) const;

 private:
  detect::PhiAccrualConfig config_;
  std::map<std::string, detect::PhiAccrual> detectors_;
};

}  // namespace vigil::native
