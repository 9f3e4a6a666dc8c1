#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>

#include <vigil/base/time.hpp>

namespace vigil::native {

// The HTTP server's open connections as its limits see them: who each one comes from, whether
// it is doing anything, and which one to close when a new connection needs the room.
//
// Why evict rather than refuse at the cap: connections that never send a request (a silent TCP
// connection, a TLS handshake left half done) or sit idle between requests would otherwise hold
// every place until their deadline, and a stranger who keeps opening them locks everyone else
// out. Closing the connection idle the longest lets a new client in at once; an abuser then has
// to open connections faster than a real client sends its request to keep anyone out.
class ConnectionTable {
 public:
  using Key = const void*;  // the server's handle of a connection
  struct Entry {
    std::string peer;          // the client's address, without the port
    bool loopback = false;     // the client is on this machine
    Millis idle_since{0};      // accepted, or its last answer completed, at this time
    std::size_t requests = 0;  // answered so far (an upgrade counts as one)
    bool upgraded = false;     // a WebSocket viewer now: not evicted as an idle connection
    Millis upgraded_at{0};
    bool busy = false;             // an answer or a file is being sent: never evicted
    std::size_t answer_bytes = 0;  // of an answer lws may hold for it (LwsHost::Load)
    bool evicted = false;          // closed to make room (counted as such, not as incomplete)
  };

  void add(Key key, std::string peer, Millis now);
  Entry* find(Key key);
  void remove(Key key);
  std::size_t size() const { return entries_.size(); }

  // The connection to close so that a new one fits: the one idle the longest among those
  // neither upgraded nor busy. Nothing if every connection is doing something.
  std::optional<Key> eviction_candidate() const;
  // With every viewer place taken, the viewer to close so that one from `newcomer` can come in:
  // the oldest of the address holding the most viewers, if that is at least two more than
  // `newcomer` holds (after the swap it still holds no fewer). Nothing otherwise: places are
  // shared out as evenly as the addresses asking for them allow, and one address alone may
  // hold them all while nobody else asks.
  std::optional<Key> viewer_to_evict(const std::string& newcomer) const;

 private:
  std::unordered_map<Key, Entry> entries_;
};

}  // namespace vigil::native
