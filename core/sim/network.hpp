// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/rng.hpp>
#include <vigil/base/time.hpp>
#include <vigil/sim/heartbeat_stream.hpp>

namespace vigil::sim {

// How one directed link treats a datagram.
struct LinkModel {
  DelayModel delay = DelayModel::constant(1.0);
  double loss = 0.0;

  Status validate() const;
};

// The fabric between N simulated hosts (numbered 0..N-1): per-link delay and loss, one-way
// blocks (a->b cut while b->a works) and partitions into groups. It decides each datagram's fate;
// it does not hold datagrams (the cluster's event queue does).
class Network {
 public:
  explicit Network(std::size_t hosts, LinkModel default_link = {});

  std::size_t hosts() const { return hosts_; }
  const LinkModel& default_link() const { return default_link_; }
  Status set_default_link(const LinkModel& link);
  Status set_link(std::size_t from, std::size_t to, const LinkModel& link);  // one direction

  void block(std::size_t from, std::size_t to) { blocked_.insert({from, to}); }
  void unblock(std::size_t from, std::size_t to) { blocked_.erase({from, to}); }
  bool is_blocked(std::size_t from, std::size_t to) const { return blocked_.count({from, to}) > 0; }

  // Hosts in different groups cannot reach each other; hosts not listed form one more group.
  void partition(const std::vector<std::vector<std::size_t>>& groups);
  void heal();  // ends the partition (one-way blocks stay)
  bool partitioned() const { return !group_.empty(); }

  // Whether anything at all can pass from -> to (ignores random loss).
  bool connected(std::size_t from, std::size_t to) const;

  // The fate of one datagram: its one-way delay, or nothing if it is lost or cannot pass.
  std::optional<Millis> transmit(std::size_t from, std::size_t to, Rng& rng) const;

 private:
  const LinkModel& link(std::size_t from, std::size_t to) const;

  std::size_t hosts_;
  LinkModel default_link_;
  std::vector<std::pair<std::pair<std::size_t, std::size_t>, LinkModel>> overrides_;
  std::set<std::pair<std::size_t, std::size_t>> blocked_;
  std::vector<int> group_;  // per host, when partitioned
};

}  // namespace vigil::sim
