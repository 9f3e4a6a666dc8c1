#include <doctest/doctest.h>

#include <vigil/swim/broadcast_queue.hpp>

using namespace vigil::swim;
using vigil::wire::Bytes;

namespace {
Bytes msg(std::size_t size, std::uint8_t tag) {
  return Bytes(size, tag);
}
}  // namespace

TEST_CASE("retransmit limit is RetransmitMult * ceil(log10(N + 1))") {
  CHECK(retransmit_limit(4, 1) == 4);
  CHECK(retransmit_limit(4, 9) == 4);
  CHECK(retransmit_limit(4, 10) == 8);
  CHECK(retransmit_limit(4, 99) == 8);
  CHECK(retransmit_limit(4, 100) == 12);
  CHECK(retransmit_limit(2, 1000) == 8);
}

TEST_CASE("newer news about a member replaces the older") {
  BroadcastQueue q;
  q.queue("b", msg(10, 1));
  q.queue("c", msg(10, 2));
  q.queue("b", msg(12, 3));
  CHECK(q.size() == 2);
  auto out = q.take(2, 1400, 4);
  REQUIRE(out.size() == 2);
  CHECK(out[0] == msg(12, 3));  // larger first among equally-sent items
  CHECK(out[1] == msg(10, 2));
}

TEST_CASE("each item is sent at most the transmit limit, least-sent first") {
  BroadcastQueue q;
  q.queue("b", msg(10, 1));
  for (int i = 0; i < 3; ++i) CHECK(q.take(2, 1400, 3).size() == 1);
  CHECK(q.empty());
  q.queue("b", msg(10, 1));
  q.take(2, 1400, 3);  // b sent once
  q.queue("c", msg(10, 2));
  auto out = q.take(2, 14, 3);  // room for one item only
  REQUIRE(out.size() == 1);
  CHECK(out[0] == msg(10, 2));  // never-sent c before once-sent b
}

TEST_CASE("the budget counts each part's overhead and skips items that do not fit") {
  BroadcastQueue q;
  q.queue("big", msg(100, 1));
  q.queue("small", msg(20, 2));
  auto out = q.take(2, 50, 4);
  REQUIRE(out.size() == 1);
  CHECK(out[0] == msg(20, 2));
  CHECK(q.size() == 2);  // big waits for a roomier datagram; small goes around again
  CHECK(q.take(2, 10, 4).empty());
}
