#include <doctest/doctest.h>

#include <string>

#include "sim/event_queue.hpp"

using vigil::Millis;
using vigil::sim::EventQueue;

TEST_CASE("events come out earliest first, ties in push order") {
  EventQueue<std::string> q;
  q.push(Millis{30}, "c");
  q.push(Millis{10}, "a1");
  q.push(Millis{20}, "b");
  q.push(Millis{10}, "a2");
  q.push(Millis{10}, "a3");
  CHECK(q.size() == 5);
  CHECK(q.next_time() == Millis{10});
  std::string order;
  while (!q.empty()) order += q.pop().event + " ";
  CHECK(order == "a1 a2 a3 b c ");
}

TEST_CASE("clear empties the queue") {
  EventQueue<int> q;
  q.push(Millis{1}, 1);
  q.clear();
  CHECK(q.empty());
}
