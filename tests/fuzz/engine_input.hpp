#pragma once

// The structure fuzz_engine reads from its input, and the writer the seed corpus generator uses
// to produce such inputs.
//
//   input  := config setup record*
//   config := one byte: bits 0-1 profile (lan, wan, local, teaching); 0x04 label "fz";
//             0x08 random probing; 0x10 smallest UDP budget (64 bytes); 0x20 dead members are
//             forgotten at once; 0x40 join through peer 0; 0x80 Lifeguard off
//   setup  := one byte: the PRNG seed; its low two bits also add that many static members
//   record := op dt:u16le payload
//   op     := bits 0-3 the kind (see kind_of); 0x20 makes a datagram's or stream's payload
//             structured; 0x40 turns kind 15 into a leave; 0x80 the host stalls (wakes once after
//             dt instead of at every deadline on the way)
//   payload:= datagram, stream: from:u8 body; stream reply: body; others: nothing
//   body   := raw: length:u16le bytes | structured: flags:u8 entry{(flags & 3) + 1}
//   entry  := kind:u8 name:u8 other:u8 incarnation:u8
// Lengths beyond the end of the input take what is left; missing bytes read as zero.
//
// Structured bodies are messages the engine understands, built by the harness from a handful of
// names (the node itself, its static members, strangers) and small incarnations near its own, so
// that most inputs get past the decoder and into the protocol: the raw bodies cover the rest.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include <vigil/base/time.hpp>
#include <vigil/swim/address.hpp>
#include <vigil/swim/config.hpp>
#include <vigil/wire/messages.hpp>

namespace vigil::fuzz {

inline const std::string kSelfName = "a";
inline const swim::Address kSelfAddress = swim::Address::from_octets(10, 0, 0, 1, 7946);

inline swim::Address peer_address(std::uint8_t from) {
  return swim::Address::from_octets(10, 0, 0, static_cast<std::uint8_t>(2 + (from & 7)), 7946);
}

inline std::string static_member_name(int i) {
  return "m" + std::to_string(i + 1);
}

// The names structured bodies talk about: 0 the node itself, 1-3 its static members (which exist
// only when the setup added them), 4-7 strangers.
inline constexpr int kPoolSize = 8;

inline std::string pool_name(std::uint8_t i) {
  i %= kPoolSize;
  if (i == 0) return kSelfName;
  if (i <= 3) return static_member_name(i - 1);
  return "n" + std::to_string(i - 3);
}

// Where a pool member lives; `moved` gives it another port (an address conflict, a restart).
inline swim::Address pool_address(std::uint8_t i, bool moved) {
  i %= kPoolSize;
  swim::Address a = i == 0 ? kSelfAddress : peer_address(static_cast<std::uint8_t>(i - 1));
  if (moved) a.port = static_cast<std::uint16_t>(a.port + 1);
  return a;
}

struct Entry {
  std::uint8_t kind = 0;
  std::uint8_t name = 0;
  std::uint8_t other = 0;
  std::uint8_t incarnation = 0;
};

// flags for datagrams: 0x10 CRC wrapper, 0x20 compressed, 0x40 a foreign label (dropped);
// for exchanges: 0x10 a join.
struct Structured {
  std::uint8_t flags = 0;
  std::vector<Entry> entries;
};

class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data, size) {}
  bool empty() const { return pos_ >= data_.size(); }
  std::uint8_t byte() { return empty() ? 0 : data_[pos_++]; }
  std::uint16_t u16() {
    const std::uint16_t lo = byte();
    return static_cast<std::uint16_t>(lo | (byte() << 8));
  }
  std::span<const std::uint8_t> take(std::size_t n) {
    const std::size_t k = std::min(n, data_.size() - std::min(pos_, data_.size()));
    const auto out = data_.subspan(std::min(pos_, data_.size()), k);
    pos_ += k;
    return out;
  }

 private:
  std::span<const std::uint8_t> data_;
  std::size_t pos_ = 0;
};

struct Setup {
  swim::Config config;
  std::uint32_t seed = 0;
  int static_members = 0;
  bool join = false;
};

inline Setup read_setup(Reader& in) {
  const std::uint8_t c = in.byte();
  const std::uint8_t s = in.byte();
  static const char* const profiles[] = {"lan", "wan", "local", "teaching"};
  Setup setup{swim::Config::profile(profiles[c & 3]).value(), s, s & 3, (c & 0x40) != 0};
  swim::Config& config = setup.config;
  if (c & 0x04) config.label = "fz";
  if (c & 0x08) config.random_probing = true;
  if (c & 0x10) config.udp_buffer_size = 64;
  if (c & 0x20) {
    config.gossip_to_the_dead_time = Millis{0};
    config.reconnect_timeout = Millis{0};
  }
  if (c & 0x80) config.lifeguard = swim::Lifeguard{false, false, false};
  if (s & 0x04) config.tcp_fallback_ping = true;  // the native agent's setting
  return setup;
}

enum class Op : std::uint8_t {
  datagram,
  tick,
  stream,
  stream_reply,
  stream_failure,
  ack_ping,       // an ack for the last ping the node sent, from its addressee
  nack_indirect,  // a nack for the last indirect ping the node sent, from the helper
  ack_indirect,   // an ack for the last indirect ping the node sent, from the helper
  leave
};

// Datagrams are the common case; leaving ends most of the interesting behaviour, so it is rare.
inline Op kind_of(std::uint8_t op) {
  switch (op & 0x0f) {
    case 6:
    case 14:
      return Op::tick;
    case 7:
      return Op::stream;
    case 8:
      return Op::stream_reply;
    case 9:
      return Op::stream_failure;
    case 10:
    case 11:
      return Op::ack_ping;
    case 12:
      return Op::nack_indirect;
    case 13:
      return Op::ack_indirect;
    case 15:
      return (op & 0x40) ? Op::leave : Op::tick;
    default:
      return Op::datagram;
  }
}

struct Record {
  Op kind = Op::tick;
  Millis dt{0};
  bool punctual = true;
  std::uint8_t from = 0;
  bool structured = false;
  std::span<const std::uint8_t> bytes;  // raw bodies
  Structured body;                      // structured ones
};

inline Structured read_structured(Reader& in) {
  Structured s;
  s.flags = in.byte();
  const int n = (s.flags & 3) + 1;
  for (int i = 0; i < n; ++i) {
    Entry e;
    e.kind = in.byte();
    e.name = in.byte();
    e.other = in.byte();
    e.incarnation = in.byte();
    s.entries.push_back(e);
  }
  return s;
}

inline Record read_record(Reader& in) {
  Record r;
  const std::uint8_t op = in.byte();
  r.kind = kind_of(op);
  r.punctual = (op & 0x80) == 0;
  r.dt = Millis{in.u16()};
  const bool carries_body =
      r.kind == Op::datagram || r.kind == Op::stream || r.kind == Op::stream_reply;
  if (!carries_body) return r;
  if (r.kind != Op::stream_reply) r.from = in.byte();
  r.structured = (op & 0x20) != 0;
  if (r.structured)
    r.body = read_structured(in);
  else
    r.bytes = in.take(in.u16());
  return r;
}

// Builds inputs in the same layout (for the seed corpus).
class Writer {
 public:
  Writer(std::uint8_t config, std::uint8_t setup) : out_{config, setup} {}

  Writer& datagram(std::uint16_t dt_ms, std::uint8_t from, const wire::Bytes& bytes) {
    op(0, dt_ms);
    out_.push_back(from);
    payload(bytes);
    return *this;
  }
  Writer& stream(std::uint16_t dt_ms, std::uint8_t from, const wire::Bytes& bytes) {
    op(7, dt_ms);
    out_.push_back(from);
    payload(bytes);
    return *this;
  }
  Writer& stream_reply(std::uint16_t dt_ms, const wire::Bytes& bytes) {
    op(8, dt_ms);
    payload(bytes);
    return *this;
  }
  // Structured bodies: `flags` as in Structured, at most four entries.
  Writer& message(std::uint16_t dt_ms, std::uint8_t from, std::uint8_t flags,
                  std::initializer_list<Entry> entries) {
    op(0x20 | 0, dt_ms);
    out_.push_back(from);
    return structured(flags, entries);
  }
  Writer& exchange(std::uint16_t dt_ms, std::uint8_t from, std::uint8_t flags,
                   std::initializer_list<Entry> entries) {
    op(0x20 | 7, dt_ms);
    out_.push_back(from);
    return structured(flags, entries);
  }
  Writer& exchange_reply(std::uint16_t dt_ms, std::uint8_t flags,
                         std::initializer_list<Entry> entries) {
    op(0x20 | 8, dt_ms);
    return structured(flags, entries);
  }
  Writer& tick(std::uint16_t dt_ms) { return op(6, dt_ms); }
  Writer& stall(std::uint16_t dt_ms) { return op(0x80 | 6, dt_ms); }
  Writer& ack_ping(std::uint16_t dt_ms) { return op(10, dt_ms); }
  Writer& nack_indirect(std::uint16_t dt_ms) { return op(12, dt_ms); }
  Writer& ack_indirect(std::uint16_t dt_ms) { return op(13, dt_ms); }
  Writer& leave(std::uint16_t dt_ms) { return op(0x40 | 15, dt_ms); }

  const wire::Bytes& bytes() const { return out_; }

 private:
  Writer& op(std::uint8_t code, std::uint16_t dt_ms) {
    out_.push_back(code);
    out_.push_back(static_cast<std::uint8_t>(dt_ms));
    out_.push_back(static_cast<std::uint8_t>(dt_ms >> 8));
    return *this;
  }
  Writer& structured(std::uint8_t flags, std::initializer_list<Entry> entries) {
    const std::size_t n = std::clamp<std::size_t>(entries.size(), 1, 4);
    out_.push_back(static_cast<std::uint8_t>((flags & ~3) | (n - 1)));
    std::size_t i = 0;
    for (const Entry& e : entries) {
      if (i++ == n) break;
      out_.insert(out_.end(), {e.kind, e.name, e.other, e.incarnation});
    }
    return *this;
  }
  void payload(const wire::Bytes& bytes) {
    const auto n = static_cast<std::uint16_t>(std::min<std::size_t>(bytes.size(), 0xffff));
    out_.push_back(static_cast<std::uint8_t>(n));
    out_.push_back(static_cast<std::uint8_t>(n >> 8));
    out_.insert(out_.end(), bytes.begin(), bytes.begin() + n);
  }

  wire::Bytes out_;
};

}  // namespace vigil::fuzz
