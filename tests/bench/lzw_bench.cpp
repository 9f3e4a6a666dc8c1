// LZW compression as the agent uses it (memberlist's compress message): a full-state exchange of
// a 1,000-member cluster with Serf-like tags, a full gossip datagram of alive messages, and one
// of two rumours.
// For each: bytes per microsecond with the encoder the engine keeps (its dictionary reset by a
// generation stamp), with a fresh encoder per call (a new 128 KiB table cleared every time, as
// before), and for decompression; the same two cold, each call after a sweep through 64 MiB (a
// member on a machine that runs hundreds of them finds its tables out of the cache); and the
// compressed size. --rounds N repeats each input.
// Prints one JSON object.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <vigil/wire/codec.hpp>
#include <vigil/wire/lzw.hpp>

namespace {

using Clock = std::chrono::steady_clock;
using vigil::wire::Bytes;

// Serf's tags for a vigil agent: role, its live view, and the protocol versions.
Bytes tags_for(int i) {
  const std::string text = "\x83\xa4role\xa5vigil\xaavigil-view\xb5http://10.0.3." +
                           std::to_string(i % 250) +
                           ":8081\xa2vs\xa1"
                           "1";
  return Bytes(text.begin(), text.end());
}

Bytes full_state(int members) {
  vigil::wire::PushPull state;
  for (int i = 0; i < members; ++i) {
    vigil::wire::PushNodeState n;
    n.name = "node-" + std::to_string(i);
    n.addr = {10, 0, static_cast<std::uint8_t>(i / 250), static_cast<std::uint8_t>(i % 250)};
    n.port = 7946;
    n.meta = tags_for(i);
    n.incarnation = static_cast<std::uint32_t>(1 + i % 7);
    n.vsn = {1, 5, 2, 2, 5, 4};
    state.nodes.push_back(std::move(n));
  }
  Bytes out;
  vigil::wire::encode_push_pull(state, out);
  return out;
}

// What the gossip ticker sends when it has news: alive messages up to `budget` bytes (1,400 is
// the whole datagram).
Bytes gossip_datagram(std::size_t budget) {
  std::vector<Bytes> parts;
  std::size_t size = 0;
  for (int i = 0; size < budget - 100; ++i) {
    Bytes part =
        vigil::wire::encode(vigil::wire::Alive{static_cast<std::uint32_t>(2 + i),
                                               "node-" + std::to_string(100 + i),
                                               Bytes{10, 0, 0, static_cast<std::uint8_t>(i)},
                                               7946,
                                               tags_for(i),
                                               {1, 5, 2, 2, 5, 4}});
    size += part.size() + 2;
    parts.push_back(std::move(part));
  }
  return vigil::wire::make_compound(parts).value();
}

struct Rate {
  double reused = 0, fresh = 0, decompress = 0;
  double cold_compress = 0, cold_decompress = 0;
  std::size_t packed = 0;
};

template <typename F>
double microseconds(int rounds, F&& f) {
  const auto t0 = Clock::now();
  for (int r = 0; r < rounds; ++r) f();
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// Each call timed alone, after a sweep that evicts the encoder's table and the decoder's stack
// from the caches: what one of hundreds of members on a machine meets at every call.
void cold(const Bytes& input, Rate& rate) {
  constexpr int kCalls = 60;
  static std::vector<std::uint8_t> sweep(64u << 20);
  vigil::wire::LzwEncoder encoder;
  Bytes out;
  double compress_us = 0, decompress_us = 0;
  const auto evict = [] {
    for (std::size_t i = 0; i < sweep.size(); i += 64) ++sweep[i];
  };
  for (int c = 0; c < kCalls; ++c) {
    evict();
    compress_us += microseconds(1, [&] {
      out.clear();
      encoder.compress(input, out);
    });
    evict();
    decompress_us += microseconds(1, [&] {
      if (!vigil::wire::lzw_decompress(out, input.size())) std::exit(3);
    });
  }
  const double total = static_cast<double>(input.size()) * kCalls;
  rate.cold_compress = total / compress_us;
  rate.cold_decompress = total / decompress_us;
}

// The two encoders take turns in ten blocks each, so that the machine's drift in speed, which
// is large here, falls on both alike.
Rate measure(const Bytes& input, int rounds) {
  constexpr int kBlocks = 10;
  const int per_block = rounds / kBlocks + 1;
  vigil::wire::LzwEncoder encoder;
  Bytes out;
  double reused_us = 0, fresh_us = 0, decompress_us = 0;
  for (int b = 0; b < kBlocks; ++b) {
    reused_us += microseconds(per_block, [&] {
      out.clear();
      encoder.compress(input, out);
    });
    fresh_us += microseconds(per_block, [&] {
      vigil::wire::LzwEncoder once;
      Bytes mine;
      once.compress(input, mine);
    });
    decompress_us += microseconds(per_block, [&] {
      if (!vigil::wire::lzw_decompress(out, input.size())) std::exit(3);
    });
  }
  const double total = static_cast<double>(input.size()) * per_block * kBlocks;
  Rate rate{total / reused_us, total / fresh_us, total / decompress_us, 0, 0, out.size()};
  cold(input, rate);
  return rate;
}

void print(const char* name, const Bytes& input, const Rate& r, bool last) {
  std::printf(
      "  \"%s\": {\"bytes\": %zu, \"compressed\": %zu, \"ratio\": %.3f, "
      "\"compress_bytes_per_us\": %.1f, \"fresh_encoder_bytes_per_us\": %.1f, "
      "\"reuse_speedup\": %.2f, \"decompress_bytes_per_us\": %.1f, "
      "\"cold_compress_bytes_per_us\": %.1f, \"cold_decompress_bytes_per_us\": %.1f}%s\n",
      name, input.size(), r.packed, static_cast<double>(r.packed) / input.size(), r.reused, r.fresh,
      r.reused / r.fresh, r.decompress, r.cold_compress, r.cold_decompress, last ? "" : ",");
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 2000;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--rounds") rounds = std::atoi(argv[i + 1]);
  if (rounds < 1) {
    std::fprintf(stderr, "--rounds: expected a positive integer\n");
    return 2;
  }
  const Bytes state = full_state(1000);
  const Bytes gossip = gossip_datagram(1400);
  const Bytes small = gossip_datagram(250);
  const Rate state_rate = measure(state, rounds / 20 + 1);
  const Rate gossip_rate = measure(gossip, rounds * 10);
  const Rate small_rate = measure(small, rounds * 50);
  std::printf("{\n");
  print("full_state_1000", state, state_rate, false);
  print("gossip_datagram", gossip, gossip_rate, false);
  print("gossip_two_rumours", small, small_rate, true);
  std::printf("}\n");
}
