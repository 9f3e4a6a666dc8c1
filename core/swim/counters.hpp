#pragma once

#include <array>
#include <cstdint>

#include "wire/messages.hpp"

namespace vigil::swim {

// Traffic and protocol counters of one node (the agent's /metrics and the labs read them).
struct Counters {
  static constexpr std::size_t kTypes = 14;  // message types 0..13 (ping .. err)

  std::array<std::uint64_t, kTypes> messages_sent{};  // by type, counting compound parts
  std::array<std::uint64_t, kTypes> messages_received{};
  std::uint64_t datagrams_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t datagrams_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t datagrams_rejected = 0;  // undecodable, or carrying the wrong label
  std::uint64_t streams_sent = 0;        // push-pull exchanges started
  std::uint64_t stream_bytes_sent = 0;
  std::uint64_t probes = 0;
  std::uint64_t probes_failed = 0;
  std::uint64_t indirect_probes = 0;  // probes that needed helpers
  std::uint64_t suspicions = 0;       // members this node started to suspect
  std::uint64_t refutations = 0;      // times this node refuted an accusation

  static std::size_t index(wire::MessageType t) { return static_cast<std::size_t>(t); }
};

}  // namespace vigil::swim
