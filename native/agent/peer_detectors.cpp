#include "agent/peer_detectors.hpp"

namespace vigil::native {

void PeerDetectors::ack(const std::string& peer, Millis at,
                        const std::function<Millis()>& expected_gap) {
  auto it = detectors_.find(peer);
  if (it == detectors_.end()) {
    detect::PhiAccrualConfig config = config_;
    if (const Millis gap = expected_gap(); gap > Millis{0}) {
      config.first_heartbeat_estimate_ms = static_cast<double>(gap.count());
      config.min_stddev_ms = config.first_heartbeat_estimate_ms / 4.0;
    }
    it = detectors_.emplace(peer, detect::PhiAccrual::create(config).value()).first;
  }
  it->second.heartbeat(at);
}

const detect::PhiAccrual* PeerDetectors::find(const std::string& peer) const {
  auto it = detectors_.find(peer);
  return it == detectors_.end() ? nullptr : &it->second;
}

std::optional<double> PeerDetectors::phi(const std::string& peer, Millis now) const {
  const auto* d = find(peer);
  if (!d || !d->last_heartbeat()) return std::nullopt;
  return d->phi(now);
}

}  // namespace vigil::native
