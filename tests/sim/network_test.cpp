#include <doctest/doctest.h>

#include <cmath>

#include <vigil/sim/network.hpp>

using vigil::Millis;
using namespace vigil::sim;
using vigil::Rng;

TEST_CASE("a one-way block cuts a->b and leaves b->a working") {
  Network net(3);
  Rng rng(1);
  net.block(0, 1);
  CHECK_FALSE(net.transmit(0, 1, rng).has_value());
  CHECK(net.transmit(1, 0, rng).has_value());
  CHECK(net.transmit(0, 2, rng).has_value());
  net.unblock(0, 1);
  CHECK(net.transmit(0, 1, rng).has_value());
}

TEST_CASE("partitions separate groups; unlisted hosts form their own group; heal reconnects") {
  Network net(5);
  net.partition({{0, 1}, {2, 3}});
  CHECK(net.connected(0, 1));
  CHECK(net.connected(2, 3));
  CHECK_FALSE(net.connected(1, 2));
  CHECK_FALSE(net.connected(3, 0));
  CHECK_FALSE(net.connected(4, 0));  // host 4 was not listed: alone in the rest group
  CHECK(net.partitioned());
  net.block(0, 1);
  net.heal();
  CHECK(net.connected(1, 2));
  CHECK_FALSE(net.connected(0, 1));  // one-way blocks survive a heal
}

TEST_CASE("loss and delay follow the link model, per direction") {
  Network net(2, LinkModel{DelayModel::constant(7), 0.0});
  Rng rng(4);
  CHECK(*net.transmit(0, 1, rng) == Millis{7});
  REQUIRE(net.set_link(1, 0, LinkModel{DelayModel::normal(30, 5), 0.25}).ok());
  int lost = 0;
  double delay_sum = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    if (auto d = net.transmit(1, 0, rng))
      delay_sum += static_cast<double>(d->count());
    else
      ++lost;
  }
  CHECK(std::abs(lost - 0.25 * n) < 5 * std::sqrt(n * 0.25 * 0.75));
  CHECK(std::abs(delay_sum / (n - lost) - 30.0) < 0.5);
  CHECK(*net.transmit(0, 1, rng) == Millis{7});  // the other direction is unchanged
}

TEST_CASE("invalid link models are rejected") {
  Network net(2);
  CHECK_FALSE(net.set_default_link(LinkModel{DelayModel::constant(1), 1.5}).ok());
  CHECK_FALSE(net.set_link(0, 1, LinkModel{DelayModel::normal(-3, 1), 0}).ok());
  CHECK_FALSE(net.set_link(0, 9, LinkModel{}).ok());
}
