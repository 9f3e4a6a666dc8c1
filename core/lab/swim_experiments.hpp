#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/lab/progress.hpp>
#include <vigil/lab/table.hpp>
#include <vigil/swim/config.hpp>

namespace vigil::lab {

// --- swim-probe: how often a probe of a live member fails under independent message loss.
struct SwimProbeOptions {
  double loss = 0.05;
  int indirect = 3;
  std::uint64_t probes = 200000;
  std::size_t nodes = 20;
  std::uint32_t seed = 2002;
  Status validate() const;
};

struct SwimProbeResult {
  std::uint64_t probes = 0;
  std::uint64_t failed = 0;
  double simulated_pct = 0.0;
  double formula_pct = 0.0;  // (1-(1-p)^2) (1-(1-p)^4)^k: direct pair lost, and every relay path
};

double probe_failure_formula(double loss, int indirect);
Result<SwimProbeResult> run_swim_probe(const SwimProbeOptions& options,
                                       const Progress& progress = {});
Report swim_probe_report(const SwimProbeResult& r, const SwimProbeOptions& o);

// --- swim: crash M of N members and watch detection, mistakes and cost.
struct SwimRunOptions {
  std::size_t nodes = 100;
  std::size_t kill = 1;
  int periods = 60;  // probe periods observed after the crash
  double loss = 0.0;
  std::string profile = "lan";
  bool lifeguard = true;
  std::size_t slow = 0;       // members that process incoming datagrams late
  double slow_periods = 5.0;  // how late, in probe periods
  std::uint32_t seed = 1;
  Status validate() const;
};

struct SwimRunResult {
  std::optional<double> first_detection_periods;  // mean over victims: crash -> first suspicion
  std::optional<double> all_dead_periods;     // crash -> every live member holds every victim dead
  std::uint64_t false_suspicions = 0;         // suspicions of members that were up
  std::uint64_t false_deaths = 0;             // deaths declared of members that were up
  std::uint64_t false_deaths_of_healthy = 0;  // ... excluding the slow members themselves
  double msgs_per_node_per_period = 0.0;
  double bytes_per_node_per_period = 0.0;
};

Result<SwimRunResult> run_swim(const SwimRunOptions& options, const Progress& progress = {});
Report swim_report(const SwimRunResult& r, const SwimRunOptions& o);

// --- cost: traffic per scheme, by formula and measured on the simulator.
struct CostOptions {
  std::vector<std::size_t> nodes = {10, 100, 1000};
  std::uint32_t seed = 1;
  Status validate() const;
};

struct CostRow {
  std::size_t n = 0;
  std::string scheme;
  std::string source;  // "formula" or "simulated"
  double msgs_per_s = 0.0;
  double msgs_per_node = 0.0;
  double bytes_per_s = 0.0;
};

Result<std::vector<CostRow>> run_cost(const CostOptions& options, const Progress& progress = {});
Report cost_report(const std::vector<CostRow>& rows);

}  // namespace vigil::lab
