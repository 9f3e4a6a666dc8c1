// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <vigil/base/result.hpp>
#include <vigil/base/time.hpp>

namespace vigil::fencing {

// A fencing token: the generation of a lease. Every grant carries a larger one than all grants
// before it, so a resource can tell an old holder's request from a newer holder's by comparing
// two numbers. 0 is never issued; it means "no token".
using Token = std::uint64_t;

// A time-bounded grant of authority to one holder.
struct Lease {
  std::string holder;
  Token token = 0;
  Millis granted_at{0};
  Millis expires_at{0};  // the lease is live strictly before this instant

  bool live_at(Millis now) const { return now < expires_at; }
};

// Grants leases one at a time, each with a fencing token larger than every token it issued
// before. A new lease is granted only once the previous one has expired or been released; an
// expired lease cannot be renewed (its holder must acquire again, and gets a new token), so a
// token is never handed out twice and never goes down.
//
// The issuer only knows time through the `now` each call passes in, which must never go back.
// It is a single authority (in a real system a consensus group or a lock service that persists
// the last token); a holder's refusal or bad input comes back as an Error saying why.
//
// Nothing here reaches the resource: issuing token 42 does not by itself stop a write with 41.
// See FencedResource, and FencedResource::fence() for a resource that takes part in the hand-over.
class LeaseIssuer {
 public:
  // `last_issued` is the counter to resume from (a restarted issuer must resume from the token it
  // persisted, never from 0): the next grant carries last_issued + 1.
  static Result<LeaseIssuer> create(Millis lease_duration, Token last_issued = 0);

  // A new lease for `holder`, valid for lease_duration() from now, if no lease is live at `now`.
  // Refused while a lease is live (also to its own holder, who should renew()), when the tokens
  // are exhausted, or for an empty holder name.
  Result<Lease> acquire(Millis now, const std::string& holder);

  // Extends the holder's live lease to now + lease_duration(), keeping its token. Refused when
  // the lease named by (holder, token) is not the live one: expired, released or someone else's.
  Result<Lease> renew(Millis now, const std::string& holder, Token token);

  // Gives the live lease back early, so the next acquire() need not wait for its expiry.
  Status release(Millis now, const std::string& holder, Token token);

  // The lease live at `now`, if any (does not record `now`).
  std::optional<Lease> current(Millis now) const;
  // The latest lease granted, live or not; nullopt before the first grant.
  const std::optional<Lease>& latest() const { return lease_; }

  Token last_issued() const { return last_issued_; }
  Millis lease_duration() const { return duration_; }

 private:
  LeaseIssuer(Millis duration, Token last_issued)
      : duration_(duration), last_issued_(last_issued) {}

  Status advance_to(Millis now);  // refuses time that goes back
  Status check_holds(Millis now, const std::string& holder, Token token, const char* verb) const;

  Millis duration_;
  Token last_issued_;
  std::optional<Lease> lease_;
  bool released_ = false;  // lease_ was given back before its expiry
  Millis latest_now_{0};
  bool seen_time_ = false;
};

}  // namespace vigil::fencing
