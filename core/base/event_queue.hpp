// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <vigil/base/time.hpp>

namespace vigil {

// Events in virtual time. Earliest first; events at the same instant come out in the order they
// were pushed, so a simulation is deterministic whatever the heap does internally. The heap
// orders small keys; events stay put in a slab until popped, so large events are moved once in
// and once out rather than on every sift.
template <typename Event>
class EventQueue {
 public:
  struct Entry {
    Millis at;
    std::uint64_t order;
    Event event;
  };

  void push(Millis at, Event event) {
    std::uint32_t slot;
    if (free_.empty()) {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back(std::move(event));
    } else {
      slot = free_.back();
      free_.pop_back();
      slots_[slot].emplace(std::move(event));
    }
    heap_.push_back(Key{at, next_order_++, slot});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

  // Time of the earliest event; only valid when not empty.
  Millis next_time() const { return heap_.front().at; }

  Entry pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Key key = heap_.back();
    heap_.pop_back();
    Entry e{key.at, key.order, std::move(*slots_[key.slot])};
    slots_[key.slot].reset();
    free_.push_back(key.slot);
    return e;
  }

  void clear() {
    heap_.clear();
    slots_.clear();
    free_.clear();
  }

 private:
  struct Key {
    Millis at;
    std::uint64_t order;
    std::uint32_t slot;
  };
  struct Later {
    bool operator()(const Key& a, const Key& b) const {
      return a.at != b.at ? a.at > b.at : a.order > b.order;
    }
  };
  std::vector<Key> heap_;
  std::vector<std::optional<Event>> slots_;
  std::vector<std::uint32_t> free_;
  std::uint64_t next_order_ = 0;
};

}  // namespace vigil
