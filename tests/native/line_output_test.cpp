#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>
#include <csignal>
#include <string>
#include <thread>
#include <utility>

#include "agent/line_output.hpp"

using vigil::native::LineOutput;

namespace {

struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    if (read >= 0) ::close(read);
    if (write >= 0) ::close(write);
  }
  // Everything the pipe holds until its write end is closed.
  std::string read_all() {
    std::string text;
    char buf[65536];
    for (ssize_t n; (n = ::read(read, buf, sizeof buf)) != 0;)
      if (n > 0) text.append(buf, static_cast<std::size_t>(n));
    return text;
  }
};

std::string numbered(int i) {
  return "line " + std::to_string(i) + " " + std::string(40, 'x') + "\n";
}

}  // namespace

TEST_CASE("lines reach the reader in order, each once, and a clean stop loses none") {
  Pipe p;
  std::string expected;
  {
    LineOutput out(p.write, "a");
    for (int i = 0; i < 1000; ++i) {
      out.write(numbered(i));
      expected += numbered(i);
    }
  }  // the destructor writes what is still waiting
  ::close(std::exchange(p.write, -1));
  CHECK(p.read_all() == expected);
}

TEST_CASE(
    "a reader that stops reading never blocks the writer; what is over the limit is dropped, "
    "counted and reported") {
  Pipe p;
  const int kLines = 200'000;  // about 9.6 MB: more than the limit plus what a pipe holds
  std::uint64_t dropped = 0;
  {
    LineOutput out(p.write, "a");
    // Nothing reads the pipe while these are written: were write() to wait for the reader,
    // this loop would never end (and ctest's timeout would fail the test).
    for (int i = 0; i < kLines; ++i) out.write(numbered(i));
    const auto c = out.counters();
    CHECK(c.lines == kLines);
    CHECK(c.dropped > 0);
    CHECK(c.pending <= LineOutput::kMaxPendingBytes);
    // What the pipe cannot take is still waiting, up to the limit.
    CHECK(c.pending > LineOutput::kMaxPendingBytes - 2 * numbered(kLines).size() - 70'000);
    dropped = c.dropped;
    // The reader catches up: everything accepted is written, with one line for the rest.
    std::string text;
    std::thread reader([&] { text = p.read_all(); });
    out.drain();
    CHECK(out.counters().pending == 0);
    ::close(std::exchange(p.write, -1));
    reader.join();
    const std::string report = "[a] " + std::to_string(dropped) +
                               " event line(s) dropped: the reader of standard output fell 4 MiB "
                               "behind\n";
    const auto at = text.find(report);
    REQUIRE(at != std::string::npos);
    // Lines kept their order: the ones before the drop, then (after the report) none of the
    // dropped ones, and every written line is either in the text or counted as dropped.
    const std::string body = text.substr(0, at) + text.substr(at + report.size());
    std::size_t count = 0, last = 0;
    bool ordered = true;
    for (std::size_t pos = 0; (pos = body.find("line ", pos)) != std::string::npos; ++count) {
      const std::size_t n = std::stoul(body.substr(pos + 5));
      if (count > 0 && n <= last) ordered = false;
      last = n;
      pos += 5;
    }
    CHECK(ordered);
    CHECK(count + dropped == static_cast<std::uint64_t>(kLines));
  }
}

TEST_CASE("a reader that is gone: lines are counted as dropped, nothing blocks or crashes") {
  Pipe p;
  ::close(std::exchange(p.read, -1));  // writes now fail with EPIPE (SIGPIPE ignored below)
  const auto old = std::signal(SIGPIPE, SIG_IGN);
  {
    LineOutput out(p.write, "a");
    out.write(numbered(0));
    out.drain();
    for (int i = 1; i < 100; ++i) out.write(numbered(i));
    CHECK(out.counters().lines == 100);
    CHECK(out.counters().dropped == 99);
  }
  std::signal(SIGPIPE, old);
}
