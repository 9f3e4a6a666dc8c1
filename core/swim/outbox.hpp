// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <vigil/base/time.hpp>
#include <vigil/swim/address.hpp>
#include <vigil/swim/member.hpp>
#include <vigil/wire/messages.hpp>

namespace vigil::swim {

// What a membership change means to whoever watches this node.
enum class EventKind : std::uint8_t {
  join,      // a member we did not know, or knew as dead/left, is alive
  alive,     // a suspect member is alive again (it refuted)
  suspect,   // we now suspect a member
  dead,      // we consider a member failed
  left,      // a member left gracefully
  refuted,   // someone accused this node; it raised its own incarnation
  updated,   // a member's metadata changed
  removed,   // a dead or left member was forgotten after gossip-to-the-dead time
  conflict,  // another node claims a member's name from another address (memberlist's conflict)
};

std::string_view to_string(EventKind kind);

struct Event {
  Millis at{0};
  EventKind kind = EventKind::join;
  std::string member;
  Incarnation incarnation = 0;
  std::string by;  // who accused (suspect, dead), when known
  // A conflict: where this node holds the member, and where the other claim comes from with
  // the state it claims (alive from an alive message; a full state may say suspect or dead).
  Address address{};
  Address claimed{};
  MemberState claimed_state = MemberState::alive;
};

struct Datagram {
  Address to;
  wire::Bytes bytes;
};

// A full-state exchange the host must carry (TCP in memberlist, in-process in the simulation):
// deliver `bytes` to `to` with Node::handle_stream, then hand the reply back with
// Node::handle_stream_reply(id, ...) or report Node::handle_stream_failure(id).
struct StreamRequest {
  std::uint64_t id = 0;
  Address to;
  wire::Bytes bytes;
  bool join = false;
};

// How one probe ended: the native agent feeds acks into a per-peer phi detector.
struct ProbeResult {
  std::string member;
  Millis at{0};
  bool acked = false;
  Millis rtt{0};       // when acked: from the ping to the ack
  bool direct = true;  // acked before the indirect phase began
};

// A user message (memberlist type 8: Serf's events and queries travel this way), handed up as
// opaque bytes; membership never looks inside.
struct UserMessage {
  Millis at{0};
  Address from;
  wire::Bytes payload;
};

// How a join (Node::join) ended, once every seed it asked has answered or failed. A seed that
// answered with its state made this node a member: the cluster now learns of it by gossip.
struct JoinResult {
  struct Failure {
    Address seed;
    std::string reason;
  };
  Millis at{0};
  std::vector<Address> contacted;  // seeds that answered with their state
  std::vector<Failure> failures;
  bool ok() const { return !contacted.empty(); }
};

// A condition the host should tell its operator about once; counters carry its repetitions.
struct Notice {
  enum class Kind : std::uint8_t {
    // The member table reached Config::max_members: new names are refused from now on (each
    // counted in Counters::members_refused). Sent once in a node's life.
    member_table_full,
  };
  Millis at{0};
  Kind kind = Kind::member_table_full;
  std::string member;     // the first name refused
  std::size_t limit = 0;  // the cap it met
};

// Everything a node wants done after it handled an input. The host drains it (and clears it
// with clear()).
struct Outbox {
  std::vector<Datagram> datagrams;
  std::vector<StreamRequest> streams;
  std::vector<Event> events;
  std::vector<ProbeResult> probe_results;
  // At most kMaxUserMessages, and kMaxUserMessageBytes of payload together, wait here; more are
  // counted and dropped, so a host that ignores them (the simulation) cannot be made to grow
  // without bound, by many messages or by large ones. A host that drains the outbox after every
  // input never meets either: one datagram expands to at most wire::max_datagram_expansion.
  static constexpr std::size_t kMaxUserMessages = 256;
  static constexpr std::size_t kMaxUserMessageBytes = std::size_t{1} << 20;
  std::vector<UserMessage> user_messages;
  std::size_t user_message_bytes = 0;  // their payloads' bytes
  std::vector<JoinResult> join_results;
  std::vector<Notice> notices;

  bool empty() const {
    return datagrams.empty() && streams.empty() && events.empty() && probe_results.empty() &&
           user_messages.empty() && join_results.empty() && notices.empty();
  }
  void clear() {
    datagrams.clear();
    streams.clear();
    events.clear();
    probe_results.clear();
    user_messages.clear();
    user_message_bytes = 0;
    join_results.clear();
    notices.clear();
  }
};

}  // namespace vigil::swim
