#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <vigil/swim/outbox.hpp>

namespace vigil::native {

// How this agent's probes of each peer ended. A fault on one link shows here before anyone is
// suspected: direct pings fail while the indirect probes through other members still succeed,
// which is why SWIM masks a one-way cut.
class ProbeOutcomes {
 public:
  struct Peer {
    std::uint64_t probes = 0;
    std::uint64_t direct_failed = 0;   // no ack before the indirect phase began
    std::uint64_t indirect_acked = 0;  // acked, but only after the indirect phase began
    std::uint64_t failed = 0;          // not acked at all
  };

  void add(const swim::ProbeResult& result);
  void forget(const std::string& peer) { peers_.erase(peer); }
  const Peer* find(const std::string& peer) const;

 private:
  std::map<std::string, Peer> peers_;
};

}  // namespace vigil::native
