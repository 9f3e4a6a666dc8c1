#include <doctest/doctest.h>

#include <set>
#include <string>

#include <vigil/base/event_queue.hpp>
#include <vigil/base/rng.hpp>

using vigil::EventQueue;
using vigil::Millis;

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

TEST_CASE("far-future and late events keep time and push order") {
  EventQueue<std::string> q;
  q.push(Millis{100000}, "far1");  // far ahead of everything else
  q.push(Millis{5}, "near");
  q.push(Millis{100000}, "far2");
  CHECK(q.pop().event == "near");
  CHECK(q.next_time() == Millis{100000});
  q.push(Millis{100000}, "far3");  // pushed last at that instant: it comes out after far1, far2
  q.push(Millis{2}, "late");       // before the last pop: comes out first
  std::string order;
  while (!q.empty()) order += q.pop().event + " ";
  CHECK(order == "late far1 far2 far3 ");
}

TEST_CASE("a random schedule comes out exactly as a stable sort by time would order it") {
  // The reference: (time, push number) pairs, ordered; the queue must agree on every pop.
  EventQueue<std::uint64_t> q;
  std::set<std::pair<std::int64_t, std::uint64_t>> reference;
  vigil::Rng rng(42);
  std::int64_t now = 0;
  std::uint64_t pushed = 0;
  for (int step = 0; step < 200000; ++step) {
    if (reference.empty() || rng.below(100) < 55) {
      // Mostly a few ms ahead, sometimes seconds or minutes, rarely in the past.
      const std::uint32_t kind = rng.below(100);
      std::int64_t at = now + rng.below(kind < 80 ? 20 : kind < 95 ? 5000 : 300000);
      if (kind == 99) at = now - static_cast<std::int64_t>(rng.below(50));
      q.push(Millis{at}, pushed);
      reference.insert({at, pushed++});
    } else {
      REQUIRE(q.next_time() == Millis{reference.begin()->first});
      const auto e = q.pop();
      REQUIRE(e.at.count() == reference.begin()->first);
      REQUIRE(e.event == reference.begin()->second);
      reference.erase(reference.begin());
      now = std::max(now, e.at.count());
    }
    REQUIRE(q.size() == reference.size());
  }
}
