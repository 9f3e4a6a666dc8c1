#pragma once

#include <utility>

#include <vigil/base/rng.hpp>
#include <vigil/base/time.hpp>
#include <vigil/swim/node.hpp>
#include "swim/test_addresses.hpp"

namespace vigil::swim::testing {

// Node "a" (10.0.0.1) knowing "b" (10.0.0.2) and "c" (10.0.0.3), all at incarnation 1, with an
// empty outbox: the starting point of the rule tests.
inline Node node_a(Config config = Config::lan()) {
  auto n = Node::create(std::move(config), "a", addr(1), Rng(7)).value();
  n.add_member(Millis{0}, "b", addr(2));
  n.add_member(Millis{0}, "c", addr(3));
  n.outbox().clear();
  return n;
}

}  // namespace vigil::swim::testing
