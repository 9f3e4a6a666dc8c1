// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/time.hpp>
#include <vigil/fencing/lease_issuer.hpp>
#include <vigil/fencing/params.hpp>

namespace vigil::fencing {

// The stale leader: why a failure detector's verdict is no authority to write.
//
// The old leader takes a lease with token N at 0 ms and, every write_interval, renews it and
// writes ("old-1", "old-2", ...). After old_writes writes it renews once more and is paused (a
// GC pause, SIGSTOP, a VM migration) between that lease check and its next write. If the pause
// outlasts the lease, the lease expires at E = pause start + lease; a standby waiting for it takes
// token N + 1 at E and from then on renews and writes every write_interval ("new-1", ...). When
// the old leader wakes it still believes it leads and sends the write it was about to make, with
// token N; at its next tick its renewal is refused and it steps down. The run ends two write
// intervals after the wake.
//
// At one instant the issuer acts first, then the new leader, then the old one. With
// new_leader_writes_first off, the new leader makes no write at or before the wake (it is still
// catching up): the old write then meets a resource that has never seen N + 1.
//
// Defaults and ranges: fencing::stale_leader_param.
struct StaleLeaderOptions {
  Millis lease{static_cast<Millis::rep>(stale_leader_param::lease.def)};
  Millis pause{static_cast<Millis::rep>(stale_leader_param::pause.def)};  // the old leader frozen
  Millis write_interval{static_cast<Millis::rep>(stale_leader_param::interval.def)};
  // Writes the old leader makes before the pause.
  int old_writes = static_cast<int>(stale_leader_param::old_writes.def);
  // The old leader's token; the new leader's is old_token + 1.
  Token old_token = static_cast<Token>(stale_leader_param::token.def);
  bool new_leader_writes_first = true;
  bool fencing = true;                 // off: the resource ignores tokens (Checking::unfenced)
  bool resource_participates = false;  // the issuer fences the resource with N + 1 at the grant

  Status validate() const;
};

enum class Actor { issuer, old_leader, new_leader, resource };
enum class Action { grant, renew, expire, fence, write, pause, wake, step_down };
enum class Outcome {
  none,
  granted,
  renewed,
  refused,
  expired,
  raised,
  unchanged,
  accepted,
  rejected
};

// "issuer", "old leader", "new leader", "resource"; "grant", "renew", ...; "accepted", ...
const char* actor_name(Actor actor);
const char* action_name(Action action);
const char* outcome_name(Outcome outcome);

struct Event {
  Millis at{0};
  Actor actor = Actor::issuer;
  Action action = Action::grant;
  Token token = 0;  // the token concerned; 0 for none
  Outcome outcome = Outcome::none;
  std::string value;       // for a write: the value sent
  Token highest = 0;       // the resource's highest token seen, after the event
  std::string stored;      // the resource's value after the event ("" before any write)
  Token stored_token = 0;  // the token of the write that stored it
  std::string detail;      // one sentence for people
};

struct StaleLeaderResult {
  std::vector<Event> events;  // in time order
  Millis end{0};              // the last instant of the run
  Millis pause_at{0}, wake_at{0};
  Token old_token = 0;
  Token new_token = 0;    // 0 without a hand-over
  bool handover = false;  // the lease expired during the pause and went to the new leader
  Millis handover_at{0};  // when N + 1 was granted
  // The old leader's write on waking; "stale" when the lease had gone to the new leader.
  std::size_t wake_write = 0;  // its index in events
  bool stale_write = false;
  bool stale_write_rejected = false;
  // The stale write replaced a value the new leader had written: that update is lost.
  bool lost_update = false;
  // The stale write was accepted by a fencing resource: N + 1 issued but not yet seen by it.
  bool issued_not_seen = false;
  std::uint64_t accepted = 0;  // writes the resource accepted / rejected
  std::uint64_t rejected = 0;
  Token highest = 0;  // the resource at the end
  std::string value;
  Token value_token = 0;
  std::string summary;  // what happened, in one sentence
};

// Deterministic: the same options give the same events, in the browser and on the command line.
Result<StaleLeaderResult> run_stale_leader(const StaleLeaderOptions& options);

}  // namespace vigil::fencing
