#include <doctest/doctest.h>

#include <poll.h>
#include <unistd.h>
#include <chrono>

#include "http/wake_timer.hpp"

using vigil::native::WakeTimer;
using namespace std::chrono_literals;

namespace {

// Whether the descriptor becomes readable within `ms` (0: is it readable now).
bool readable_within(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

struct Opened {
  WakeTimer timer = *WakeTimer::open();
  ~Opened() { ::close(timer.fd()); }
};

}  // namespace

TEST_CASE("a wake timer is quiet until armed, and a time already past fires at once") {
  Opened o;
  CHECK_FALSE(readable_within(o.timer.fd(), 0));
  CHECK_FALSE(o.timer.take());
  o.timer.arm_at(WakeTimer::Clock::now() - 5ms);
  CHECK(readable_within(o.timer.fd(), 1000));
  CHECK(o.timer.take());
  CHECK_FALSE(readable_within(o.timer.fd(), 0));  // one shot
}

TEST_CASE("a wake timer fires no earlier than its time") {
  Opened o;
  const auto at = WakeTimer::Clock::now() + 30ms;
  o.timer.arm_at(at);
  REQUIRE(readable_within(o.timer.fd(), 5000));
  CHECK(WakeTimer::Clock::now() >= at);
  CHECK(o.timer.take());
}

TEST_CASE("re-arming at the same time costs no system call; another time replaces the first") {
  Opened o;
  const auto far = WakeTimer::Clock::now() + 1h;
  o.timer.arm_at(far);
  o.timer.arm_at(far);
  o.timer.arm_at(far);
  CHECK(o.timer.arms() == 1);
  o.timer.arm_at(WakeTimer::Clock::now());  // replaces the hour
  CHECK(o.timer.arms() == 2);
  CHECK(readable_within(o.timer.fd(), 1000));
  CHECK(o.timer.take());
  // Fired and taken: the same time again is a new request.
  o.timer.arm_at(far);
  CHECK(o.timer.arms() == 3);
  CHECK_FALSE(readable_within(o.timer.fd(), 0));
}

TEST_CASE("a fired time moved later before it was taken does not fire twice") {
  Opened o;
  o.timer.arm_at(WakeTimer::Clock::now());
  REQUIRE(readable_within(o.timer.fd(), 1000));
  // The host handled a datagram first and its next deadline moved an hour away.
  o.timer.arm_at(WakeTimer::Clock::now() + 1h);
  CHECK_FALSE(readable_within(o.timer.fd(), 0));
  CHECK_FALSE(o.timer.take());  // a spurious wake-up is reported as such
}
