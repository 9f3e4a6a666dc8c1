// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// What a datagram or a stream carries, in the terms a reader of SWIM uses: the request or reply
// it is (ping, ack, ping-req, nack, push-pull) and the membership news piggybacked on it (suspect,
// alive, dead). The in-browser ring and the agents' packet log both describe traffic this way.
namespace vigil::wire {

enum class PacketKind : std::uint8_t {
  ping,
  ack,
  ping_req,
  nack,
  suspect,
  alive,
  dead,
  push_pull,
  user,
  error,
  unknown,  // did not decode (corrupt, encrypted with a key we lack, a future message type)
};
inline constexpr std::size_t kPacketKinds = static_cast<std::size_t>(PacketKind::unknown) + 1;

// "ping", "ack", "ping-req", "nack", "suspect", "alive", "dead", "push-pull", "user", "error",
// "unknown": the names the ring's state() and the WebSocket packet log use.
std::string_view packet_kind_name(PacketKind kind);

// One piece of membership news: suspect, alive or dead about `node` at `incarnation`.
struct Rumour {
  PacketKind kind = PacketKind::alive;
  std::string node;
  std::uint32_t incarnation = 0;
};

struct PacketSummary {
  // The request or reply that leads the packet. A packet of nothing but news takes the kind of
  // its first piece of news.
  PacketKind kind = PacketKind::unknown;
  std::uint32_t seq_no = 0;  // ping, ping-req, ack and nack
  std::string target;        // ping and ping-req: the member probed
  std::vector<Rumour> rumours;
  std::size_t messages = 0;  // in the packet, compound parts unpacked
};

// A datagram after its label and encryption are removed (what a SWIM node writes and reads).
PacketSummary summarize_datagram(std::span<const std::uint8_t> packet);
// A full-state exchange of a stream (push-pull); anything else is `unknown`.
PacketSummary summarize_stream(std::span<const std::uint8_t> stream);

}  // namespace vigil::wire
