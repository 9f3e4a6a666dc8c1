// Writes the fuzzers' seed corpus: the wire codec's hand-derived golden vectors
// (tests/wire/golden_vectors.hpp) framed every way a datagram or a stream message can be, engine
// scenarios built from them, and the WebSocket commands of docs/websocket.md. The corpus is
// generated into the build directory at test time and never committed:
//   build-fuzz/bin/fuzz_make_corpus build-fuzz/fuzz-corpus
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <vigil/wire/codec.hpp>
#include <vigil/wire/lzw.hpp>
#include <vigil/wire/stream_frame.hpp>
#include "engine_input.hpp"
#include "fuzz_keys.hpp"
#include "golden_vectors.hpp"

namespace {

using namespace vigil;
using namespace vigil::wire;
using namespace vigil::wire::testing;
namespace fs = std::filesystem;

fs::path root;
int written = 0;

void write(const std::string& target, const std::string& name, const Bytes& bytes) {
  const fs::path dir = root / target;
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  ++written;
}

void write_text(const std::string& target, const std::string& name, const std::string& text) {
  write(target, name, Bytes(text.begin(), text.end()));
}

std::string file_name(std::string name) {
  for (char& c : name)
    if (c == ' ') c = '-';
  return name;
}

Bytes nest(Bytes inner, int levels) {
  for (int i = 0; i < levels; ++i) inner = *make_compound({inner});
  return inner;
}

Bytes labelled(const std::string& label, const Bytes& packet) {
  return *add_label(label, packet);
}

void datagram_corpus() {
  const std::string t = "fuzz_datagram";
  for (const auto& golden : goldens()) write(t, "golden-" + file_name(golden.name), golden.bytes);
  const Bytes compound = *make_compound({ping_bytes, nack_bytes});
  write(t, "compound-ping-nack", compound);
  write(t, "crc-ping", add_crc(ping_bytes));
  write(t, "crc-compound", add_crc(compound));
  write(t, "label-dc1-ping", labelled("dc1", ping_bytes));
  write(t, "label-prod-crc-compound", labelled("prod", add_crc(compound)));
  write(t, "compound-nested-4", nest(ping_bytes, max_compound_depth));
  std::vector<Bytes> all;
  for (const auto& golden : goldens()) all.push_back(golden.bytes);
  write(t, "compound-every-golden", *make_compound(all));
  write(t, "push-pull-golden", golden_push_pull_bytes());

  // memberlist's compress message around a message, a compound and inside the other framings.
  write(t, "compressed-ping", make_compressed(ping_bytes));
  write(t, "compressed-every-golden", make_compressed(*make_compound(all)));
  write(t, "label-crc-compressed", labelled("dc1", add_crc(make_compressed(compound))));
  write(t, "compound-of-compressed", *make_compound({make_compressed(ping_bytes), nack_bytes}));
  write(t, "lzw-golden-push-pull", lzw_compress(golden_push_pull_bytes()));

  // Encrypted datagrams under the fuzzer's keyring: both envelope versions, each key, labelled.
  const auto span_of = [](const std::string& s) {
    return std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  };
  const auto sealed = [&](const native::Keyring& ring, std::uint8_t version, const Bytes& packet,
                          const std::string& label) {
    return ring.seal_with_nonce(version, fuzz::kSeedNonce, packet, span_of(label)).value();
  };
  const native::Keyring ring = fuzz::keyring();
  const native::Keyring secondary = fuzz::secondary_keyring();
  write(t, "sealed-v1-ping", sealed(ring, 1, ping_bytes, ""));
  write(t, "sealed-v0-compound", sealed(ring, 0, compound, ""));
  write(t, "sealed-v1-secondary-crc", sealed(secondary, 1, add_crc(compound), ""));
  write(t, "label-fz-sealed-v1-compressed",
        labelled("fz", sealed(ring, 1, make_compressed(compound), "fz")));
  write(t, "label-fz-sealed-v0-every-golden",
        labelled("fz", sealed(ring, 0, *make_compound(all), "fz")));

  // Stream messages: plain, labelled, and sealed requests and replies.
  const Bytes push_pull = golden_push_pull_bytes();
  write(t, "stream-plain-push-pull", *frame_stream(push_pull, "", nullptr));
  write(t, "stream-fz-push-pull", *frame_stream(push_pull, "fz", nullptr));
  write(t, "stream-fz-sealed-push-pull", *frame_stream(push_pull, "fz", &ring));
  write(t, "stream-fz-sealed-reply-ping",
        *frame_stream(ping_bytes, "fz", &ring, StreamPart::reply));
}

const Bytes alive_n1 = encode(Alive{1, "n1", {10, 0, 0, 3}, 7946, {}, {1, 5, 2, 2, 5, 5}});

Bytes alive(const std::string& name, std::uint8_t last_octet, std::uint32_t incarnation) {
  return encode(Alive{incarnation, name, {10, 0, 0, last_octet}, 7946, {}, {1, 5, 2, 2, 5, 5}});
}

Bytes push_pull_with(const std::vector<std::string>& names, bool join) {
  PushPull p{join, {}, {}};
  std::uint8_t octet = 3;
  for (const auto& name : names)
    p.nodes.push_back(PushNodeState{
        name, {10, 0, 0, octet++}, 7946, {}, 1, NodeState::alive, {1, 5, 2, 2, 5, 5}});
  Bytes out;
  encode_push_pull(p, out);
  return out;
}

void engine_corpus() {
  using fuzz::Writer;
  const std::string t = "fuzz_engine";
  const std::string self = fuzz::kSelfName;
  // Config bytes: profile in bits 0-1 (2 = local), 0x04 label, 0x20 forget the dead at once,
  // 0x40 join.
  constexpr std::uint8_t local = 2;

  // Join through a seed whose reply is the golden push-pull exchange (which accuses "a", us).
  write(t, "join-golden-push-pull",
        Writer(local | 0x40, 0)
            .stream_reply(10, golden_push_pull_bytes())
            .tick(1000)
            .tick(5000)
            .bytes());
  // Gossip from the golden vectors: a newcomer, an accusation against us, a stranger's death.
  {
    Writer w(local, 1);
    for (const auto& golden : goldens()) w.datagram(20, 1, golden.bytes);
    w.datagram(10, 2, alive_n1).tick(600).ack_ping(10).tick(2000);
    write(t, "golden-gossip", w.bytes());
  }
  // Three static members probed, failing one after another: suspicion, death, reaping.
  write(t, "probe-failures",
        Writer(local | 0x20, 3)
            .tick(600)
            .nack_indirect(100)
            .tick(1000)
            .tick(1000)
            .ack_indirect(10)
            .tick(5000)
            .tick(30000)
            .bytes());
  write(
      t, "probe-acks",
      Writer(local, 3).tick(200).ack_ping(5).tick(1000).ack_ping(5).tick(1000).ack_ping(5).bytes());
  // A ping addressed to us from an unknown prober, who then answers our exchange.
  write(t, "ping-from-stranger",
        Writer(local, 0)
            .datagram(5, 3, encode(Ping{1, self, {10, 0, 0, 5}, 7946, "zz"}))
            .stream_reply(5, push_pull_with({"zz", "n1", "n2"}, false))
            .tick(1000)
            .bytes());
  // We relay an indirect ping (the golden one) and hear back.
  {
    Bytes relay = goldens()[3].bytes;
    write(t, "relay-indirect-ping",
          Writer(local, 2).datagram(5, 1, relay).ack_ping(5).tick(1000).bytes());
  }
  // Suspect, dead and left news about a member, in one compound; then it comes back.
  write(t, "compound-accusations",
        Writer(local | 0x20, 0)
            .datagram(5, 1, alive("n1", 3, 1))
            .datagram(5, 1,
                      *make_compound({encode(Suspect{1, "n1", "n2"}),
                                      encode(Suspect{1, "n1", "n3"}), encode(Dead{1, "n1", "n2"})}))
            .tick(1000)
            .datagram(5, 1, alive("n1", 3, 2))
            .datagram(5, 1, encode(Dead{2, "n1", "n1"}))
            .tick(40000)
            .bytes());
  // Accusations against us: refuted each time, with a higher incarnation.
  write(t, "accused-self",
        Writer(local, 0)
            .datagram(5, 1, encode(Suspect{1, self, "n1"}))
            .datagram(5, 1, encode(Dead{2, self, "n1"}))
            .datagram(5, 1, alive(self, 9, 7))
            .tick(1000)
            .bytes());
  // A full-state exchange started by a peer, then we leave.
  write(t, "stream-then-leave",
        Writer(local, 1)
            .stream(5, 2, push_pull_with({"n1", "n2", "n3"}, true))
            .tick(1000)
            .leave(10)
            .tick(1000)
            .bytes());
  // A labelled cluster: only "fz" datagrams count.
  write(t, "label-fz",
        Writer(local | 0x04, 0)
            .datagram(5, 1, labelled("fz", alive("n1", 3, 1)))
            .datagram(5, 1, labelled("other", alive("n2", 4, 1)))
            .datagram(5, 1, alive("n3", 5, 1))
            .tick(1000)
            .bytes());
  // Gossip compressed as Serf and Consul send it, then wrapped in a CRC.
  write(t, "compressed-gossip",
        Writer(local, 2)
            .datagram(5, 1, make_compressed(*make_compound({alive("n1", 3, 1), alive("n2", 4, 1)})))
            .datagram(5, 2, add_crc(make_compressed(encode(Suspect{1, "n1", "n2"}))))
            .tick(2000)
            .bytes());
  // Structured bodies (entries: kind, name, other, incarnation; names 0 = us, 1-3 static
  // members, 4-7 strangers; incarnation 0x80 + k = ours + k).
  using E = fuzz::Entry;
  write(t, "structured-refutations",
        Writer(local, 1)
            .message(5, 1, 0, {E{1, 0, 1, 0x80}})
            .message(5, 1, 0, {E{2, 0, 2, 0x81}})
            .message(5, 2, 0x10, {E{0, 0, 0x80, 0x83}})
            .tick(1000)
            .bytes());
  write(t, "structured-newcomers-and-deaths",
        Writer(local | 0x20, 0)
            .message(5, 4, 0, {E{0, 4, 0, 1}, E{0, 5, 0, 1}, E{0, 6, 0, 1}, E{0, 7, 0, 1}})
            .message(5, 4, 0x30, {E{1, 4, 5, 1}, E{2, 5, 4, 1}, E{2, 6, 6, 1}})
            .tick(5000)
            .tick(30000)
            .bytes());
  write(t, "structured-address-conflict",
        Writer(local, 0)
            .message(5, 4, 0, {E{0, 4, 0, 1}})
            .message(5, 4, 0, {E{0, 4, 0x80, 2}, E{0, 0, 0x80, 0x80}})
            .tick(1000)
            .bytes());
  write(t, "structured-probes",
        Writer(local, 3)
            .tick(300)
            .message(5, 1, 0, {E{3, 0, 0x41, 7}, E{4, 4, 1, 9}})
            .message(5, 1, 0, {E{5, 0, 1, 0}})
            .tick(600)
            .message(5, 2, 0, {E{6, 0, 1, 0}, E{7, 1, 2, 3}})
            .tick(3000)
            .bytes());
  write(t, "structured-exchanges",
        Writer(local | 0x40, 2)
            .exchange_reply(10, 0, {E{0, 1, 0, 1}, E{0, 4, 0, 1}, E{1, 5, 0, 2}})
            .exchange(10, 3, 0x10, {E{0, 6, 0, 1}, E{1, 0, 1, 0x80}, E{2, 5, 0, 3}, E{3, 4, 0, 2}})
            .tick(2000)
            .bytes());
  // The LAN profile with a host that stalls for a minute.
  write(t, "lan-stall", Writer(0, 3).tick(1000).stall(60000).tick(1000).bytes());
}

void ws_command_corpus() {
  const std::string t = "fuzz_ws_command";
  // The token of docs/websocket.md's example, which fuzz_ws_command uses as the agent's.
  const std::string token = "\"token\":\"0141687f88da9515276ac7f128543a10\"";
  write_text(t, "snapshot", R"({"type":"snapshot"})");
  write_text(t, "inject",
             R"({"type":"inject","loss":0.2,"delay_ms":50,"jitter_ms":10,"direction":"both",)" +
                 token + "}");
  write_text(t, "inject-receive",
             R"({"type":"inject","loss":1,"direction":"receive",)" + token + "}");
  write_text(t, "pause", R"({"type":"pause","ms":3000,)" + token + "}");
  write_text(t, "block", R"({"type":"block","peer":"node-2",)" + token + "}");
  write_text(t, "unblock", R"({"type":"unblock","peer":"node-2",)" + token + "}");
  write_text(t, "leave", R"({"type":"leave",)" + token + "}");
  write_text(t, "set-profile", R"({"type":"set-profile","profile":"wan",)" + token + "}");
  write_text(t, "unknown", R"({"type":"reboot",)" + token + "}");
  write_text(t, "unauthorized", R"({"type":"leave","token":"guess"})");
  write_text(t, "out-of-range", R"({"type":"pause","ms":1e9,)" + token + "}");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_corpus DIR   (writes DIR/<target>/<seed>)\n");
    return 2;
  }
  root = argv[1];
  datagram_corpus();
  engine_corpus();
  ws_command_corpus();
  std::printf("%d seed files written under %s\n", written, root.c_str());
  return 0;
}
