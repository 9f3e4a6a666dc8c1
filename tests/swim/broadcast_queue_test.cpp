#include <doctest/doctest.h>

#include <vigil/swim/broadcast_queue.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

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

TEST_CASE("take picks what a plain walk over the queue would pick, tier by tier") {
  // The walk memberlist's description implies: in (least sent, largest, newest) order, every item
  // that still fits goes in. The queue seeks instead of walking; the picks must be the same.
  struct Model {
    std::string member;
    Bytes message;
    int transmits;
    std::uint64_t id;
    bool sent_now = false;
  };
  std::vector<Model> model;
  std::uint64_t next_id = 0;
  BroadcastQueue q;
  std::mt19937 rng(21);
  for (int step = 0; step < 5000; ++step) {
    if (rng() % 3 != 0) {
      const std::string member = "m" + std::to_string(rng() % 60);
      const Bytes message = msg(1 + rng() % 300, static_cast<std::uint8_t>(step));
      std::erase_if(model, [&](const Model& m) { return m.member == member; });
      model.push_back(Model{member, message, 0, next_id++, false});
      q.queue(member, message);
      continue;
    }
    const std::size_t overhead = rng() % 4;
    const std::size_t budget = 10 + rng() % 1400;
    const int limit = 1 + static_cast<int>(rng() % 6);
    std::sort(model.begin(), model.end(), [](const Model& a, const Model& b) {
      if (a.transmits != b.transmits) return a.transmits < b.transmits;
      if (a.message.size() != b.message.size()) return a.message.size() > b.message.size();
      return a.id > b.id;
    });
    std::vector<Bytes> expected;
    std::size_t used = 0;
    for (Model& m : model) m.sent_now = false;
    for (Model& m : model) {
      if (used + overhead >= budget) break;
      if (m.message.size() > budget - used - overhead) continue;
      used += overhead + m.message.size();
      expected.push_back(m.message);
      ++m.transmits;
      m.sent_now = true;
    }
    // An item leaves once it is sent for the limit's time; one not sent now stays, whatever its
    // count.
    std::erase_if(model, [&](const Model& m) { return m.sent_now && m.transmits >= limit; });
    REQUIRE(q.take(overhead, budget, limit) == expected);
    REQUIRE(q.size() == model.size());
  }
}

TEST_CASE("a datagram takes at most max_parts items, whatever room is left") {
  BroadcastQueue q;
  for (int i = 0; i < 10; ++i)
    q.queue("m" + std::to_string(i), msg(10, static_cast<std::uint8_t>(i)));
  CHECK(q.take(2, 1400, 4, 3).size() == 3);
  CHECK(q.take(2, 1400, 4).size() == 10);  // room for all, and no cap below the compound's 255
}
