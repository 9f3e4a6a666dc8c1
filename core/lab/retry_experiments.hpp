// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/lab/progress.hpp>
#include <vigil/lab/table.hpp>
#include <vigil/retry/chain.hpp>
#include <vigil/retry/fleet.hpp>
#include <vigil/retry/hysteresis.hpp>
#include <vigil/retry/overload_server.hpp>

namespace vigil::lab {

// --- retry chain: amplification through a chain of retrying services.
Report chain_report(const retry::Chain& chain, const retry::ChainAmplification& a);

struct ChainRow {
  retry::Chain chain;
  retry::ChainAmplification result;
};
// The table --table prints: k = 3 and six (N, p) pairs.
std::vector<ChainRow> reference_chain_rows();
Report chain_table_report(const std::vector<ChainRow>& rows);

// --- retry hysteresis: the fluid model with the load swept up and back down.
struct HysteresisOptions {
  retry::HysteresisModel model;
  double lambda_min = retry::hysteresis_param::lambda_min.def;
  double lambda_max = retry::hysteresis_param::lambda_max.def;
  double step = retry::hysteresis_param::step.def;
  double settle_seconds = 600.0;  // simulated time allowed per load before moving on

  Status validate() const;
};

struct SweepRow {
  bool up = true;
  double lambda0 = 0.0;
  double latency_ms = 0.0;  // where latency settled, starting from the previous load's
  double offered = 0.0;     // req/s, first attempts and retries
  double carried = 0.0;     // req/s the server works through
  double goodput = 0.0;     // req/s answered within the timeout
  bool settled = true;      // false if the time allowed ran out first
};

struct HysteresisResult {
  std::vector<SweepRow> sweep;  // up, then down
  // The first load on the way up whose latency settles above the timeout, and the first on the
  // way down (after that) whose latency settles below it; empty when it never happens.
  std::optional<double> collapse_load;
  std::optional<double> recovery_load;
};

Result<HysteresisResult> run_hysteresis(const HysteresisOptions& options,
                                        const Progress& progress = {});
Report hysteresis_report(const HysteresisResult& result, const HysteresisOptions& options);

// Equilibria of the same model at one load, with their stability.
Result<std::vector<retry::Equilibrium>> run_equilibria(const retry::HysteresisModel& model,
                                                       double lambda0);
Report equilibria_report(const std::vector<retry::Equilibrium>& roots,
                         const retry::HysteresisModel& model, double lambda0);

// --- retry fleet: clients retrying after one outage.
struct FleetResult {
  std::vector<retry::FleetSecond> per_second;
  double peak_rps = 0.0;  // busiest 100 ms, as a rate
  int peak_second = -1;
  std::int64_t total_calls = 0;  // retries made within the run (the failed calls at t = 0 aside)
  std::int64_t unfinished = 0;   // clients still without an answer at the end
};

Result<FleetResult> run_fleet(const retry::FleetOptions& options, const Progress& progress = {});
Report fleet_report(const FleetResult& result, const retry::FleetOptions& options);

// --- retry server: a queue, timeouts, retries, a trigger, and the mitigations.
struct ServerResult {
  std::vector<retry::ServerSecond> series;
  retry::ServerSummary summary;
  std::int64_t first_attempts = 0;
  std::int64_t retries = 0;
};

Result<ServerResult> run_server(const retry::ServerOptions& options, const Progress& progress = {});
Report server_report(const ServerResult& result, const retry::ServerOptions& options);

}  // namespace vigil::lab
