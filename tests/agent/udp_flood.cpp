// A UDP blaster for the flood test: sends garbage datagrams at an agent at a fixed rate (Node's
// dgram cannot keep up with 100,000 a second) and reports what it really sent as JSON.
//
//   vigil_udp_flood --target 127.0.0.1:7946 [--rate 100000] [--seconds 10] [--seed 1]
//
// Every datagram is one the agent must reject: random bytes, valid memberlist messages cut
// short, a CRC wrapper with the wrong checksum, a compound message whose parts run past the
// end, a foreign cluster label, a known type byte before a body that is not a msgpack map. Each
// is checked against vigil's own decoder before use, so none of them can reach the engine.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <vigil/base/rng.hpp>
#include <vigil/wire/codec.hpp>

namespace {

using vigil::Rng;
using vigil::wire::Bytes;
namespace wire = vigil::wire;

enum Kind { kRandom, kTruncated, kBadCrc, kBadCompound, kForeignLabel, kBadBody, kKinds };
constexpr const char* kKindNames[kKinds] = {"random",       "truncated",     "bad_crc",
                                            "bad_compound", "foreign_label", "bad_body"};

std::string name(Rng& rng) {
  return "flood-" + std::to_string(rng.below(1000));
}

Bytes addr(Rng& rng) {
  return {127, 0, 0, static_cast<std::uint8_t>(1 + rng.below(254))};
}

// A valid encoding of one of the messages members exchange.
Bytes valid_message(Rng& rng) {
  const auto inc = rng.below(100);
  const auto port = static_cast<std::uint16_t>(1024 + rng.below(60000));
  switch (rng.below(7)) {
    case 0:
      return wire::encode(wire::Ping{rng.next_u32(), name(rng), addr(rng), port, name(rng)});
    case 1:
      return wire::encode(wire::IndirectPing{rng.next_u32(), addr(rng), port, name(rng), true,
                                             addr(rng), port, name(rng)});
    case 2:
      return wire::encode(wire::Ack{rng.next_u32(), {}});
    case 3:
      return wire::encode(wire::Nack{rng.next_u32()});
    case 4:
      return wire::encode(wire::Suspect{inc, name(rng), name(rng)});
    case 5:
      return wire::encode(wire::Alive{inc, name(rng), addr(rng), port, {}, {1, 5, 2, 0, 0, 0}});
    default:
      return wire::encode(wire::Dead{inc, name(rng), name(rng)});
  }
}

Bytes random_bytes(Rng& rng, std::size_t n) {
  Bytes b(n);
  for (auto& x : b) x = static_cast<std::uint8_t>(rng.below(256));
  return b;
}

Bytes make(Kind kind, Rng& rng) {
  switch (kind) {
    case kRandom:
      return random_bytes(rng, 1 + rng.below(512));
    case kTruncated: {
      Bytes m = valid_message(rng);
      m.resize(1 + rng.below(static_cast<std::uint32_t>(m.size() - 1)));
      return m;
    }
    case kBadCrc: {
      Bytes m = wire::add_crc(valid_message(rng));
      m[1 + rng.below(4)] ^= static_cast<std::uint8_t>(1 + rng.below(255));
      return m;
    }
    case kBadCompound: {
      Bytes m = wire::make_compound({valid_message(rng), valid_message(rng)}).value();
      m.resize(m.size() - 1 - rng.below(8));  // the last part runs past the end
      return m;
    }
    case kForeignLabel:
      return wire::add_label("someone-elses-cluster", valid_message(rng)).value();
    case kBadBody: {
      // A memberlist type byte, then msgpack that is not the map the type needs.
      Bytes m = {static_cast<std::uint8_t>(rng.below(6))};
      const Bytes body = random_bytes(rng, 1 + rng.below(64));
      m.push_back(static_cast<std::uint8_t>(0x90 | rng.below(16)));  // a fixarray
      m.insert(m.end(), body.begin(), body.end());
      return m;
    }
    default:
      return {};
  }
}

// True when the agent (no label, no encryption) would accept the datagram.
bool decodes(const Bytes& b) {
  auto labelled = wire::strip_label(b);
  if (!labelled || !labelled->label.empty()) return false;
  return wire::decode_packet(labelled->rest).ok();
}

int usage(const char* why) {
  std::fprintf(stderr,
               "vigil_udp_flood: %s\nusage: vigil_udp_flood --target HOST:PORT [--rate N] "
               "[--seconds S] [--seed N]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string target;
  double rate = 100000, seconds = 10;
  std::uint32_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--target")
      target = value;
    else if (key == "--rate")
      rate = std::atof(value.c_str());
    else if (key == "--seconds")
      seconds = std::atof(value.c_str());
    else if (key == "--seed")
      seed = static_cast<std::uint32_t>(std::strtoul(value.c_str(), nullptr, 10));
    else
      return usage(("unknown option " + key).c_str());
  }
  const auto colon = target.rfind(':');
  if (colon == std::string::npos) return usage("missing --target HOST:PORT");
  if (!(rate > 0) || !(seconds > 0)) return usage("--rate and --seconds must be > 0");
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(std::atoi(target.c_str() + colon + 1)));
  if (::inet_pton(AF_INET, target.substr(0, colon).c_str(), &to.sin_addr) != 1)
    return usage("--target must be an IPv4 address and port");

  // A pool of distinct datagrams, cycled through.
  Rng rng(seed);
  constexpr std::size_t kPool = 8192;
  std::vector<Bytes> pool;
  std::vector<int> kinds;
  std::array<std::uint64_t, kKinds> pool_kinds{};
  std::size_t skipped = 0;
  while (pool.size() < kPool) {
    const auto kind = static_cast<Kind>(pool.size() % kKinds);
    Bytes b = make(kind, rng);
    if (b.empty() || decodes(b)) {
      ++skipped;
      continue;
    }
    pool.push_back(std::move(b));
    kinds.push_back(kind);
    ++pool_kinds[kind];
  }

  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return usage(std::strerror(errno));
  const int sndbuf = 4 * 1024 * 1024;
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);

  constexpr std::size_t kBatch = 64;
  std::array<mmsghdr, kBatch> msgs{};
  std::array<iovec, kBatch> iov{};
  std::array<std::uint64_t, kKinds> sent_kinds{};
  const std::uint64_t total = static_cast<std::uint64_t>(rate * seconds);
  std::uint64_t sent = 0, errors = 0, next = 0;
  std::uint64_t max_behind = 0;  // the most datagrams we were ever behind schedule
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const std::uint64_t due =
        std::min<std::uint64_t>(total, static_cast<std::uint64_t>(rate * elapsed));
    if (due > sent) max_behind = std::max(max_behind, due - sent);
    while (sent < due) {
      const std::size_t n = std::min<std::uint64_t>(kBatch, due - sent);
      for (std::size_t i = 0; i < n; ++i) {
        Bytes& b = pool[(next + i) % kPool];
        iov[i] = {b.data(), b.size()};
        msgs[i].msg_hdr = {};
        msgs[i].msg_hdr.msg_name = &to;
        msgs[i].msg_hdr.msg_namelen = sizeof to;
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
      }
      const int r = ::sendmmsg(fd, msgs.data(), static_cast<unsigned>(n), 0);
      if (r <= 0) {
        ++errors;
        if (errors > 100000) break;
        continue;
      }
      for (int i = 0; i < r; ++i) ++sent_kinds[kinds[(next + i) % kPool]];
      next += static_cast<std::uint64_t>(r);
      sent += static_cast<std::uint64_t>(r);
    }
    if (sent >= total || now >= end + std::chrono::seconds(2)) break;
    std::this_thread::sleep_for(std::chrono::microseconds(250));
  }
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::close(fd);

  std::printf(
      "{\"sent\":%llu,\"seconds\":%.3f,\"rate\":%.0f,\"errors\":%llu,\"max_behind\":%llu,"
      "\"pool\":%zu,\"pool_rejected_candidates\":%zu,\"kinds\":{",
      static_cast<unsigned long long>(sent), took, static_cast<double>(sent) / took,
      static_cast<unsigned long long>(errors), static_cast<unsigned long long>(max_behind),
      pool.size(), skipped);
  for (int k = 0; k < kKinds; ++k)
    std::printf("%s\"%s\":%llu", k ? "," : "", kKindNames[k],
                static_cast<unsigned long long>(sent_kinds[k]));
  std::printf("}}\n");
  return sent >= total ? 0 : 1;
}
