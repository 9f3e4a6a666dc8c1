// Speed of the epidemic simulation at a million members: push-pull with fanout 1 (the target is
// under a second a run natively), and the --table push grid scaled to n = 10^6 (fanout 1 and 3).
// One JSON object per line: rounds, contacts per member, and wall-clock milliseconds per run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <vigil/gossip/spread.hpp>
#include <vigil/gossip/theory.hpp>

namespace {

void bench(std::size_t nodes, int fanout, vigil::gossip::Mode mode, int runs, std::uint32_t seed) {
  vigil::gossip::SpreadOptions o;
  o.nodes = nodes;
  o.fanout = fanout;
  o.mode = mode;
  vigil::Rng rng(seed);
  double total_ms = 0.0, best_ms = 1e300, rounds = 0.0, messages = 0.0;
  int finished = 0;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = vigil::gossip::spread(o, rng);
    const auto t1 = std::chrono::steady_clock::now();
    if (!r) {
      std::fprintf(stderr, "%s\n", r.error().message.c_str());
      std::exit(2);
    }
    const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    total_ms += ms;
    best_ms = std::min(best_ms, ms);
    rounds += r->rounds;
    messages += static_cast<double>(r->messages);
    finished += r->finished ? 1 : 0;
  }
  const double dn = static_cast<double>(nodes);
  // Pittel's formula is for push only.
  std::string pittel = "null";
  if (mode == vigil::gossip::Mode::push) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", vigil::gossip::pittel_rounds(dn, fanout));
    pittel = buf;
  }
  std::printf(
      "{\"nodes\": %zu, \"fanout\": %d, \"mode\": \"%s\", \"runs\": %d, \"finished\": %d, "
      "\"rounds_mean\": %.2f, \"rounds_theory\": %.2f, \"pittel\": %s, "
      "\"messages_per_node\": %.2f, \"ms_per_run\": %.1f, \"best_ms\": %.1f}\n",
      nodes, fanout, vigil::gossip::mode_name(mode), runs, finished, rounds / runs,
      vigil::gossip::mean_field_rounds(o, 100000), pittel.c_str(), messages / runs / dn,
      total_ms / runs, best_ms);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t nodes = 1'000'000;
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--nodes") {
      nodes = std::strtoul(argv[i + 1], nullptr, 10);
    } else if (flag == "--runs") {
      runs = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: vigil_bench_gossip [--nodes N] [--runs R]\n");
      return 2;
    }
  }
  if (runs < 1) runs = 1;
  bench(nodes, 1, vigil::gossip::Mode::push_pull, runs, 1);
  // The `lab gossip --table` grid at n = 10^6: push, fanout 1 and 3, seed 44.
  bench(nodes, 1, vigil::gossip::Mode::push, runs, 44);
  bench(nodes, 3, vigil::gossip::Mode::push, runs, 44);
  bench(nodes, 1, vigil::gossip::Mode::pull, runs, 1);
  return 0;
}
