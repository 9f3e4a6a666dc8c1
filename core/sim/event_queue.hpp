#pragma once

#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

#include "base/time.hpp"

namespace vigil::sim {

// Events in virtual time. Earliest first; events at the same instant come out in the order they
// were pushed, so a simulation is deterministic whatever the heap does internally.
template <typename Event>
class EventQueue {
 public:
  struct Entry {
    Millis at;
    std::uint64_t order;
    Event event;
  };

  void push(Millis at, Event event) { heap_.push(Entry{at, next_order_++, std::move(event)}); }

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

  // Time of the earliest event; only valid when not empty.
  Millis next_time() const { return heap_.top().at; }

  Entry pop() {
    Entry e = std::move(const_cast<Entry&>(heap_.top()));
    heap_.pop();
    return e;
  }

  void clear() { heap_ = {}; }

 private:
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.at != b.at ? a.at > b.at : a.order > b.order;
    }
  };
  std::priority_queue<Entry, std::vector<Entry>, Later> heap_;
  std::uint64_t next_order_ = 0;
};

}  // namespace vigil::sim
