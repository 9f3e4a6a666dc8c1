#include <doctest/doctest.h>

#include <string>

#include "http/connection_table.hpp"

using vigil::Millis;
using vigil::native::ConnectionTable;

namespace {

// Stand-ins for the server's connection handles: only their addresses matter.
const int handles[8] = {};
ConnectionTable::Key key(int i) {
  return &handles[i];
}

}  // namespace

TEST_CASE("the connection idle the longest makes room; viewers and busy ones never do") {
  ConnectionTable table;
  CHECK_FALSE(table.eviction_candidate().has_value());
  table.add(key(0), "10.0.0.1", Millis{100});
  table.add(key(1), "10.0.0.2", Millis{50});
  table.add(key(2), "10.0.0.3", Millis{10});
  table.add(key(3), "10.0.0.4", Millis{5});
  table.find(key(2))->upgraded = true;  // a viewer
  table.find(key(3))->busy = true;      // an answer being sent
  CHECK(table.eviction_candidate() == key(1));
  // An answer completed later makes a connection younger than one that never asked.
  table.find(key(1))->idle_since = Millis{200};
  CHECK(table.eviction_candidate() == key(0));
  // Already on its way out: not chosen twice.
  table.find(key(0))->evicted = true;
  CHECK(table.eviction_candidate() == key(1));
  table.find(key(1))->busy = true;
  CHECK_FALSE(table.eviction_candidate().has_value());
  table.remove(key(1));
  CHECK(table.size() == 3);
  CHECK(table.find(key(1)) == nullptr);
}

TEST_CASE("viewer places are shared: a newcomer displaces the most crowded address's oldest") {
  ConnectionTable table;
  auto viewer = [&](int i, const std::string& peer, Millis at) {
    table.add(key(i), peer, at);
    table.find(key(i))->upgraded = true;
    table.find(key(i))->upgraded_at = at;
  };
  viewer(0, "10.0.0.1", Millis{30});
  viewer(1, "10.0.0.1", Millis{10});
  viewer(2, "10.0.0.1", Millis{20});
  table.add(key(3), "10.0.0.1", Millis{0});  // not a viewer: never displaced for one
  // A first viewer from elsewhere takes the place of 10.0.0.1's oldest.
  CHECK(table.viewer_to_evict("10.0.0.2") == key(1));
  // 10.0.0.1 itself gains nothing by asking again.
  CHECK_FALSE(table.viewer_to_evict("10.0.0.1").has_value());
  viewer(4, "10.0.0.2", Millis{40});
  table.remove(key(1));
  // 2 against 1: swapping would leave the newcomer's address ahead, so no.
  CHECK_FALSE(table.viewer_to_evict("10.0.0.2").has_value());
  CHECK(table.viewer_to_evict("10.0.0.3") == key(2));
}
