// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/lab/progress.hpp>
#include <vigil/lab/swim_params.hpp>
#include <vigil/lab/table.hpp>
#include <vigil/swim/config.hpp>

namespace vigil::lab {

// --- swim-probe: how often a probe of a live member fails under independent message loss.
struct SwimProbeOptions {
  double loss = swim_probe_param::loss.def;
  int indirect = static_cast<int>(swim_probe_param::indirect.def);
  std::uint64_t probes = static_cast<std::uint64_t>(swim_probe_param::probes.def);
  std::size_t nodes = static_cast<std::size_t>(swim_probe_param::nodes.def);
  std::uint32_t seed = static_cast<std::uint32_t>(swim_probe_param::seed.def);
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
  std::size_t nodes = static_cast<std::size_t>(swim_param::nodes.def);
  std::size_t kill = static_cast<std::size_t>(swim_param::kill.def);
  int periods = static_cast<int>(swim_param::periods.def);  // observed after the crash
  double loss = swim_param::loss.def;
  std::string profile = "lan";
  bool lifeguard = true;
  // Members that process incoming datagrams late, and how late, in probe periods.
  std::size_t slow = static_cast<std::size_t>(swim_param::slow.def);
  double slow_periods = swim_param::slow_periods.def;
  std::uint32_t seed = static_cast<std::uint32_t>(swim_param::seed.def);
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
