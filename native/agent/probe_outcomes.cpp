#include "agent/probe_outcomes.hpp"

namespace vigil::native {

void ProbeOutcomes::add(const swim::ProbeResult& r) {
  Peer& p = peers_[r.member];
  ++p.probes;
  if (!(r.acked && r.direct)) ++p.direct_failed;
  if (r.acked && !r.direct) ++p.indirect_acked;
  if (!r.acked) ++p.failed;
}

const ProbeOutcomes::Peer* ProbeOutcomes::find(const std::string& peer) const {
  auto it = peers_.find(peer);
  return it == peers_.end() ? nullptr : &it->second;
}

}  // namespace vigil::native
