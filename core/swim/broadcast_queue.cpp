#include <vigil/swim/broadcast_queue.hpp>

#include <cmath>
#include <limits>

namespace vigil::swim {

int retransmit_limit(int retransmit_mult, std::size_t cluster_size) {
  const int scale =
      static_cast<int>(std::ceil(std::log10(static_cast<double>(cluster_size) + 1.0)));
  return retransmit_mult * scale;
}

void BroadcastQueue::queue(const std::string& member, wire::Bytes message) {
  if (auto it = by_member_.find(member); it != by_member_.end()) {
    items_.erase(it->second);
    by_member_.erase(it);
  }
  const std::size_t length = message.size();
  auto [pos, inserted] = items_.insert(Item{0, length, next_id_++, member, std::move(message)});
  by_member_.emplace(member, pos);
}

std::vector<wire::Bytes> BroadcastQueue::take(std::size_t overhead, std::size_t budget,
                                              int transmit_limit, std::size_t max_parts) {
  std::vector<wire::Bytes> out;
  if (items_.empty()) return out;
  std::vector<Item> resend;
  std::size_t used = 0;
  // In (transmits, largest first) order: within a tier the first item that fits is the largest
  // that fits, as in memberlist, and a search finds it without walking past the ones that do not.
  auto it = items_.begin();
  while (it != items_.end() && used + overhead < budget && out.size() < max_parts) {
    const std::size_t free = budget - used - overhead;
    const int tier = it->transmits;
    it = items_.lower_bound(Key{tier, free, std::numeric_limits<std::uint64_t>::max()});
    if (it == items_.end()) break;
    if (it->transmits != tier) continue;  // nothing in this tier fits: on to the next one
    used += overhead + it->length;
    Item item = std::move(items_.extract(it++).value());
    by_member_.erase(item.member);
    out.push_back(item.message);
    if (++item.transmits < transmit_limit) resend.push_back(std::move(item));
  }
  // Re-queued after the pass so that an item is not met again in a later tier.
  for (auto& item : resend) {
    const std::string member = item.member;
    auto [pos, inserted] = items_.insert(std::move(item));
    by_member_.emplace(member, pos);
  }
  return out;
}

void BroadcastQueue::clear() {
  items_.clear();
  by_member_.clear();
}

}  // namespace vigil::swim
