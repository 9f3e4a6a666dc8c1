#include "http/wake_timer.hpp"

#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace vigil::native {

Result<WakeTimer> WakeTimer::open() {
  const int fd = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (fd < 0)
    return Error{std::string("cannot create a timer descriptor: ") + std::strerror(errno)};
  return WakeTimer(fd);
}

void WakeTimer::arm_at(Clock::time_point at) {
  if (armed_ == at) return;
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
  itimerspec spec{};
  // An absolute time of zero would disarm the timer: one nanosecond past it is already due.
  const long long due = std::max<long long>(ns, 1);
  spec.it_value.tv_sec = static_cast<time_t>(due / 1'000'000'000);
  spec.it_value.tv_nsec = static_cast<long>(due % 1'000'000'000);
  ++arms_;
  if (::timerfd_settime(fd_, TFD_TIMER_ABSTIME, &spec, nullptr) == 0) armed_ = at;
}

bool WakeTimer::take() {
  std::uint64_t expirations = 0;
  if (::read(fd_, &expirations, sizeof expirations) != static_cast<ssize_t>(sizeof expirations))
    return false;
  armed_.reset();
  return expirations > 0;
}

}  // namespace vigil::native
