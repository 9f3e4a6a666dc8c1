#include "agent/join_retry.hpp"

#include "cli/duration.hpp"

namespace vigil::native {

int JoinRetry::start() {
  waiting_ = false;
  return ++attempts_;
}

JoinRetry::Next JoinRetry::finish(Millis now, bool joined) {
  if (joined) return Next::joined;
  if (max_attempts_ > 0 && attempts_ >= max_attempts_) return Next::give_up;
  waiting_ = true;
  next_at_ = now + interval_;
  return Next::retry;
}

std::string join_log_line(int attempt, const JoinRetry& retry, const swim::JoinResult& result,
                          const std::vector<UnresolvedSeed>& unresolved, JoinRetry::Next next) {
  std::string failures;
  auto add = [&failures](const std::string& item) {
    failures += (failures.empty() ? "" : "; ") + item;
  };
  for (const auto& f : result.failures) add(f.seed.to_string() + ": " + f.reason);
  for (const auto& u : unresolved) add(u.seed + ": cannot resolve (" + u.reason + ")");

  std::string line = "join attempt " + std::to_string(attempt);
  if (retry.max_attempts() > 0) line += "/" + std::to_string(retry.max_attempts());
  if (next == JoinRetry::Next::joined) {
    std::string answered;
    for (const auto& a : result.contacted)
      answered += (answered.empty() ? "" : ", ") + a.to_string();
    line += " succeeded: " + answered + " answered";
    if (!failures.empty()) line += " (and " + failures + ")";
    return line;
  }
  line += " failed: " + (failures.empty() ? std::string("no seed to try") : failures);
  if (next == JoinRetry::Next::retry)
    line += "; next attempt in " + cli::duration_text(retry.interval());
  else
    line +=
        "; giving up after " + std::to_string(attempt) + (attempt == 1 ? " attempt" : " attempts");
  return line;
}

}  // namespace vigil::native
