#include <vigil/gossip/heartbeat_cluster.hpp>

#include <string>

namespace vigil::gossip {

Status HeartbeatConfig::validate() const {
  namespace p = membership_param;
  if (auto s = p::nodes.check(static_cast<double>(nodes)); !s) return s;
  if (auto s = p::fanout.check(fanout); !s) return s;
  if (auto s = p::t_fail.check(t_fail); !s) return s;
  if (auto s = p::t_cleanup.check(t_cleanup); !s) return s;
  if (t_cleanup != 0 && t_cleanup < t_fail)
    return Error{"--tcleanup must be at least --tfail (" + std::to_string(t_fail) +
                 "), or 0 for twice --tfail"};
  return p::loss.check(loss);
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
