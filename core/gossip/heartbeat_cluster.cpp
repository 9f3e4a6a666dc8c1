#include <vigil/gossip/heartbeat_cluster.hpp>

#include <string>

namespace vigil::gossip {

namespace {

// Every member holds a list of n entries and receives ~fanout lists a round: n² memory and
// n²·fanout work per round, which stays interactive up to a few thousand members.
constexpr std::size_t kMaxNodes = 2000;
constexpr int kMaxFanout = 100;
constexpr int kMaxRounds = 100000;

}  // namespace

Status HeartbeatConfig::validate() const {
  if (nodes < 2 || nodes > kMaxNodes) return Error{"--nodes must be between 2 and 2000"};
  if (fanout < 1 || fanout > kMaxFanout) return Error{"--fanout must be between 1 and 100"};
  if (t_fail < 1 || t_fail > kMaxRounds) return Error{"--tfail must be between 1 and 100000"};
  if (t_cleanup != 0 && (t_cleanup < t_fail || t_cleanup > kMaxRounds))
    return Error{"--tcleanup must be at least --tfail (" + std::to_string(t_fail) +
                 ") and at most 100000, or 0 for twice --tfail"};
  if (!(loss >= 0.0 && loss < 1.0))
    return Error{"--loss must be in [0, 1), got " + std::to_string(loss)};
  return ok_status();
}

Result<HeartbeatCluster> HeartbeatCluster::create(const HeartbeatConfig& config) {
  if (auto s = config.validate(); !s) return s.error();
  return HeartbeatCluster(config);
}

HeartbeatCluster::HeartbeatCluster(const HeartbeatConfig& config)
    : config_(config),
      n_(config.nodes),
      cleanup_(config.cleanup_rounds()),
      up_(n_, 1),
      counter_(n_ * n_, 0),
      grown_(n_ * n_, 0),
      sent_(n_ * n_, 0) {}

void HeartbeatCluster::crash(std::size_t member) {
  if (member < n_) up_[member] = 0;
}

Verdict HeartbeatCluster::verdict(std::size_t observer, std::size_t member) const {
  if (observer == member) return Verdict::alive;
  const int quiet = round_ - last_grown(observer, member);
  if (quiet >= cleanup_) return Verdict::removed;
  if (quiet >= config_.t_fail) return Verdict::failed;
  return Verdict::alive;
}

void HeartbeatCluster::step(Rng& rng) {
  const int r = ++round_;
  for (std::size_t i = 0; i < n_; ++i) {
    if (!up_[i]) continue;
    counter_[i * n_ + i] += 1;
    grown_[i * n_ + i] = r;
  }
  // Lists leave as they stood when the round began, so news moves one hop per round whatever
  // order the messages are processed in. Removed entries go out as 0, which never wins a merge.
  for (std::size_t k = 0; k < n_ * n_; ++k)
    sent_[k] = (r - grown_[k] >= cleanup_) ? 0 : counter_[k];

  const auto n32 = static_cast<std::uint32_t>(n_);
  const bool lossy = config_.loss > 0.0;
  for (std::size_t s = 0; s < n_; ++s) {
    if (!up_[s]) continue;
    const std::uint32_t* list = &sent_[s * n_];
    for (int k = 0; k < config_.fanout; ++k) {
      std::uint32_t t = rng.below(n32 - 1);
      if (t >= s) ++t;
      ++messages_;
      if (!up_[t] || (lossy && rng.chance(config_.loss))) continue;
      std::uint32_t* mine = &counter_[t * n_];
      std::int32_t* grown = &grown_[t * n_];
      for (std::size_t j = 0; j < n_; ++j) {
        if (list[j] > mine[j]) {
          mine[j] = list[j];
          grown[j] = r;
        }
      }
    }
  }
}

std::uint64_t HeartbeatCluster::false_suspicions() const {
  const int t_fail = config_.t_fail;
  std::uint64_t count = 0;
  for (std::size_t i = 0; i < n_; ++i) {
    if (!up_[i]) continue;
    const std::int32_t* grown = &grown_[i * n_];
    for (std::size_t j = 0; j < n_; ++j)
      if (j != i && up_[j] && round_ - grown[j] >= t_fail) ++count;
  }
  return count;
}

bool HeartbeatCluster::all_hold_failed(std::size_t member) const {
  for (std::size_t i = 0; i < n_; ++i)
    if (i != member && up_[i] && verdict(i, member) == Verdict::alive) return false;
  return true;
}

}  // namespace vigil::gossip
