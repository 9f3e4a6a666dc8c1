// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/rng.hpp>
#include <vigil/gossip/params.hpp>

namespace vigil::gossip {

struct HeartbeatConfig {
  std::size_t nodes = static_cast<std::size_t>(membership_param::nodes.def);
  int fanout = static_cast<int>(membership_param::fanout.def);
  // Rounds without growth before a member is marked failed.
  int t_fail = static_cast<int>(membership_param::t_fail.def);
  // Rounds without growth before its entry is dropped; 0 means 2 · t_fail.
  int t_cleanup = static_cast<int>(membership_param::t_cleanup.def);
  double loss = membership_param::loss.def;  // per gossip message

  Status validate() const;
  int cleanup_rounds() const { return t_cleanup > 0 ? t_cleanup : 2 * t_fail; }
};

// What an observer makes of a member's entry.
enum class Verdict { alive, failed, removed };

// Van Renesse, Minsky and Hayden's gossip-style failure detector (1998), in synchronous rounds.
// Every member keeps a heartbeat counter per member and the round it last grew. In round r each
// live member bumps its own counter, then sends its whole list, as it stood when the round began,
// to `fanout` members drawn uniformly among all others (the list itself is never consulted, so
// the draws do not depend on t_fail, and crashed members still get picked, wasting the message).
// A receiver keeps the larger counter per member and, when it grew, notes round r. At time r a
// member whose counter has not grown since round g is failed once r - g >= t_fail and removed
// once r - g >= t_cleanup: a removed entry is no longer sent, but its counter is remembered, so
// only a strictly larger counter (the member is alive after all) brings it back.
//
// Start: at round 0 everyone lists everyone with counter 0, grown at round 0, as if the cluster
// had just been configured. A member's first bump then needs as many rounds as a rumour needs to
// reach a far observer, so a small t_fail suspects live members during those first rounds: that
// warm-up is part of what a false-suspicion count over the first rounds measures.
class HeartbeatCluster {
 public:
  static Result<HeartbeatCluster> create(const HeartbeatConfig& config);

  // One gossip round; draws f targets per live member in member order, then a loss draw per
  // message to a live member when loss > 0.
  void step(Rng& rng);
  // The member stops bumping, sending and receiving from the next round on.
  void crash(std::size_t member);

  int round() const { return round_; }
  std::size_t size() const { return n_; }
  bool is_up(std::size_t member) const { return up_[member] != 0; }
  std::uint64_t messages_sent() const { return messages_; }

  std::uint32_t counter(std::size_t observer, std::size_t member) const {
    return counter_[observer * n_ + member];
  }
  int last_grown(std::size_t observer, std::size_t member) const {
    return grown_[observer * n_ + member];
  }
  Verdict verdict(std::size_t observer, std::size_t member) const;

  // Pairs of distinct live members where the observer holds the member failed or removed now.
  std::uint64_t false_suspicions() const;
  // Every live member other than `member` holds it failed or removed.
  bool all_hold_failed(std::size_t member) const;

 private:
  explicit HeartbeatCluster(const HeartbeatConfig& config);

  HeartbeatConfig config_;
  std::size_t n_;
  int cleanup_;
  int round_ = 0;
  std::uint64_t messages_ = 0;
  std::vector<std::uint8_t> up_;
  // Row-major n x n tables: [observer * n + member].
  std::vector<std::uint32_t> counter_;
  std::vector<std::int32_t> grown_;
  std::vector<std::uint32_t> sent_;  // this round's outgoing lists; 0 for entries not sent
};

}  // namespace vigil::gossip
