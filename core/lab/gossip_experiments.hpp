// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/gossip/params.hpp>
#include <vigil/gossip/spread.hpp>
#include <vigil/lab/progress.hpp>
#include <vigil/lab/table.hpp>

namespace vigil::lab {

// --- gossip: one rumour over n members, averaged over trials.
struct GossipOptions {
  std::size_t nodes = static_cast<std::size_t>(gossip::spread_param::nodes.def);
  int fanout = static_cast<int>(gossip::spread_param::fanout.def);
  gossip::Mode mode = gossip::Mode::push;
  int trials = static_cast<int>(gossip::spread_param::trials.def);
  double loss = gossip::spread_param::loss.def;
  std::size_t dead = static_cast<std::size_t>(gossip::spread_param::dead.def);
  // 0: gossip::default_max_rounds(nodes)
  int max_rounds = static_cast<int>(gossip::spread_param::max_rounds.def);
  std::uint32_t seed = static_cast<std::uint32_t>(gossip::spread_param::seed.def);

  Status validate() const;
  gossip::SpreadOptions spread_options() const;
};

struct GossipResult {
  int trials = 0;
  int finished = 0;                   // trials that informed every live member within the cap
  std::optional<double> rounds_mean;  // over the finished trials
  int rounds_min = 0;                 // over the finished trials
  int rounds_max = 0;
  double rounds_theory = 0.0;           // gossip::mean_field_rounds: any mode, loss, dead members
  std::optional<double> rounds_pittel;  // push only: Pittel with the effective fanout
  double messages_per_node = 0.0;       // contacts per member (dead ones included) per trial
  // Informed live members after r rounds, averaged over trials; a trial that has finished (or hit
  // the cap) counts with its final number, so the curve ends at the live count if all finished.
  std::vector<double> informed_by_round;
  std::vector<double> theory_by_round;  // gossip::mean_field_curve, as long as informed_by_round
};

// All trials draw from one generator seeded with `seed`, one after another, as a JavaScript
// simulation built on mulberry32 does.
Result<GossipResult> run_gossip(const GossipOptions& options, const Progress& progress = {});
Report gossip_report(const GossipResult& result, const GossipOptions& options);

// --- gossip --table: the grid of push gossip, n x fanout, trials averaged. One
// generator runs through the whole grid in order (n outer, fanout inner), exactly like a
// JavaScript simulation built on mulberry32, so seed 44 reproduces its table digit for digit.
struct GossipTableOptions {
  std::vector<std::size_t> nodes = {100, 1000, 10000};
  std::vector<int> fanouts = {1, 3};
  int trials = static_cast<int>(gossip::spread_param::trials.def);
  std::uint32_t seed = static_cast<std::uint32_t>(gossip::spread_param::seed.def);

  Status validate() const;
};

struct GossipTableRow {
  std::size_t n = 0;
  int fanout = 0;
  double rounds_mean = 0.0;
  double log2_n = 0.0;
  double theory = 0.0;         // gossip::pittel_rounds
  double msgs_per_node = 0.0;  // pushes per member per trial
};

Result<std::vector<GossipTableRow>> run_gossip_table(const GossipTableOptions& options,
                                                     const Progress& progress = {});
Report gossip_table_report(const std::vector<GossipTableRow>& rows,
                           const GossipTableOptions& options);

// --- membership: van Renesse's heartbeat-counter lists (gossip::HeartbeatCluster), per T_fail.
// Each trial starts a cluster from the all-zero lists, counts false suspicions for `rounds`
// rounds, then crashes the last member and runs until every live member holds it failed. Trial
// t draws from Rng(seed).fork(t) for every T_fail, so the rows differ only by T_fail.
struct MembershipOptions {
  std::size_t nodes = static_cast<std::size_t>(gossip::membership_param::nodes.def);
  int fanout = static_cast<int>(gossip::membership_param::fanout.def);
  // A short T_fail that suspects live members against the model's default that does not.
  std::vector<int> t_fail = {3, static_cast<int>(gossip::membership_param::t_fail.def)};
  int t_cleanup = static_cast<int>(gossip::membership_param::t_cleanup.def);  // 0: twice each
  int trials = static_cast<int>(gossip::membership_param::trials.def);
  // Watched for false suspicions before the crash, counted from the start.
  int rounds = static_cast<int>(gossip::membership_param::rounds.def);
  double loss = gossip::membership_param::loss.def;
  std::uint32_t seed = static_cast<std::uint32_t>(gossip::membership_param::seed.def);

  Status validate() const;
};

struct MembershipRow {
  int t_fail = 0;
  int t_cleanup = 0;
  // Sum over trials, watched rounds and ordered pairs of distinct live members of "the observer
  // holds the member failed or removed".
  std::uint64_t false_suspicion_node_rounds = 0;
  double false_suspicion_pct = 0.0;  // of all those observer-member-rounds
  // Crash -> the first round every live member holds the victim failed, averaged over the trials
  // that got there within T_fail + default_max_rounds(nodes) rounds (`agreed`). Rounds count from
  // the first round the victim stayed silent, that round included.
  std::optional<double> agree_dead_rounds_mean;
  int agreed = 0;
  // Crash -> the first round each live member holds the victim failed, averaged over members and
  // trials: when a typical member finds out, rather than the last one.
  std::optional<double> detect_rounds_mean;
  double messages_per_round = 0.0;  // gossip messages a round before the crash: n · fanout
  // False suspicions at the end of each watched round, summed over trials; [0] is the start (0).
  std::vector<double> false_by_round;
};

Result<std::vector<MembershipRow>> run_membership(const MembershipOptions& options,
                                                  const Progress& progress = {});
Report membership_report(const std::vector<MembershipRow>& rows, const MembershipOptions& options);

// --- heartbeats: messages per interval, all-to-all heartbeats against gossiping full lists.
struct HeartbeatCostOptions {
  std::size_t nodes = static_cast<std::size_t>(gossip::heartbeat_cost_param::nodes.def);
  int fanout = static_cast<int>(gossip::heartbeat_cost_param::fanout.def);

  Status validate() const;
};

struct HeartbeatCostRow {
  std::string scheme;
  std::uint64_t messages = 0;  // per interval
  double per_member = 0.0;
  std::uint64_t entries = 0;  // member entries carried per interval: what the bytes scale with
};

Result<std::vector<HeartbeatCostRow>> run_heartbeat_costs(const HeartbeatCostOptions& options);
Report heartbeat_costs_report(const std::vector<HeartbeatCostRow>& rows,
                              const HeartbeatCostOptions& options);

}  // namespace vigil::lab
