#include <vigil/sim/network.hpp>

#include <cmath>
#include <string>

namespace vigil::sim {

Status LinkModel::validate() const {
  if (!(loss >= 0.0 && loss <= 1.0))
    return Error{"loss probability must be in [0, 1], got " + std::to_string(loss)};
  return delay.validate();
}

Network::Network(std::size_t hosts, LinkModel default_link)
    : hosts_(hosts), default_link_(default_link) {}

Status Network::set_default_link(const LinkModel& link) {
  if (auto s = link.validate(); !s) return s;
  default_link_ = link;
  return ok_status();
}

Status Network::set_link(std::size_t from, std::size_t to, const LinkModel& link) {
  if (from >= hosts_ || to >= hosts_) return Error{"no such host"};
  if (auto s = link.validate(); !s) return s;
  for (auto& [key, value] : overrides_)
    if (key == std::pair{from, to}) {
      value = link;
      return ok_status();
    }
  overrides_.push_back({{from, to}, link});
  return ok_status();
}

const LinkModel& Network::link(std::size_t from, std::size_t to) const {
  for (const auto& [key, value] : overrides_)
    if (key.first == from && key.second == to) return value;
  return default_link_;
}

void Network::partition(const std::vector<std::vector<std::size_t>>& groups) {
  group_.assign(hosts_, static_cast<int>(groups.size()));
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t h : groups[g])
      if (h < hosts_) group_[h] = static_cast<int>(g);
}

void Network::heal() {
  group_.clear();
}

bool Network::connected(std::size_t from, std::size_t to) const {
  if (from >= hosts_ || to >= hosts_) return false;
  if (!group_.empty() && group_[from] != group_[to]) return false;
  return !is_blocked(from, to);
}

std::optional<Millis> Network::transmit(std::size_t from, std::size_t to, Rng& rng) const {
  if (!connected(from, to)) return std::nullopt;
  const LinkModel& l = link(from, to);
  if (l.loss > 0.0 && rng.chance(l.loss)) return std::nullopt;
  return Millis{std::llround(l.delay.sample(rng))};
}

}  // namespace vigil::sim
