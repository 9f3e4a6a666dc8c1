#include <vigil/wire/packet_summary.hpp>

#include <type_traits>
#include <variant>

#include <vigil/wire/codec.hpp>

namespace vigil::wire {

// SWIM's terms (ping-req, push-pull), as a reader of the paper knows them, not memberlist's
// type names (to_string(MessageType)), which the counters use.
std::string_view packet_kind_name(PacketKind kind) {
  switch (kind) {
    case PacketKind::ping:
      return "ping";
    case PacketKind::ack:
      return "ack";
    case PacketKind::ping_req:
      return "ping-req";
    case PacketKind::nack:
      return "nack";
    case PacketKind::suspect:
      return "suspect";
    case PacketKind::alive:
      return "alive";
    case PacketKind::dead:
      return "dead";
    case PacketKind::push_pull:
      return "push-pull";
    case PacketKind::user:
      return "user";
    case PacketKind::error:
      return "error";
    case PacketKind::unknown:
      return "unknown";
  }
  return "unknown";
}

namespace {

bool is_news(PacketKind kind) {
  return kind == PacketKind::suspect || kind == PacketKind::alive || kind == PacketKind::dead;
}

// Classifies one message and, for a request or a reply, records its sequence number and target.
PacketKind note(const Message& message, PacketSummary& summary) {
  return std::visit(
      [&](const auto& m) -> PacketKind {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, Ping>) {
          summary.seq_no = m.seq_no;
          summary.target = m.node;
          return PacketKind::ping;
        } else if constexpr (std::is_same_v<T, IndirectPing>) {
          summary.seq_no = m.seq_no;
          summary.target = m.node;
          return PacketKind::ping_req;
        } else if constexpr (std::is_same_v<T, Ack>) {
          summary.seq_no = m.seq_no;
          return PacketKind::ack;
        } else if constexpr (std::is_same_v<T, Nack>) {
          summary.seq_no = m.seq_no;
          return PacketKind::nack;
        } else if constexpr (std::is_same_v<T, Suspect>) {
          summary.rumours.push_back({PacketKind::suspect, m.node, m.incarnation});
          return PacketKind::suspect;
        } else if constexpr (std::is_same_v<T, Alive>) {
          summary.rumours.push_back({PacketKind::alive, m.node, m.incarnation});
          return PacketKind::alive;
        } else if constexpr (std::is_same_v<T, Dead>) {
          summary.rumours.push_back({PacketKind::dead, m.node, m.incarnation});
          return PacketKind::dead;
        } else if constexpr (std::is_same_v<T, User>) {
          return PacketKind::user;
        } else {
          return PacketKind::error;
        }
      },
      message);
}

}  // namespace

PacketSummary summarize_datagram(std::span<const std::uint8_t> packet) {
  PacketSummary summary;
  auto messages = decode_packet(packet);
  if (!messages) return summary;
  summary.messages = messages->size();
  bool led = false;
  for (const Message& m : *messages) {
    PacketSummary scratch;  // a second request in one packet must not overwrite the first's fields
    PacketSummary& into = led ? scratch : summary;
    const PacketKind kind = note(m, into);
    if (led) {
      for (auto& r : scratch.rumours) summary.rumours.push_back(std::move(r));
      continue;
    }
    if (summary.kind == PacketKind::unknown) summary.kind = kind;
    if (!is_news(kind)) {
      summary.kind = kind;
      led = true;
    }
  }
  return summary;
}

PacketSummary summarize_stream(std::span<const std::uint8_t> stream) {
  PacketSummary summary;
  if (stream.empty() || stream[0] != static_cast<std::uint8_t>(MessageType::push_pull))
    return summary;
  summary.kind = PacketKind::push_pull;
  summary.messages = 1;
  return summary;
}

}  // namespace vigil::wire
