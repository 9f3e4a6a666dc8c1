// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <vigil/wire/messages.hpp>

namespace vigil::swim {

// RetransmitMult * ceil(log10(N + 1)): how many times each piece of news is piggybacked.
int retransmit_limit(int retransmit_mult, std::size_t cluster_size);

// memberlist's TransmitLimitedQueue: encoded membership news waiting to be piggybacked. News
// about a member replaces older news about the same member; the least-sent news goes first and,
// among equally sent news, the largest that still fits; each piece is dropped once sent
// `retransmit_limit` times.
class BroadcastQueue {
 public:
  void queue(const std::string& member, wire::Bytes message);

  // Takes news for one datagram: each part costs its size plus `overhead` bytes, the total
  // stays within `budget` and at most `max_parts` are taken. Every part returned counts as one
  // more transmission.
  std::vector<wire::Bytes> take(std::size_t overhead, std::size_t budget, int transmit_limit,
                                std::size_t max_parts = 255);

  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  void clear();

 private:
  struct Item {
    int transmits;
    std::size_t length;
    std::uint64_t id;
    std::string member;
    wire::Bytes message;
  };
  // Where a search starts: the first item of a tier no longer than a length.
  struct Key {
    int transmits;
    std::size_t length;
    std::uint64_t id;
  };
  // Least sent first; within a tier the largest, then the newest.
  struct Order {
    using is_transparent = void;
    static Key key(const Item& i) { return {i.transmits, i.length, i.id}; }
    static Key key(const Key& k) { return k; }
    bool operator()(const auto& a, const auto& b) const {
      const Key x = key(a), y = key(b);
      return std::tie(x.transmits, y.length, y.id) < std::tie(y.transmits, x.length, x.id);
    }
  };
  std::set<Item, Order> items_;
  std::unordered_map<std::string, std::set<Item, Order>::iterator> by_member_;
  std::uint64_t next_id_ = 0;
};

}  // namespace vigil::swim
