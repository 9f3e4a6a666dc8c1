#include "agent/peer_detectors.hpp"

namespace vigil::native {

void PeerDetectors::ack(const std::string& peer, Millis at) {
  auto it = detectors_.find(peer);
  if (it == detectors_.end()) it = detectors_.emplace(peer, detect::PhiAccrual::create(config_).value()).first;
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
