#include <vigil/wire/codec.hpp>

#include <algorithm>
#include <concepts>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include <vigil/wire/crc32.hpp>
#include <vigil/wire/lzw.hpp>
#include <vigil/wire/msgpack.hpp>

namespace vigil::wire {

namespace {

using msgpack::Reader;
using msgpack::Writer;

std::string hex32(std::uint32_t value) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string text = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) text += digits[(value >> shift) & 0xf];
  return text;
}

std::uint32_t read_be32(std::span<const std::uint8_t> bytes) {
  return (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) |
         (std::uint32_t{bytes[2]} << 8) | std::uint32_t{bytes[3]};
}

void put_be32(std::uint32_t value, Bytes& out) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<std::uint8_t>(value >> shift));
}

// Map keys come from the network; quote them so an error message stays one readable line.
std::string printable(std::string_view key) {
  static constexpr std::size_t limit = 40;
  static constexpr char digits[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < key.size() && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(key[i]);
    if (c >= 0x20 && c < 0x7f) {
      text += static_cast<char>(c);
    } else {
      text += "\\x";
      text += digits[c >> 4];
      text += digits[c & 0xf];
    }
  }
  if (key.size() > limit) text += "...";
  return text;
}

Error prefixed(std::string_view where, const Error& error) {
  return Error{std::string(where) + ": " + error.message};
}

std::string describe_type(std::uint8_t type) {
  return "message type " + std::to_string(type) + " (" +
         std::string(to_string(static_cast<MessageType>(type))) + ")";
}

// ---- encoding ----

// The optional reply-to fields ping and indirect ping share (Go's omitempty).
struct Source {
  std::span<const std::uint8_t> addr;
  std::uint16_t port;
  std::string_view node;
  std::uint32_t count() const { return !addr.empty() + (port != 0) + !node.empty(); }
};

void write_source(Writer& w, const Source& s) {
  if (!s.addr.empty()) {
    w.write_string("SourceAddr");
    w.write_bytes(s.addr);
  }
  if (s.port != 0) {
    w.write_string("SourcePort");
    w.write_uint(s.port);
  }
  if (!s.node.empty()) {
    w.write_string("SourceNode");
    w.write_string(s.node);
  }
}

void encode_body(const Ping& m, Bytes& out) {
  Writer w(out);
  const Source source{m.source_addr, m.source_port, m.source_node};
  w.write_map_header(2 + source.count());
  w.write_string("SeqNo");
  w.write_uint(m.seq_no);
  w.write_string("Node");
  w.write_string(m.node);
  write_source(w, source);
}

void encode_body(const IndirectPing& m, Bytes& out) {
  Writer w(out);
  const Source source{m.source_addr, m.source_port, m.source_node};
  w.write_map_header(5 + source.count());
  w.write_string("SeqNo");
  w.write_uint(m.seq_no);
  w.write_string("Target");
  w.write_bytes(m.target);
  w.write_string("Port");
  w.write_uint(m.port);
  w.write_string("Node");
  w.write_string(m.node);
  w.write_string("Nack");
  w.write_bool(m.nack);
  write_source(w, source);
}

void encode_body(const Ack& m, Bytes& out) {
  Writer w(out);
  w.write_map_header(2);
  w.write_string("SeqNo");
  w.write_uint(m.seq_no);
  w.write_string("Payload");
  w.write_bytes(m.payload);
}

void encode_body(const Nack& m, Bytes& out) {
  Writer w(out);
  w.write_map_header(1);
  w.write_string("SeqNo");
  w.write_uint(m.seq_no);
}

void encode_body(const ErrorResponse& m, Bytes& out) {
  Writer w(out);
  w.write_map_header(1);
  w.write_string("Error");
  w.write_string(m.error);
}

// Suspect and Dead share their layout.
template <typename T>
void encode_accusation(const T& m, Bytes& out) {
  Writer w(out);
  w.write_map_header(3);
  w.write_string("Incarnation");
  w.write_uint(m.incarnation);
  w.write_string("Node");
  w.write_string(m.node);
  w.write_string("From");
  w.write_string(m.from);
}

void encode_body(const Suspect& m, Bytes& out) {
  encode_accusation(m, out);
}

void encode_body(const Dead& m, Bytes& out) {
  encode_accusation(m, out);
}

void encode_body(const Alive& m, Bytes& out) {
  Writer w(out);
  w.write_map_header(6);
  w.write_string("Incarnation");
  w.write_uint(m.incarnation);
  w.write_string("Node");
  w.write_string(m.node);
  w.write_string("Addr");
  w.write_bytes(m.addr);
  w.write_string("Port");
  w.write_uint(m.port);
  w.write_string("Meta");
  w.write_bytes(m.meta);
  w.write_string("Vsn");
  w.write_bytes(m.vsn);
}

void encode_body(const User& m, Bytes& out) {
  out.insert(out.end(), m.payload.begin(), m.payload.end());
}

void encode_node_state(const PushNodeStateView& node, Bytes& out) {
  Writer w(out);
  w.write_map_header(7);
  w.write_string("Name");
  w.write_string(node.name);
  w.write_string("Addr");
  w.write_bytes(node.addr);
  w.write_string("Port");
  w.write_uint(node.port);
  w.write_string("Meta");
  w.write_bytes(node.meta);
  w.write_string("Incarnation");
  w.write_uint(node.incarnation);
  w.write_string("State");
  w.write_uint(static_cast<std::uint8_t>(node.state));
  w.write_string("Vsn");
  w.write_bytes(node.vsn());
}

// ---- decoding ----

template <std::integral T>
Status read_field(Reader& r, T& field) {
  auto value = r.read_int<T>();
  if (!value) return value.error();
  field = *value;
  return ok_status();
}

Status read_field(Reader& r, bool& field) {
  auto value = r.read_bool();
  if (!value) return value.error();
  field = *value;
  return ok_status();
}

Status read_field(Reader& r, std::string& field) {
  auto value = r.read_string();
  if (!value) return value.error();
  field = std::move(*value);
  return ok_status();
}

Status read_field(Reader& r, Bytes& field) {
  auto value = r.read_bytes();
  if (!value) return value.error();
  field = std::move(*value);
  return ok_status();
}

// Go's codec writes []uint8 as a raw string, but other encoders (and codec with some handles)
// write it as an array of small integers; both mean the same version bytes.
Status read_version(Reader& r, Bytes& field) {
  auto kind = r.peek_kind();
  if (kind && *kind != msgpack::Kind::array) return read_field(r, field);
  auto count = r.read_array_header();
  if (!count) return count.error();
  Bytes version;
  version.reserve(*count);  // bounded by the remaining input: the header checked it
  for (std::uint32_t i = 0; i < *count; ++i) {
    auto element = r.read_int<std::uint8_t>();
    if (!element) return element.error();
    version.push_back(*element);
  }
  field = std::move(version);
  return ok_status();
}

Status read_state(Reader& r, NodeState& field) {
  const std::size_t at = r.position();
  auto value = r.read_int<std::uint64_t>();
  if (!value) return value.error();
  if (*value > static_cast<std::uint8_t>(NodeState::left)) {
    return Error{std::to_string(*value) + " at offset " + std::to_string(at) +
                 " is not a node state (0 alive, 1 suspect, 2 dead, 3 left)"};
  }
  field = static_cast<NodeState>(*value);
  return ok_status();
}

// Reads a msgpack map whose keys are Go field names. `on_key` reads the value of a key it knows
// and skips any other; keys may come in any order and missing ones leave their defaults, as Go's
// decoder does. Errors name the struct and the key.
template <typename OnKey>
Status read_struct(Reader& r, std::string_view name, OnKey on_key) {
  auto entries = r.read_map_header();
  if (!entries) return prefixed(name, entries.error());
  for (std::uint32_t i = 0; i < *entries; ++i) {
    auto raw_key = r.read_raw();
    if (!raw_key) {
      return prefixed(std::string(name) + " key " + std::to_string(i + 1), raw_key.error());
    }
    const std::string_view key(reinterpret_cast<const char*>(raw_key->data()), raw_key->size());
    auto read = on_key(key);
    if (!read) return prefixed(std::string(name) + "." + printable(key), read.error());
  }
  return ok_status();
}

std::string_view name_of(const Ping&) {
  return "Ping";
}
std::string_view name_of(const IndirectPing&) {
  return "IndirectPing";
}
std::string_view name_of(const Ack&) {
  return "Ack";
}
std::string_view name_of(const Nack&) {
  return "Nack";
}
std::string_view name_of(const ErrorResponse&) {
  return "ErrorResponse";
}
std::string_view name_of(const Suspect&) {
  return "Suspect";
}
std::string_view name_of(const Alive&) {
  return "Alive";
}
std::string_view name_of(const Dead&) {
  return "Dead";
}

Status decode_fields(Reader& r, Ping& m) {
  return read_struct(r, name_of(m), [&](std::string_view key) -> Status {
    if (key == "SeqNo") return read_field(r, m.seq_no);
    if (key == "Node") return read_field(r, m.node);
    if (key == "SourceAddr") return read_field(r, m.source_addr);
    if (key == "SourcePort") return read_field(r, m.source_port);
    if (key == "SourceNode") return read_field(r, m.source_node);
    return r.skip();
  });
}

Status decode_fields(Reader& r, IndirectPing& m) {
  return read_struct(r, name_of(m), [&](std::string_view key) -> Status {
    if (key == "SeqNo") return read_field(r, m.seq_no);
    if (key == "Target") return read_field(r, m.target);
    if (key == "Port") return read_field(r, m.port);
    if (key == "Node") return read_field(r, m.node);
    if (key == "Nack") return read_field(r, m.nack);
    if (key == "SourceAddr") return read_field(r, m.source_addr);
    if (key == "SourcePort") return read_field(r, m.source_port);
    if (key == "SourceNode") return read_field(r, m.source_node);
    return r.skip();
  });
}

Status decode_fields(Reader& r, Ack& m) {
  return read_struct(r, name_of(m), [&](std::string_view key) -> Status {
    if (key == "SeqNo") return read_field(r, m.seq_no);
    if (key == "Payload") return read_field(r, m.payload);
    return r.skip();
  });
}

Status decode_fields(Reader& r, Nack& m) {
  return read_struct(r, name_of(m), [&](std::string_view key) -> Status {
    if (key == "SeqNo") return read_field(r, m.seq_no);
    return r.skip();
  });
}

Status decode_fields(Reader& r, ErrorResponse& m) {
  return read_struct(r, name_of(m), [&](std::string_view key) -> Status {
    if (key == "Error") return read_field(r, m.error);
    return r.skip();
  });
}

template <typename T>
Status decode_accusation(Reader& r, T& m) {
  return read_struct(r, name_of(m), [&](std::string_view key) -> Status {
    if (key == "Incarnation") return read_field(r, m.incarnation);
    if (key == "Node") return read_field(r, m.node);
    if (key == "From") return read_field(r, m.from);
    return r.skip();
  });
}

Status decode_fields(Reader& r, Suspect& m) {
  return decode_accusation(r, m);
}

Status decode_fields(Reader& r, Dead& m) {
  return decode_accusation(r, m);
}

Status decode_fields(Reader& r, Alive& m) {
  return read_struct(r, name_of(m), [&](std::string_view key) -> Status {
    if (key == "Incarnation") return read_field(r, m.incarnation);
    if (key == "Node") return read_field(r, m.node);
    if (key == "Addr") return read_field(r, m.addr);
    if (key == "Port") return read_field(r, m.port);
    if (key == "Meta") return read_field(r, m.meta);
    if (key == "Vsn") return read_version(r, m.vsn);
    return r.skip();
  });
}

Status read_raw_view(Reader& r, std::span<const std::uint8_t>& field) {
  auto value = r.read_raw();
  if (!value) return value.error();
  field = *value;
  return ok_status();
}

Status read_name_view(Reader& r, std::string_view& field) {
  auto value = r.read_raw();
  if (!value) return value.error();
  field = std::string_view(reinterpret_cast<const char*>(value->data()), value->size());
  return ok_status();
}

Status read_version_view(Reader& r, PushNodeStateView& node) {
  auto kind = r.peek_kind();
  if (kind && *kind != msgpack::Kind::array) {
    std::span<const std::uint8_t> raw;
    if (auto s = read_raw_view(r, raw); !s) return s;
    node.set_vsn(raw);
    return ok_status();
  }
  Bytes version;
  if (auto s = read_version(r, version); !s) return s;
  if (!node.copy_vsn(version)) {
    return Error{std::to_string(version.size()) + " protocol versions as an array, at most " +
                 std::to_string(PushNodeStateView::kMaxInlineVersions) + " expected"};
  }
  return ok_status();
}

Status decode_node_state(Reader& r, PushNodeStateView& node) {
  return read_struct(r, "PushNodeState", [&](std::string_view key) -> Status {
    if (key == "Name") return read_name_view(r, node.name);
    if (key == "Addr") return read_raw_view(r, node.addr);
    if (key == "Port") return read_field(r, node.port);
    if (key == "Meta") return read_raw_view(r, node.meta);
    if (key == "Incarnation") return read_field(r, node.incarnation);
    if (key == "State") return read_state(r, node.state);
    if (key == "Vsn") return read_version_view(r, node);
    return r.skip();
  });
}

// A message is exactly one map: bytes after it mean the framing is wrong, so they are rejected
// rather than silently dropped (Go never sends any).
template <typename T>
Result<Message> decode_map_message(Reader& r) {
  T message;
  auto decoded = decode_fields(r, message);
  if (!decoded) return decoded.error();
  if (!r.at_end()) {
    return Error{std::string(name_of(message)) + ": " + std::to_string(r.remaining()) +
                 " unexpected bytes after the map at offset " + std::to_string(r.position())};
  }
  return Message{std::move(message)};
}

Status decode_command(std::span<const std::uint8_t> bytes, int depth, ExpansionBudget& budget,
                      std::vector<Message>& out) {
  if (bytes.empty()) return Error{"empty message"};
  const bool compound = bytes[0] == static_cast<std::uint8_t>(MessageType::compound);
  const bool compressed = bytes[0] == static_cast<std::uint8_t>(MessageType::compress);
  if (!compound && !compressed) {
    auto message = decode_message(bytes);
    if (!message) return message.error();
    out.push_back(std::move(*message));
    return ok_status();
  }
  if (depth >= max_compound_depth) {
    return Error{"compound and compressed messages nested more than " +
                 std::to_string(max_compound_depth) + " deep"};
  }
  if (compressed) {
    auto payload = open_compressed(bytes.subspan(1), budget);
    if (!payload) return prefixed("compressed message", payload.error());
    auto decoded = decode_command(*payload, depth + 1, budget, out);
    if (!decoded) return prefixed("inside a compressed message", decoded.error());
    return ok_status();
  }
  auto split = split_compound(bytes.subspan(1));
  if (!split) return split.error();
  const std::size_t total = split->parts.size() + split->truncated;
  if (split->truncated > 0) {
    return Error{"compound part " + std::to_string(split->parts.size() + 1) + " of " +
                 std::to_string(total) + " is truncated (" + std::to_string(split->truncated) +
                 " of " + std::to_string(total) + " parts cut off)"};
  }
  for (std::size_t i = 0; i < total; ++i) {
    auto decoded = decode_command(split->parts[i], depth + 1, budget, out);
    if (!decoded) {
      return prefixed("compound part " + std::to_string(i + 1) + " of " + std::to_string(total),
                      decoded.error());
    }
  }
  return ok_status();
}

MessageType type_for(const Ping&) {
  return MessageType::ping;
}
MessageType type_for(const IndirectPing&) {
  return MessageType::indirect_ping;
}
MessageType type_for(const Ack&) {
  return MessageType::ack;
}
MessageType type_for(const Nack&) {
  return MessageType::nack;
}
MessageType type_for(const ErrorResponse&) {
  return MessageType::err;
}
MessageType type_for(const Suspect&) {
  return MessageType::suspect;
}
MessageType type_for(const Alive&) {
  return MessageType::alive;
}
MessageType type_for(const Dead&) {
  return MessageType::dead;
}
MessageType type_for(const User&) {
  return MessageType::user;
}

}  // namespace

MessageType type_of(const Message& message) {
  return std::visit([](const auto& m) { return type_for(m); }, message);
}

void encode(const Message& message, Bytes& out) {
  // Room for a typical message (a ping with its names is about 70 bytes) in one allocation;
  // growing byte by byte from empty cost more than the encoding itself.
  constexpr std::size_t kTypical = 128;
  if (out.capacity() - out.size() < kTypical)
    out.reserve(std::max(out.size() + kTypical, 2 * out.capacity()));
  out.push_back(static_cast<std::uint8_t>(type_of(message)));
  std::visit([&](const auto& m) { encode_body(m, out); }, message);
}

Bytes encode(const Message& message) {
  Bytes out;
  encode(message, out);
  return out;
}

Result<Message> decode_message(std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return Error{"empty message"};
  const std::uint8_t type = bytes[0];
  Reader r(bytes, 1);
  switch (static_cast<MessageType>(type)) {
    case MessageType::ping:
      return decode_map_message<Ping>(r);
    case MessageType::indirect_ping:
      return decode_map_message<IndirectPing>(r);
    case MessageType::ack:
      return decode_map_message<Ack>(r);
    case MessageType::suspect:
      return decode_map_message<Suspect>(r);
    case MessageType::alive:
      return decode_map_message<Alive>(r);
    case MessageType::dead:
      return decode_map_message<Dead>(r);
    case MessageType::nack:
      return decode_map_message<Nack>(r);
    case MessageType::err:
      return decode_map_message<ErrorResponse>(r);
    case MessageType::user:
      return Message{User{Bytes(bytes.begin() + 1, bytes.end())}};
    case MessageType::push_pull:
      return Error{describe_type(type) + " travels on streams; use decode_push_pull"};
    case MessageType::compound:
    case MessageType::has_crc:
    case MessageType::compress:
      return Error{describe_type(type) + " is a packet framing, not a single message"};
    case MessageType::encrypt:
      return Error{describe_type(type) + " is not supported"};
    case MessageType::has_label:
      return Error{describe_type(type) + " must be stripped before decoding"};
  }
  return Error{"unknown " + describe_type(type)};
}

Result<Bytes> make_compound(const std::vector<Bytes>& parts) {
  if (parts.size() > 255) {
    return Error{"a compound message holds at most 255 parts, not " + std::to_string(parts.size())};
  }
  Bytes out;
  out.push_back(static_cast<std::uint8_t>(MessageType::compound));
  out.push_back(static_cast<std::uint8_t>(parts.size()));
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].size() > 0xffff) {
      return Error{"compound part " + std::to_string(i + 1) + " is " +
                   std::to_string(parts[i].size()) + " bytes; at most 65535 fit"};
    }
    out.push_back(static_cast<std::uint8_t>(parts[i].size() >> 8));
    out.push_back(static_cast<std::uint8_t>(parts[i].size()));
  }
  for (const Bytes& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

Result<CompoundParts> split_compound(std::span<const std::uint8_t> after_type_byte) {
  const auto body = after_type_byte;
  if (body.empty()) return Error{"compound message has no part count"};
  const std::size_t count = body[0];
  const std::size_t table_end = 1 + 2 * count;
  if (body.size() < table_end) {
    return Error{"compound message of " + std::to_string(count) + " parts is truncated in its " +
                 "length table (" + std::to_string(2 * count) + " bytes needed, " +
                 std::to_string(body.size() - 1) + " present)"};
  }
  CompoundParts result;
  std::size_t offset = table_end;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t length = (std::size_t{body[1 + 2 * i]} << 8) | body[2 + 2 * i];
    if (body.size() - offset < length) {
      result.truncated = count - i;
      break;
    }
    result.parts.push_back(body.subspan(offset, length));
    offset += length;
  }
  return result;
}

Bytes make_compressed(std::span<const std::uint8_t> payload) {
  Bytes out;
  out.push_back(static_cast<std::uint8_t>(MessageType::compress));
  Writer w(out);
  w.write_map_header(2);
  w.write_string("Algo");
  w.write_uint(0);
  w.write_string("Buf");
  w.write_bytes(lzw_compress(payload));
  return out;
}

bool is_compressed(std::span<const std::uint8_t> message) {
  return !message.empty() && message[0] == static_cast<std::uint8_t>(MessageType::compress);
}

Result<std::span<const std::uint8_t>> expand_compressed(std::span<const std::uint8_t> message,
                                                        Bytes& storage, ExpansionBudget& budget) {
  if (!is_compressed(message)) return message;
  auto plain = open_compressed(message.subspan(1), budget);
  if (!plain) return plain.error();
  storage = std::move(plain).value();
  return std::span<const std::uint8_t>(storage);
}

Result<std::span<const std::uint8_t>> expand_compressed(std::span<const std::uint8_t> message,
                                                        Bytes& storage) {
  ExpansionBudget budget{max_decompressed_size};
  return expand_compressed(message, storage, budget);
}

Result<Bytes> open_compressed(std::span<const std::uint8_t> after_type_byte) {
  ExpansionBudget budget{max_decompressed_size};
  return open_compressed(after_type_byte, budget);
}

Result<Bytes> open_compressed(std::span<const std::uint8_t> after_type_byte,
                              ExpansionBudget& budget) {
  Reader r(after_type_byte);
  auto entries = r.read_map_header();
  if (!entries) return entries.error();
  std::optional<std::uint64_t> algo;
  std::optional<std::span<const std::uint8_t>> buf;
  for (std::uint32_t i = 0; i < *entries; ++i) {
    auto key = r.read_string();
    if (!key) return key.error();
    if (*key == "Algo") {
      auto value = r.read_int<std::uint64_t>();
      if (!value) return prefixed("Algo", value.error());
      algo = *value;
    } else if (*key == "Buf") {
      auto value = r.read_raw();
      if (!value) return prefixed("Buf", value.error());
      buf = *value;
    } else if (auto skipped = r.skip(); !skipped) {
      return skipped.error();  // memberlist's decoder ignores fields it does not know
    }
  }
  if (!algo) return Error{"no Algo field"};
  if (*algo != 0) return Error{"unknown compression algorithm " + std::to_string(*algo)};
  if (!buf) return Error{"no Buf field"};
  bool over = false;
  auto plain = lzw_decompress(*buf, budget.left, &over);
  if (!plain) {
    if (!over) return plain.error();
    budget.exceeded = true;
    return Error{"expands past the " + std::to_string(budget.left) + " bytes left of its budget"};
  }
  budget.left -= plain->size();
  return plain;
}

Bytes add_crc(std::span<const std::uint8_t> message) {
  Bytes out;
  out.reserve(5 + message.size());
  out.push_back(static_cast<std::uint8_t>(MessageType::has_crc));
  put_be32(crc32_ieee(message), out);
  out.insert(out.end(), message.begin(), message.end());
  return out;
}

Result<Bytes> add_label(std::string_view label, std::span<const std::uint8_t> packet) {
  if (label.empty()) return Bytes(packet.begin(), packet.end());
  if (label.size() > 255) {
    return Error{"a label holds at most 255 bytes, not " + std::to_string(label.size())};
  }
  Bytes out;
  out.reserve(2 + label.size() + packet.size());
  out.push_back(static_cast<std::uint8_t>(MessageType::has_label));
  out.push_back(static_cast<std::uint8_t>(label.size()));
  out.insert(out.end(), label.begin(), label.end());
  out.insert(out.end(), packet.begin(), packet.end());
  return out;
}

Result<Labelled> strip_label(std::span<const std::uint8_t> packet) {
  if (packet.empty() || packet[0] != static_cast<std::uint8_t>(MessageType::has_label)) {
    return Labelled{"", packet};
  }
  if (packet.size() < 2) return Error{"label header truncated: no length byte"};
  const std::size_t length = packet[1];
  if (length == 0) return Error{"label header present but empty"};
  if (packet.size() - 2 < length) {
    return Error{"label header truncated: a label of " + std::to_string(length) + " bytes, " +
                 std::to_string(packet.size() - 2) + " present"};
  }
  const auto label = packet.subspan(2, length);
  return Labelled{std::string(label.begin(), label.end()), packet.subspan(2 + length)};
}

Result<std::vector<Message>> decode_packet(std::span<const std::uint8_t> packet) {
  ExpansionBudget budget{max_datagram_expansion};
  return decode_packet(packet, budget);
}

Result<std::vector<Message>> decode_packet(std::span<const std::uint8_t> packet,
                                           ExpansionBudget& budget) {
  if (packet.empty()) return Error{"empty packet"};
  auto body = packet;
  // As in memberlist, the checksum wraps the whole packet and is only valid outermost.
  if (packet[0] == static_cast<std::uint8_t>(MessageType::has_crc)) {
    if (packet.size() < 5) {
      return Error{"CRC wrapper truncated: 4 checksum bytes needed, " +
                   std::to_string(packet.size() - 1) + " present"};
    }
    const std::uint32_t claimed = read_be32(packet.subspan(1, 4));
    body = packet.subspan(5);
    const std::uint32_t actual = crc32_ieee(body);
    if (claimed != actual) {
      return Error{"CRC mismatch: the packet claims " + hex32(claimed) + " but its " +
                   std::to_string(body.size()) + " bytes sum to " + hex32(actual)};
    }
  }
  std::vector<Message> messages;
  auto decoded = decode_command(body, 0, budget, messages);
  if (!decoded) return decoded.error();
  return messages;
}

bool PushNodeStateView::copy_vsn(std::span<const std::uint8_t> versions) {
  if (versions.size() > kMaxInlineVersions) return false;
  std::copy(versions.begin(), versions.end(), vsn_copy_.begin());
  vsn_copy_length_ = static_cast<std::uint8_t>(versions.size());
  vsn_inline_ = true;
  return true;
}

void encode_push_pull(bool join, std::span<const PushNodeStateView> nodes,
                      std::span<const std::uint8_t> user_state, Bytes& out) {
  out.push_back(static_cast<std::uint8_t>(MessageType::push_pull));
  Writer w(out);
  w.write_map_header(3);
  w.write_string("Nodes");
  w.write_uint(nodes.size());
  w.write_string("UserStateLen");
  w.write_uint(user_state.size());
  w.write_string("Join");
  w.write_bool(join);
  for (const PushNodeStateView& node : nodes) encode_node_state(node, out);
  out.insert(out.end(), user_state.begin(), user_state.end());
}

void encode_push_pull(const PushPull& push_pull, Bytes& out) {
  std::vector<PushNodeStateView> views;
  views.reserve(push_pull.nodes.size());
  for (const PushNodeState& n : push_pull.nodes) {
    PushNodeStateView v;
    v.name = n.name;
    v.addr = n.addr;
    v.port = n.port;
    v.meta = n.meta;
    v.incarnation = n.incarnation;
    v.state = n.state;
    v.set_vsn(n.vsn);
    views.push_back(v);
  }
  encode_push_pull(push_pull.join, views, push_pull.user_state, out);
}

Result<PushPullView> decode_push_pull_view(std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return Error{"empty push-pull message"};
  if (bytes[0] != static_cast<std::uint8_t>(MessageType::push_pull)) {
    return Error{"expected " + describe_type(static_cast<std::uint8_t>(MessageType::push_pull)) +
                 ", found " + describe_type(bytes[0])};
  }
  Reader r(bytes, 1);
  // Go declares both counts as int; reading them as uint64 rejects negative ones.
  std::uint64_t node_count = 0;
  std::uint64_t user_state_len = 0;
  PushPullView result;
  auto header = read_struct(r, "PushPullHeader", [&](std::string_view key) -> Status {
    if (key == "Nodes") return read_field(r, node_count);
    if (key == "UserStateLen") return read_field(r, user_state_len);
    if (key == "Join") return read_field(r, result.join);
    return r.skip();
  });
  if (!header) return header.error();
  // Each node state is a map of at least one byte, so a larger count cannot be honest; checking
  // first keeps a forged count from driving the loop or an allocation.
  if (node_count > r.remaining()) {
    return Error{"PushPullHeader.Nodes: " + std::to_string(node_count) +
                 " node states cannot fit in the " + std::to_string(r.remaining()) +
                 " bytes that remain"};
  }
  // A node state takes at least ~40 bytes on the wire, so reserving count or remaining/40
  // (whichever is smaller) never amplifies a forged count.
  result.nodes.reserve(
      static_cast<std::size_t>(std::min<std::uint64_t>(node_count, r.remaining() / 40)));
  for (std::uint64_t i = 0; i < node_count; ++i) {
    PushNodeStateView node;
    auto decoded = decode_node_state(r, node);
    if (!decoded) {
      return prefixed("node " + std::to_string(i + 1) + " of " + std::to_string(node_count),
                      decoded.error());
    }
    result.nodes.push_back(node);
  }
  if (user_state_len > r.remaining()) {
    return Error{"PushPullHeader.UserStateLen: " + std::to_string(user_state_len) +
                 " bytes of user state claimed, " + std::to_string(r.remaining()) + " remain"};
  }
  result.user_state = r.rest().first(static_cast<std::size_t>(user_state_len));
  return result;
}

Result<PushPull> decode_push_pull(std::span<const std::uint8_t> bytes) {
  auto view = decode_push_pull_view(bytes);
  if (!view) return view.error();
  PushPull result;
  result.join = view->join;
  result.nodes.reserve(view->nodes.size());
  for (const PushNodeStateView& v : view->nodes) {
    const auto vsn = v.vsn();
    result.nodes.push_back(PushNodeState{std::string(v.name), Bytes(v.addr.begin(), v.addr.end()),
                                         v.port, Bytes(v.meta.begin(), v.meta.end()), v.incarnation,
                                         v.state, Bytes(vsn.begin(), vsn.end())});
  }
  result.user_state.assign(view->user_state.begin(), view->user_state.end());
  return result;
}

}  // namespace vigil::wire
