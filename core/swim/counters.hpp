#pragma once

#include <array>
#include <cstdint>

#include <vigil/wire/messages.hpp>

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
  std::uint64_t datagrams_rejected = 0;        // undecodable, wrong label, or failed decryption
  std::uint64_t datagrams_label_mismatch = 0;  // of those: another label, or none when one is set
  std::uint64_t datagrams_decrypt_failed = 0;  // of those: no key opened it (or not encrypted)
  std::uint64_t streams_rejected = 0;       // TCP streams refused: wrong label, failed decryption
  std::uint64_t streams_sent = 0;           // push-pull exchanges started
  std::uint64_t stream_pings_answered = 0;  // memberlist's TCP fallback pings we acked
  std::uint64_t stream_pings_sent = 0;      // our own TCP fallback pings, after a UDP timeout
  std::uint64_t stream_pings_acked = 0;     // of those: answered with the right ack
  std::uint64_t user_messages = 0;          // type 8 (Serf's events), handed up as bytes
  std::uint64_t user_messages_dropped = 0;  // of those: the host had not drained the last 256
  std::uint64_t stream_bytes_sent = 0;
  std::uint64_t exchanges_unchanged = 0;  // full states received that matched our own view
  std::uint64_t probes = 0;
  std::uint64_t probes_failed = 0;
  std::uint64_t indirect_probes = 0;  // probes that needed helpers
  std::uint64_t suspicions = 0;       // members this node started to suspect
  std::uint64_t refutations = 0;      // times this node refuted an accusation
  std::uint64_t name_conflicts = 0;   // claims to a known member's name from another address

  static std::size_t index(wire::MessageType t) { return static_cast<std::size_t>(t); }
};

}  // namespace vigil::swim
