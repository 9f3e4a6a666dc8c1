// libFuzzer target: one swim::Node fed a sequence of datagrams, full-state exchanges and time
// steps decoded from the fuzz input, as the native agent would feed it.
//
// Input layout (structure-aware; see tests/fuzz/engine_input.hpp, which the seed corpus
// generator shares):
//   [config byte][setup byte] then records until the input ends:
//   [op][dt: u16 little-endian, ms][payload depending on the op]
// A payload is raw bytes (anything, mostly rejected by the decoder) or a structured body from
// which the harness builds well-formed messages and exchanges about a few names, so that the
// fuzzer spends its time in the protocol rather than in the decoder.
// Invariants, checked after every step (a violation traps):
//  - no crash, no undefined behaviour, no hang (libFuzzer's -timeout);
//  - the node's own incarnation never decreases;
//  - every member is the node itself or a name the input announced (in an Alive message, a
//    push-pull node state or add_member), so the member count is bounded by the distinct names
//    seen + 1;
//  - the node is alive in its own view unless it left, and left if it did;
//  - after the host's tick at `now`, no timer is due: the next deadline is after `now` (and there
//    always is one once started);
//  - whatever the node sends is well-formed: datagrams carry its label and decode, full-state
//    exchanges and replies decode as push-pull.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include <vigil/swim/node.hpp>
#include <vigil/wire/codec.hpp>
#include "engine_input.hpp"

namespace {

using namespace vigil;
using namespace vigil::fuzz;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

// What may travel on a stream: a full-state exchange, or memberlist's TCP fallback ping and the
// ack that answers it.
// A stream message may be compressed (the engine compresses full states by default); it must
// then expand to one of the above.
template <typename Single>
bool is_stream_message(std::span<const std::uint8_t> sent) {
  wire::Bytes storage;
  const auto bytes = wire::expand_compressed(sent, storage);
  if (!bytes) return false;
  if (wire::decode_push_pull_view(*bytes).ok()) return true;
  auto single = wire::decode_message(*bytes);
  return single.ok() && std::holds_alternative<Single>(*single);
}

struct Harness {
  swim::Node node;
  std::string label;
  Millis now{0};
  std::set<std::string, std::less<>> seen;  // names the input may have introduced
  swim::Incarnation last_incarnation;
  bool left = false;
  std::deque<std::uint64_t> pending_streams;
  struct Sent {
    swim::Address to;
    std::uint32_t seq = 0;
  };
  std::optional<Sent> last_ping;
  std::optional<Sent> last_indirect;

  void note_names(std::span<const std::uint8_t> datagram) {
    const auto labelled = wire::strip_label(datagram);
    if (!labelled) return;
    const auto messages = wire::decode_packet(labelled->rest);
    if (!messages) return;
    for (const auto& m : *messages)
      if (const auto* alive = std::get_if<wire::Alive>(&m)) seen.insert(alive->node);
  }

  void note_stream_names(std::span<const std::uint8_t> sent) {
    wire::Bytes storage;
    const auto bytes = wire::expand_compressed(sent, storage);
    if (!bytes) return;
    const auto view = wire::decode_push_pull_view(*bytes);
    if (!view) return;
    for (const auto& n : view->nodes) seen.insert(std::string(n.name));
  }

  // Everything the node wants sent must be well-formed; remember probes so that the input can
  // answer them without guessing sequence numbers.
  void drain() {
    auto& box = node.outbox();
    for (const auto& d : box.datagrams) {
      const auto labelled = wire::strip_label(d.bytes);
      check(labelled.ok());
      check(labelled->label == label);
      const auto messages = wire::decode_packet(labelled->rest);
      check(messages.ok());
      for (const auto& m : *messages) {
        if (const auto* ping = std::get_if<wire::Ping>(&m))
          last_ping = Sent{d.to, ping->seq_no};
        else if (const auto* req = std::get_if<wire::IndirectPing>(&m))
          last_indirect = Sent{d.to, req->seq_no};
      }
    }
    for (const auto& s : box.streams) {
      check(is_stream_message<wire::Ping>(s.bytes));
      pending_streams.push_back(s.id);
      if (pending_streams.size() > 64) pending_streams.pop_front();
    }
    for (const auto& e : box.events) check(!e.member.empty());
    box.clear();
  }

  void check_invariants() {
    drain();
    const swim::Incarnation incarnation = node.incarnation();
    check(incarnation >= last_incarnation);
    last_incarnation = incarnation;
    const swim::Member* self = node.member(node.name());
    check(self != nullptr);
    check(self->incarnation == incarnation);
    check(node.has_left() == left);
    if (left)
      check(self->state == swim::MemberState::left);
    else
      check(self->state == swim::MemberState::alive);
    check(node.member_count() <= seen.size() + 1);
    for (const swim::Member* m : node.members())
      check(m->name == node.name() || seen.count(m->name) == 1);
    check(node.next_deadline() != Millis::max());
  }

  // The host's timer: every due deadline is handled, after which none is due.
  void tick() {
    node.handle_tick(now);
    check(node.next_deadline() > now);
    check_invariants();
  }

  // Time passes by `dt`: a punctual host wakes at each deadline on the way; a stalled one (a
  // paused process, a busy loop) wakes once at the end.
  void advance(Millis dt, bool punctual) {
    const Millis target = now + dt;
    if (punctual) {
      while (node.next_deadline() <= target) {
        now = std::max(now, node.next_deadline());
        tick();
      }
    }
    now = target;
    if (node.next_deadline() <= now) tick();
  }

  wire::Bytes framed(const wire::Message& message) const {
    return *wire::add_label(label, wire::encode(message));
  }

  // High bit: the node's own incarnation or a little above (refutations, conflicts); next bit:
  // the top of the range or just below it (where refutations cannot outbid); otherwise a small
  // absolute one.
  std::uint32_t incarnation_of(const Entry& e) const {
    if (e.incarnation & 0x80) return node.incarnation() + (e.incarnation & 3);
    if (e.incarnation & 0x40) return swim::kMaxIncarnation - (e.incarnation & 3);
    return e.incarnation & 0x3f;
  }

  wire::Message message_of(const Entry& e) const {
    static const wire::Bytes vsn = {1, 5, 2, 2, 5, 5};
    const std::string name = pool_name(e.name);
    const std::string other = pool_name(e.other);
    const swim::Address where = pool_address(e.name, (e.other & 0x80) != 0);
    const auto ip = [](const swim::Address& a) {
      const auto b = a.ip_bytes();
      return wire::Bytes(b.begin(), b.end());
    };
    const swim::Address source = pool_address(e.other, false);
    const bool sourced = (e.other & 0x40) != 0;
    switch (e.kind % 8) {
      case 0:
        return wire::Alive{incarnation_of(e), name, ip(where), where.port, {}, vsn};
      case 1:
        return wire::Suspect{incarnation_of(e), name, other};
      case 2:
        return wire::Dead{incarnation_of(e), name, other};
      case 3:
        return wire::Ping{e.incarnation, name, sourced ? ip(source) : wire::Bytes{},
                          sourced ? source.port : std::uint16_t{0}, sourced ? other : ""};
      case 4:
        return wire::IndirectPing{e.incarnation,
                                  ip(where),
                                  where.port,
                                  name,
                                  (e.other & 1) != 0,
                                  sourced ? ip(source) : wire::Bytes{},
                                  sourced ? source.port : std::uint16_t{0},
                                  sourced ? other : ""};
      case 5:
        return wire::Ack{(last_ping && (e.other & 1)) ? last_ping->seq : e.incarnation, {}};
      case 6:
        return wire::Nack{(last_indirect && (e.other & 1)) ? last_indirect->seq : e.incarnation};
      default:
        return wire::User{{e.name, e.other, e.incarnation}};
    }
  }

  wire::Bytes datagram_of(const Structured& s) const {
    std::vector<wire::Bytes> parts;
    for (const Entry& e : s.entries) parts.push_back(wire::encode(message_of(e)));
    wire::Bytes packet = parts.size() == 1 ? parts.front() : *wire::make_compound(parts);
    if (s.flags & 0x20) packet = wire::make_compressed(packet);
    if (s.flags & 0x10) packet = wire::add_crc(packet);
    return *wire::add_label((s.flags & 0x40) ? "elsewhere" : label, packet);
  }

  // Entry kinds 0-3 are member states (alive, suspect, dead, left).
  wire::Bytes exchange_of(const Structured& s) const {
    static const wire::Bytes vsn = {1, 5, 2, 2, 5, 5};
    wire::PushPull p{(s.flags & 0x10) != 0, {}, {}};
    for (const Entry& e : s.entries) {
      const swim::Address where = pool_address(e.name, (e.other & 0x80) != 0);
      const auto b = where.ip_bytes();
      p.nodes.push_back(wire::PushNodeState{pool_name(e.name),
                                            wire::Bytes(b.begin(), b.end()),
                                            where.port,
                                            {},
                                            incarnation_of(e),
                                            static_cast<wire::NodeState>(e.kind % 4),
                                            vsn});
    }
    wire::Bytes out;
    wire::encode_push_pull(p, out);
    return out;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader in(data, size);
  const Setup setup = read_setup(in);
  auto created = swim::Node::create(setup.config, kSelfName, kSelfAddress, Rng(setup.seed));
  check(created.ok());
  Harness h{.node = std::move(*created), .label = setup.config.label};
  h.last_incarnation = h.node.incarnation();
  for (int i = 0; i < setup.static_members; ++i) {
    const std::string name = static_member_name(i);
    h.seen.insert(name);
    h.node.add_member(h.now, name, peer_address(static_cast<std::uint8_t>(i)));
  }
  h.node.start(h.now);
  if (setup.join) h.node.join(h.now, {peer_address(0)});
  h.check_invariants();

  while (!in.empty()) {
    Record r = read_record(in);
    h.advance(r.dt, r.punctual);
    // Structured bodies are built now, from the node's state after time has passed.
    wire::Bytes built;
    if (r.structured) {
      built = r.kind == Op::datagram ? h.datagram_of(r.body) : h.exchange_of(r.body);
      r.bytes = built;
    }
    switch (r.kind) {
      case Op::datagram:
        h.note_names(r.bytes);
        h.node.handle_datagram(h.now, peer_address(r.from), r.bytes);
        break;
      case Op::tick:
        break;
      case Op::stream: {
        h.note_stream_names(r.bytes);
        const auto reply = h.node.handle_stream(h.now, peer_address(r.from), r.bytes);
        if (reply) check(is_stream_message<wire::Ack>(*reply));
        break;
      }
      case Op::stream_reply:
        if (!h.pending_streams.empty()) {
          h.note_stream_names(r.bytes);
          h.node.handle_stream_reply(h.now, h.pending_streams.front(), r.bytes);
          h.pending_streams.pop_front();
        }
        break;
      case Op::stream_failure:
        if (!h.pending_streams.empty()) {
          h.node.handle_stream_failure(h.now, h.pending_streams.front());
          h.pending_streams.pop_front();
        }
        break;
      case Op::ack_ping:
        if (h.last_ping)
          h.node.handle_datagram(h.now, h.last_ping->to, h.framed(wire::Ack{h.last_ping->seq, {}}));
        break;
      case Op::nack_indirect:
        if (h.last_indirect)
          h.node.handle_datagram(h.now, h.last_indirect->to,
                                 h.framed(wire::Nack{h.last_indirect->seq}));
        break;
      case Op::ack_indirect:
        if (h.last_indirect)
          h.node.handle_datagram(h.now, h.last_indirect->to,
                                 h.framed(wire::Ack{h.last_indirect->seq, {}}));
        break;
      case Op::leave:
        h.node.leave(h.now);
        h.left = true;
        break;
    }
    h.check_invariants();
    if (h.node.next_deadline() <= h.now) h.tick();
  }
  return 0;
}
