#include "agent/line_output.hpp"

#include <unistd.h>
#include <cerrno>
#include <sstream>
#include <utility>

#include "http/prometheus_text.hpp"

namespace vigil::native {

namespace {

// The whole of `text`, retrying short writes and interruptions; false once the fd refuses.
bool write_all(int fd, const std::string& text) {
  std::size_t at = 0;
  while (at < text.size()) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

LineOutput::LineOutput(int fd, std::string name)
    : fd_(fd), name_(std::move(name)), writer_([this] { run(); }) {}

LineOutput::~LineOutput() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  writer_.join();
}

void LineOutput::write(std::string line) {
  bool was_empty = false;
  {
    std::lock_guard lock(mutex_);
    ++counters_.lines;
    if (failed_ || counters_.pending + line.size() > kMaxPendingBytes) {
      ++counters_.dropped;
      if (!failed_) ++unreported_drops_;
      return;
    }
    counters_.pending += line.size();
    was_empty = queue_.empty();
    queue_.push_back(std::move(line));
    ++handed_;
  }
  // The writer takes the whole queue at each wake-up: only a line into an empty queue may find it
  // waiting. A join into 1,000 members is then one wake-up, not 1,000.
  if (was_empty) wake_.notify_one();
}

void LineOutput::drain() {
  std::unique_lock lock(mutex_);
  const std::uint64_t target = handed_;
  written_.wait(lock, [&] { return done_ >= target || failed_; });
}

LineOutput::Counters LineOutput::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

void LineOutput::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left
    // One write per batch: a join into 1,000 members queues 1,000 lines at once.
    std::string text;
    std::size_t lines = 0;
    while (!queue_.empty()) {
      text += queue_.front();
      queue_.pop_front();
      ++lines;
    }
    const std::size_t bytes = text.size();
    if (unreported_drops_ > 0)
      text += "[" + name_ + "] " + std::to_string(std::exchange(unreported_drops_, 0)) +
              " event line(s) dropped: the reader of standard output fell " +
              std::to_string(kMaxPendingBytes >> 20) + " MiB behind\n";
    lock.unlock();
    const bool ok = write_all(fd_, text);
    lock.lock();
    counters_.pending -= bytes;
    done_ += lines;
    if (!ok) failed_ = true;
    written_.notify_all();
  }
}

std::string line_output_metrics_text(const LineOutput::Counters& c) {
  std::ostringstream out;
  write_counter(out, "vigil_output_lines_total", "Event lines handed to standard output.", c.lines);
  write_counter(out, "vigil_output_lines_dropped_total",
                "Event lines dropped: their reader was 4 MiB behind, or gone.", c.dropped);
  write_gauge(out, "vigil_output_pending_bytes",
              "Bytes of event lines waiting for the reader of standard output.", c.pending);
  return out.str();
}

}  // namespace vigil::native
