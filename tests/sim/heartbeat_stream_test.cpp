#include <doctest/doctest.h>

#include <cmath>

#include <vigil/sim/heartbeat_stream.hpp>

using vigil::Millis;
using namespace vigil::sim;
using vigil::Rng;

namespace {
HeartbeatStream make(HeartbeatConfig c, std::uint32_t seed = 1) {
  auto s = HeartbeatStream::create(std::move(c), Rng(seed));
  REQUIRE(s.ok());
  return std::move(s).value();
}
}  // namespace

TEST_CASE("constant delay, no loss: one heartbeat per interval, delayed exactly") {
  HeartbeatConfig c;
  c.interval = Millis{100};
  c.delay = DelayModel::constant(7);
  auto s = make(c);
  auto arrived = s.advance(Millis{1000});
  // Sent at 0, 100, ..., 1000; the one sent at 1000 arrives at 1007, after `now`.
  REQUIRE(arrived.size() == 10);
  for (std::size_t i = 0; i < arrived.size(); ++i) {
    CHECK(arrived[i].seq == i);
    CHECK(arrived[i].sent == Millis{100 * static_cast<long>(i)});
    CHECK(arrived[i].arrived == arrived[i].sent + Millis{7});
  }
  CHECK(s.sent() == 11);
  auto rest = s.advance(Millis{1007});
  REQUIRE(rest.size() == 1);
  CHECK(rest[0].arrived == Millis{1007});
}

TEST_CASE("advancing in small steps gives the same arrivals as one jump") {
  HeartbeatConfig c;
  c.delay = DelayModel::normal(80, 60);
  c.loss = 0.15;
  auto jump = make(c, 42).advance(Millis{20000});
  auto steps = make(c, 42);
  std::vector<Heartbeat> collected;
  for (Millis t{0}; t <= Millis{20000}; t += Millis{16}) {
    auto part = steps.advance(t);
    collected.insert(collected.end(), part.begin(), part.end());
  }
  auto tail = steps.advance(Millis{20000});
  collected.insert(collected.end(), tail.begin(), tail.end());
  REQUIRE(collected.size() == jump.size());
  for (std::size_t i = 0; i < jump.size(); ++i) {
    CHECK(collected[i].seq == jump[i].seq);
    CHECK(collected[i].arrived == jump[i].arrived);
  }
}

TEST_CASE("a paused sender sends nothing, then the overdue heartbeat, then its old cadence") {
  HeartbeatConfig c;
  c.delay = DelayModel::constant(0);
  c.pauses = {{Millis{250}, Millis{600}}};  // stopped during [250, 850)
  auto arrived = make(c).advance(Millis{1200});
  std::vector<long> sent;
  for (const auto& h : arrived) sent.push_back(static_cast<long>(h.sent.count()));
  CHECK(sent == std::vector<long>{0, 100, 200, 850, 900, 1000, 1100, 1200});
}

TEST_CASE("pauses can be injected while running") {
  HeartbeatConfig c;
  c.delay = DelayModel::constant(0);
  auto s = make(c);
  CHECK(s.advance(Millis{300}).size() == 4);
  s.pause(Millis{301}, Millis{500});
  auto later = s.advance(Millis{1000});
  REQUIRE(!later.empty());
  CHECK(later.front().sent == Millis{801});
}

TEST_CASE("nothing is sent at or after the crash") {
  HeartbeatConfig c;
  c.delay = DelayModel::constant(1);
  c.crash_at = Millis{501};
  auto arrived = make(c).advance(Millis{5000});
  REQUIRE(arrived.size() == 6);
  CHECK(arrived.back().sent == Millis{500});
}

TEST_CASE("loss drops heartbeats at the configured rate") {
  HeartbeatConfig c;
  c.loss = 0.15;
  c.delay = DelayModel::constant(0);
  auto s = make(c, 9);
  const auto arrived = s.advance(Millis{1'000'000});
  const double n = static_cast<double>(s.sent());
  CHECK(s.sent() == 10001);
  CHECK(arrived.size() + s.lost() == s.sent());
  CHECK(std::abs(static_cast<double>(s.lost()) - 0.15 * n) < 5 * std::sqrt(n * 0.15 * 0.85));
}

TEST_CASE("normal delays are truncated at zero and keep their mean") {
  HeartbeatConfig c;
  c.delay = DelayModel::normal(80, 60);
  const auto arrived = make(c, 3).advance(Millis{1'000'000});
  double sum = 0;
  for (const auto& h : arrived) {
    CHECK(h.arrived >= h.sent);
    sum += static_cast<double>((h.arrived - h.sent).count());
  }
  // A normal(80, 60) truncated at 0 has mean 80 + 60 * pdf(4/3) / cdf(4/3) ~ 90.8 ms; the
  // sample mean of ~10,000 draws has a standard error near 0.5 ms.
  const double mean = sum / static_cast<double>(arrived.size());
  CHECK(std::abs(mean - 90.8) < 2.5);
}

TEST_CASE("invalid stream parameters are errors, not crashes") {
  HeartbeatConfig c;
  c.interval = Millis{0};
  CHECK_FALSE(HeartbeatStream::create(c, Rng(1)).ok());
  c = {};
  c.loss = 1.5;
  CHECK_FALSE(HeartbeatStream::create(c, Rng(1)).ok());
  c = {};
  c.delay = DelayModel::normal(-1, 5);
  auto r = HeartbeatStream::create(c, Rng(1));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("--delay must be in [0,") == 0);
  c = {};
  c.pauses = {{Millis{10}, Millis{-5}}};
  CHECK_FALSE(HeartbeatStream::create(c, Rng(1)).ok());
}

TEST_CASE("reconfigure changes what is sent next and rejects bad values") {
  HeartbeatConfig c;
  c.delay = DelayModel::constant(0);
  auto s = make(c);
  CHECK(s.advance(Millis{200}).size() == 3);  // 0, 100, 200
  REQUIRE(s.reconfigure(Millis{250}, DelayModel::constant(5), 0.0).ok());
  auto later = s.advance(Millis{1000});
  // Next send on the new 250 ms grid after 200 is 250, then 500, 750, 1000 (arrives at 1005).
  REQUIRE(later.size() == 3);
  CHECK(later[0].sent == Millis{250});
  CHECK(later[0].arrived == Millis{255});
  CHECK(later[2].sent == Millis{750});
  CHECK_FALSE(s.reconfigure(Millis{0}, DelayModel::constant(5), 0.0).ok());
  CHECK_FALSE(s.reconfigure(Millis{100}, DelayModel::constant(5), 2.0).ok());
  CHECK(s.config().interval == Millis{250});
}
