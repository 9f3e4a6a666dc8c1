// Replaying a recorded heartbeat trace: a million heartbeats (the lab's pause-jitter stream,
// exported to the trace format and read back) through every detector the replay has, against
// the lab's own path on the same stream (simulate it, then score its five detectors with
// detect::evaluate). The target is under a second for the replay natively. --heartbeats N.
// Prints one JSON object: heartbeats, milliseconds per stage, throughput, and the ratio.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <vigil/detect/qos.hpp>
#include <vigil/detect/trace.hpp>
#include <vigil/lab/detectors_experiment.hpp>
#include <vigil/lab/trace_replay.hpp>
#include <vigil/sim/heartbeat_stream.hpp>

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

template <typename T>
T or_die(vigil::Result<T> r) {
  if (!r) {
    std::fprintf(stderr, "%s\n", r.error().message.c_str());
    std::exit(2);
  }
  return std::move(r).value();
}

// The lab's stream, every 100 ms with 15% loss, long enough for `heartbeats` distinct arrivals.
std::vector<vigil::Millis> lab_stream(std::size_t heartbeats, std::uint32_t seed) {
  const int seconds = static_cast<int>(heartbeats / 8 + 100);
  auto config = or_die(vigil::lab::detector_scenario("pause-jitter", seconds));
  auto stream = or_die(vigil::sim::HeartbeatStream::create(config, vigil::Rng(seed)));
  std::vector<vigil::Millis> out;
  for (const auto& hb :
       stream.advance(vigil::lab::kDetectorsWarmup + vigil::Millis{seconds * 1000}))
    out.push_back(hb.arrived);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t heartbeats = 1'000'000;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--heartbeats")
      heartbeats = std::strtoull(argv[i + 1], nullptr, 10);

  // The lab's own path: simulate the stream, then score its five detectors on it.
  auto t0 = Clock::now();
  auto simulated = lab_stream(heartbeats, 1);
  const double simulate_ms = ms_since(t0);
  const auto csv = vigil::detect::trace_csv(simulated, "node-b", "bench");
  if (simulated.size() < heartbeats) {
    std::fprintf(stderr, "the simulated stream is too short\n");
    return 2;
  }
  simulated.resize(heartbeats);
  t0 = Clock::now();
  std::size_t lab_mistakes = 0;
  for (auto& d : vigil::lab::experiment_detectors())
    lab_mistakes +=
        vigil::detect::evaluate(*d, simulated, std::nullopt, simulated.back(), simulated[100])
            .mistake_count();
  const double lab_evaluate_ms = ms_since(t0);

  // The trace path: export, read back, replay every trace detector with 1000 crash points.
  t0 = Clock::now();
  const auto trace = or_die(vigil::detect::parse_trace(csv));
  const double parse_ms = ms_since(t0);
  auto arrivals = trace.senders.at(0).arrivals;
  if (arrivals.size() < heartbeats) {
    std::fprintf(stderr, "the trace has too few distinct arrivals\n");
    return 2;
  }
  arrivals.resize(heartbeats);  // the same length as the lab's stream
  t0 = Clock::now();
  auto detectors = vigil::lab::trace_detectors(vigil::lab::median_gap_ms(arrivals));
  const auto rows = or_die(vigil::lab::replay_trace(arrivals, detectors, {}));
  const double replay_ms = ms_since(t0);
  std::size_t trace_mistakes = 0;
  for (const auto& r : rows) trace_mistakes += r.mistakes;

  const double lab_ms = simulate_ms + lab_evaluate_ms;
  std::printf(
      "{\"heartbeats\": %zu, \"detectors\": %zu, \"replay_ms\": %.1f, "
      "\"replay_heartbeats_per_s\": %.0f, \"parse_ms\": %.1f, \"lab_simulate_ms\": %.1f, "
      "\"lab_evaluate_ms\": %.1f, \"lab_detectors\": 5, \"replay_over_lab\": %.3f, "
      "\"trace_mistakes\": %zu, \"lab_mistakes\": %zu, \"under_1s\": %s}\n",
      arrivals.size(), rows.size(), replay_ms,
      static_cast<double>(arrivals.size()) / (replay_ms / 1000.0), parse_ms, simulate_ms,
      lab_evaluate_ms, replay_ms / lab_ms, trace_mistakes, lab_mistakes,
      replay_ms < 1000.0 ? "true" : "false");
  return 0;
}
