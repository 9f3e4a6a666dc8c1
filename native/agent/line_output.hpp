#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace vigil::native {

// The agent's event lines on its standard output, written by a thread of their own. A reader
// that stops reading (a full pipe, a stalled log collector, a terminal on hold) then stalls only
// that thread: the protocol loop goes on answering pings instead of blocking in write() and being
// declared dead by everyone else. What waits is bounded: past kMaxPendingBytes lines are dropped,
// counted, and reported in one line once the reader catches up.
class LineOutput {
 public:
  static constexpr std::size_t kMaxPendingBytes = 4u << 20;

  struct Counters {
    std::uint64_t lines = 0;    // handed to write()
    std::uint64_t dropped = 0;  // over the limit
    std::size_t pending = 0;    // bytes waiting now
  };

  // Writes to `fd` (not owned). `name` prefixes the report of dropped lines.
  LineOutput(int fd, std::string name);
  // Writes what is still waiting, then stops: a clean exit loses no line.
  ~LineOutput();
  LineOutput(const LineOutput&) = delete;
  LineOutput& operator=(const LineOutput&) = delete;

  // `line` ends in '\n'. Never blocks on the reader.
  void write(std::string line);
  // Returns once everything handed over before the call is written (or the output failed).
  void drain();
  Counters counters() const;

 private:
  void run();

  const int fd_;
  const std::string name_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;     // work for the writer, or stop
  std::condition_variable written_;  // the writer finished a batch
  std::deque<std::string> queue_;
  Counters counters_;
  std::uint64_t unreported_drops_ = 0;
  std::uint64_t handed_ = 0, done_ = 0;  // lines handed over / written or given up
  bool stopping_ = false;
  bool failed_ = false;  // the reader went away: lines are counted and discarded
  std::thread writer_;
};

// The Prometheus lines for standard output (called at the end of metrics_text).
std::string line_output_metrics_text(const LineOutput::Counters& counters);

}  // namespace vigil::native
