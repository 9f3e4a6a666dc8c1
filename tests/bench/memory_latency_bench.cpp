// Latency of one dependent memory read at several working-set sizes: a pointer chase through a
// random cycle of cache lines, so every read waits for the one before and no prefetcher can
// guess the next. This is the floor under any simulation whose state outgrows the cache (the
// SWIM benchmark in docs/benchmarks.md compares its cost per datagram with it). Then several
// independent chases at once: how many misses the core keeps in flight, i.e. what overlapping loads
// could buy.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

namespace {

struct alignas(64) Line {
  std::size_t next;
};

// Average cost of a read when `chases` independent chases step in turn through the same cycle.
double ns_per_read(std::size_t bytes, std::size_t reads, std::size_t chases = 1) {
  const std::size_t lines = bytes / sizeof(Line);
  std::vector<std::size_t> order(lines);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937_64(1));
  std::vector<Line> chain(lines);
  for (std::size_t i = 0; i < lines; ++i) chain[order[i]].next = order[(i + 1) % lines];
  std::vector<std::size_t> at(chases);
  for (std::size_t c = 0; c < chases; ++c) at[c] = order[c * (lines / chases)];
  const std::size_t steps = reads / chases;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < steps; ++i)
    for (std::size_t& cursor : at) cursor = chain[cursor].next;
  const auto t1 = std::chrono::steady_clock::now();
  // Using the result keeps the chase from being optimised away.
  if (std::find(at.begin(), at.end(), lines) != at.end()) std::printf("unreachable\n");
  return std::chrono::duration<double, std::nano>(t1 - t0).count() /
         static_cast<double>(steps * chases);
}

}  // namespace

int main() {
  constexpr std::size_t kReads = 20'000'000;
  std::printf("{");
  const std::size_t sizes_mb[] = {1, 8, 32, 256};
  for (std::size_t i = 0; i < std::size(sizes_mb); ++i)
    std::printf("%s\"%zu_MB_ns\": %.1f", i ? ", " : "", sizes_mb[i],
                ns_per_read(sizes_mb[i] << 20, kReads));
  std::printf(",\n \"256_MB_ns_with_chases_in_flight\": {");
  const std::size_t chases[] = {1, 2, 4, 8, 16};
  for (std::size_t i = 0; i < std::size(chases); ++i)
    std::printf("%s\"%zu\": %.1f", i ? ", " : "", chases[i],
                ns_per_read(std::size_t{256} << 20, kReads, chases[i]));
  std::printf("}}\n");
  return 0;
}
