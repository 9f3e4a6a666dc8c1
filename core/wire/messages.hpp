// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace vigil::wire {

using Bytes = std::vector<std::uint8_t>;

// memberlist's message type byte: the first byte of every UDP message and stream.
enum class MessageType : std::uint8_t {
  ping = 0,
  indirect_ping = 1,
  ack = 2,
  suspect = 3,
  alive = 4,
  dead = 5,
  push_pull = 6,
  compound = 7,
  user = 8,
  compress = 9,
  encrypt = 10,
  nack = 11,
  has_crc = 12,
  err = 13,
  has_label = 244,
};

// Types 0..13 are numbered densely and counted per type; has_label (244) only prefixes a packet.
inline constexpr std::size_t kNumberedMessageTypes = static_cast<std::size_t>(MessageType::err) + 1;

// The enumerator's name ("ping", "indirect_ping", "push_pull", ...), or "unknown" for a byte
// memberlist does not define: the one spelling the codec's errors, the agent's counters and its
// metrics' type labels share.
constexpr std::string_view to_string(MessageType type) {
  switch (type) {
    case MessageType::ping:
      return "ping";
    case MessageType::indirect_ping:
      return "indirect_ping";
    case MessageType::ack:
      return "ack";
    case MessageType::suspect:
      return "suspect";
    case MessageType::alive:
      return "alive";
    case MessageType::dead:
      return "dead";
    case MessageType::push_pull:
      return "push_pull";
    case MessageType::compound:
      return "compound";
    case MessageType::user:
      return "user";
    case MessageType::compress:
      return "compress";
    case MessageType::encrypt:
      return "encrypt";
    case MessageType::nack:
      return "nack";
    case MessageType::has_crc:
      return "has_crc";
    case MessageType::err:
      return "err";
    case MessageType::has_label:
      return "has_label";
  }
  return "unknown";
}

// Node states as memberlist numbers them in push-pull node states.
enum class NodeState : std::uint8_t { alive = 0, suspect = 1, dead = 2, left = 3 };

// Each struct mirrors a memberlist message; the msgpack map keys are the Go field names given in
// the comments, in this order. Byte fields (addresses, metadata, versions) travel as msgpack raw
// strings, as Go's codec writes []byte; an empty one is written as nil.

// Direct probe. Keys: SeqNo, Node, SourceAddr, SourcePort, SourceNode (the last three omitted
// when empty, as Go's omitempty does).
struct Ping {
  std::uint32_t seq_no = 0;
  std::string node;  // the intended recipient, so a restarted agent with a new name ignores it
  Bytes source_addr;
  std::uint16_t source_port = 0;
  std::string source_node;
  bool operator==(const Ping&) const = default;
};

// Ask a helper to probe `node` at target:port. Keys: SeqNo, Target, Port, Node, Nack,
// SourceAddr, SourcePort, SourceNode (the last three omitted when empty).
struct IndirectPing {
  std::uint32_t seq_no = 0;
  Bytes target;  // IPv4 (4 bytes) or IPv6 (16 bytes) address
  std::uint16_t port = 0;
  std::string node;
  bool nack = false;  // the requester wants a nack if the helper hears nothing
  Bytes source_addr;
  std::uint16_t source_port = 0;
  std::string source_node;
  bool operator==(const IndirectPing&) const = default;
};

// Keys: SeqNo, Payload.
struct Ack {
  std::uint32_t seq_no = 0;
  Bytes payload;
  bool operator==(const Ack&) const = default;
};

// Keys: SeqNo.
struct Nack {
  std::uint32_t seq_no = 0;
  bool operator==(const Nack&) const = default;
};

// Keys: Error.
struct ErrorResponse {
  std::string error;
  bool operator==(const ErrorResponse&) const = default;
};

// Keys: Incarnation, Node, From.
struct Suspect {
  std::uint32_t incarnation = 0;
  std::string node;
  std::string from;
  bool operator==(const Suspect&) const = default;
};

// Keys: Incarnation, Node, Addr, Port, Meta, Vsn.
struct Alive {
  std::uint32_t incarnation = 0;
  std::string node;
  Bytes addr;
  std::uint16_t port = 0;
  Bytes meta;
  Bytes vsn;  // pmin, pmax, pcur, dmin, dmax, dcur
  bool operator==(const Alive&) const = default;
};

// Keys: Incarnation, Node, From. From == Node means the node left gracefully.
struct Dead {
  std::uint32_t incarnation = 0;
  std::string node;
  std::string from;
  bool operator==(const Dead&) const = default;
};

// Type 8 on UDP: opaque application bytes after the type byte (no msgpack).
struct User {
  Bytes payload;
  bool operator==(const User&) const = default;
};

using Message =
    std::variant<Ping, IndirectPing, Ack, Nack, ErrorResponse, Suspect, Alive, Dead, User>;

MessageType type_of(const Message& message);

// One member in a push-pull exchange. Keys: Name, Addr, Port, Meta, Incarnation, State, Vsn.
struct PushNodeState {
  std::string name;
  Bytes addr;
  std::uint16_t port = 0;
  Bytes meta;
  std::uint32_t incarnation = 0;
  NodeState state = NodeState::alive;
  Bytes vsn;
  bool operator==(const PushNodeState&) const = default;
};

// A full-state exchange (over TCP in memberlist): [6][header {Nodes, UserStateLen, Join}]
// [Nodes node-state maps][UserStateLen bytes of user state].
struct PushPull {
  bool join = false;
  std::vector<PushNodeState> nodes;
  Bytes user_state;
  bool operator==(const PushPull&) const = default;
};

}  // namespace vigil::wire
