#include <doctest/doctest.h>

#include <vector>

#include "ui/pointer_queue.hpp"

using vigil::web::PointerQueue;
using vigil::web::PointerState;

namespace {
// Runs frames until the queue is empty; returns the state after each.
std::vector<PointerState> frames(PointerQueue& q, PointerState s = {}) {
  std::vector<PointerState> out;
  while (!q.empty()) out.push_back(s = q.next(s));
  return out;
}
}  // namespace

TEST_CASE("a tap lands, presses and releases in three frames, pressing where it landed") {
  PointerQueue q;
  q.move(40, 50);
  q.press();
  q.release();
  const auto f = frames(q, PointerState{200, 300, false});
  REQUIRE(f.size() == 3);
  CHECK(f[0].x == 40);  // moved first, not yet pressed: the widget under it becomes hovered
  CHECK(f[0].y == 50);
  CHECK_FALSE(f[0].down);
  CHECK(f[1].down);  // pressed where the finger is
  CHECK(f[1].x == 40);
  CHECK_FALSE(f[2].down);
}

TEST_CASE("moves between button changes collapse into the last; a drag keeps its order") {
  PointerQueue q;
  q.move(10, 10);
  q.press();
  for (int i = 1; i <= 20; ++i) q.move(10 + i, 10);
  q.release();
  q.leave();
  CHECK(q.size() == 5);
  const auto f = frames(q);
  REQUIRE(f.size() == 5);
  CHECK(f[1].down);
  CHECK(f[2].down);  // still held while the finger moves
  CHECK(f[2].x == 30);
  CHECK_FALSE(f[3].down);
  CHECK(f[3].x == 30);  // released where the drag ended
  CHECK(f[4].x == PointerState::kAway);
}

TEST_CASE("an empty queue leaves the state alone") {
  PointerQueue q;
  const PointerState s{1, 2, true};
  const PointerState n = q.next(s);
  CHECK(n.x == 1);
  CHECK(n.down);
}

TEST_CASE("pending changes are bounded: the oldest go first and are counted") {
  PointerQueue q;
  for (std::size_t i = 0; i < PointerQueue::kMaxPending + 10; ++i) {
    q.press();
    q.release();
  }
  CHECK(q.size() == PointerQueue::kMaxPending);
  CHECK(q.dropped() == 2 * (PointerQueue::kMaxPending + 10) - PointerQueue::kMaxPending);
  // An even number went, so what is left starts with a press: order is kept.
  PointerState s = q.next({});
  CHECK(s.down);
  CHECK_FALSE(q.next(s).down);
  q.clear();
  CHECK(q.empty());
}
