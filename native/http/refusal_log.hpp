#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <vigil/base/time.hpp>

namespace vigil::native {

// Logs refusals by kind, at most one line per kind and interval with the count since the
// previous line: a flood of abusive requests must not become a flood of log lines. The first
// refusal of a quiet kind is logged at once; later ones wait for flush(). Time is passed in.
class RefusalLog {
 public:
  using Sink = std::function<void(const std::string& line)>;

  RefusalLog(Millis every, Sink sink) : every_(every), sink_(std::move(sink)) {}

  void note(const std::string& what, Millis now) {
    if (every_ <= Millis{0}) return;
    Kind& kind = kinds_[what];
    ++kind.pending;
    if (!kind.last_line || now - *kind.last_line >= every_) write(what, kind, now);
  }

  // Writes the lines whose interval has passed; returns when the next one falls due, if any.
  std::optional<Millis> flush(Millis now) {
    std::optional<Millis> next;
    for (auto& [what, kind] : kinds_) {
      if (kind.pending == 0) continue;
      const Millis due = *kind.last_line + every_;
      if (now >= due)
        write(what, kind, now);
      else if (!next || due < *next)
        next = due;
    }
    return next;
  }

 private:
  struct Kind {
    std::uint64_t pending = 0;
    std::optional<Millis> last_line;
  };

  void write(const std::string& what, Kind& kind, Millis now) {
    std::string line = "refused " + std::to_string(kind.pending) + " x " + what;
    if (kind.last_line)
      line += " in the last " + std::to_string((now - *kind.last_line).count() / 1000) + " s";
    sink_(line);
    kind.pending = 0;
    kind.last_line = now;
  }

  Millis every_;
  Sink sink_;
  std::map<std::string, Kind> kinds_;
};

}  // namespace vigil::native
