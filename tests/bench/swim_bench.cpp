// Throughput of the SWIM engine over the simulated network: N nodes, P probe periods, LAN
// profile, independent loss. Reports simulated datagrams per wall-clock second and ns per
// datagram (every datagram is encoded, carried and decoded by the real engine).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <vigil/sim/swim_cluster.hpp>

int main(int argc, char** argv) {
  std::size_t nodes = 1000;
  int periods = 1000;
  double loss = 0.01;
  bool push_pull = true;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--nodes")
      nodes = std::strtoul(argv[i + 1], nullptr, 10);
    else if (flag == "--periods")
      periods = std::atoi(argv[i + 1]);
    else if (flag == "--loss")
      loss = std::atof(argv[i + 1]);
    else if (flag == "--push-pull")
      push_pull = std::string(argv[i + 1]) != "off";
    else {
      std::fprintf(
          stderr,
          "usage: vigil_bench_swim [--nodes N] [--periods P] [--loss P] [--push-pull on|off]\n");
      return 2;
    }
  }
  vigil::sim::ClusterOptions o;
  o.nodes = nodes;
  o.link.loss = loss;
  o.event_log_capacity = 0;
  o.seed = 1;
  // Off isolates the datagram path: anti-entropy exchanges copy whole member tables.
  if (!push_pull) o.config.push_pull_interval = vigil::Millis{0};
  const auto t0 = std::chrono::steady_clock::now();
  auto cluster = vigil::sim::SwimCluster::create(o);
  if (!cluster) {
    std::fprintf(stderr, "%s\n", cluster.error().message.c_str());
    return 2;
  }
  const auto t1 = std::chrono::steady_clock::now();
  cluster->run_for(o.config.probe_interval * periods);
  const auto t2 = std::chrono::steady_clock::now();
  const auto totals = cluster->totals();
  const double run_s = std::chrono::duration<double>(t2 - t1).count();
  const double setup_s = std::chrono::duration<double>(t1 - t0).count();
  const double msgs = static_cast<double>(totals.datagrams_sent);
  std::printf(
      "{\"nodes\": %zu, \"periods\": %d, \"loss\": %.3f, \"push_pull\": %s, \"datagrams\": %.0f,\n"
      " \"bytes\": %llu, \"streams\": %llu, \"stream_bytes\": %llu,\n"
      " \"setup_s\": %.3f, \"run_s\": %.3f, \"msgs_per_s\": %.0f, \"ns_per_msg\": %.1f,\n"
      " \"suspicions\": %llu, \"refutations\": %llu, \"exchanges_unchanged\": %llu}\n",
      nodes, periods, loss, push_pull ? "true" : "false", msgs,
      static_cast<unsigned long long>(totals.bytes_sent),
      static_cast<unsigned long long>(totals.streams_sent),
      static_cast<unsigned long long>(totals.stream_bytes_sent), setup_s, run_s, msgs / run_s,
      run_s * 1e9 / msgs, static_cast<unsigned long long>(totals.suspicions),
      static_cast<unsigned long long>(totals.refutations),
      static_cast<unsigned long long>(totals.exchanges_unchanged));
  return 0;
}
