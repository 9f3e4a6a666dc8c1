#include "http/connection_table.hpp"

#include <string_view>

namespace vigil::native {

void ConnectionTable::add(Key key, std::string peer, Millis now) {
  Entry& e = entries_[key];
  e = Entry{};
  e.peer = std::move(peer);
  e.idle_since = now;
}

ConnectionTable::Entry* ConnectionTable::find(Key key) {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

void ConnectionTable::remove(Key key) {
  entries_.erase(key);
}

std::optional<ConnectionTable::Key> ConnectionTable::eviction_candidate() const {
  std::optional<Key> oldest;
  Millis since{0};
  // A linear scan: the table holds at most a few hundred connections, and it runs only when
  // the server is full.
  for (const auto& [key, e] : entries_) {
    if (e.upgraded || e.busy || e.evicted) continue;
    if (!oldest || e.idle_since < since) {
      oldest = key;
      since = e.idle_since;
    }
  }
  return oldest;
}

std::optional<ConnectionTable::Key> ConnectionTable::viewer_to_evict(
    const std::string& newcomer) const {
  std::unordered_map<std::string_view, std::size_t> viewers;
  for (const auto& [key, e] : entries_)
    if (e.upgraded) ++viewers[e.peer];
  std::string_view crowded;
  std::size_t most = 0;
  for (const auto& [peer, n] : viewers)
    if (n > most || (n == most && peer < crowded)) {
      crowded = peer;
      most = n;
    }
  const auto mine = viewers.find(newcomer);
  const std::size_t held = mine == viewers.end() ? 0 : mine->second;
  if (most < held + 2) return std::nullopt;
  std::optional<Key> oldest;
  Millis since{0};
  for (const auto& [key, e] : entries_)
    if (e.upgraded && e.peer == crowded && (!oldest || e.upgraded_at < since)) {
      oldest = key;
      since = e.upgraded_at;
    }
  return oldest;
}

}  // namespace vigil::native
