#include <vigil/fencing/lease_issuer.hpp>

#include <limits>

namespace vigil::fencing {

namespace {

std::string ms(Millis t) {
  return std::to_string(t.count()) + " ms";
}

std::string describe(const Lease& lease) {
  return "token " + std::to_string(lease.token) + " held by '" + lease.holder + "'";
}

}  // namespace

Result<LeaseIssuer> LeaseIssuer::create(Millis lease_duration, Token last_issued) {
  if (lease_duration <= Millis{0})
    return Error{"the lease duration must be positive, got " + ms(lease_duration)};
  return LeaseIssuer(lease_duration, last_issued);
}

Status LeaseIssuer::advance_to(Millis now) {
  if (seen_time_ && now < latest_now_)
    return Error{"time went back: " + ms(now) + " is before " + ms(latest_now_) +
                 " (the issuer needs a clock that never goes back)"};
  latest_now_ = now;
  seen_time_ = true;
  return ok_status();
}

std::optional<Lease> LeaseIssuer::current(Millis now) const {
  if (lease_ && !released_ && lease_->live_at(now)) return lease_;
  return std::nullopt;
}

Result<Lease> LeaseIssuer::acquire(Millis now, const std::string& holder) {
  if (holder.empty()) return Error{"a lease needs a holder name"};
  if (auto s = advance_to(now); !s) return s.error();
  if (auto live = current(now))
    return Error{"lease " + describe(*live) + " is live until " + ms(live->expires_at) +
                 (live->holder == holder ? "; its holder renews it instead" : "")};
  // Never wrap around: a token that went back to 1 would let every old holder write again.
  if (last_issued_ == std::numeric_limits<Token>::max())
    return Error{"fencing tokens exhausted at " + std::to_string(last_issued_) +
                 ": no larger token is left to grant"};
  lease_ = Lease{holder, ++last_issued_, now, now + duration_};
  released_ = false;
  return *lease_;
}

Status LeaseIssuer::check_holds(Millis now, const std::string& holder, Token token,
                                const char* verb) const {
  const std::string what =
      "cannot " + std::string(verb) + " token " + std::to_string(token) + " for '" + holder + "': ";
  if (!lease_ || token == 0 || token > last_issued_)
    return Error{what + "this issuer never granted it"};
  if (lease_->token != token || lease_->holder != holder) {
    if (token < lease_->token) return Error{what + "superseded by " + describe(*lease_)};
    return Error{what + "the lease is " + describe(*lease_)};
  }
  if (released_) return Error{what + "it was released"};
  if (!lease_->live_at(now))
    return Error{what + "it expired at " + ms(lease_->expires_at) + "; acquire a new lease"};
  return ok_status();
}

Result<Lease> LeaseIssuer::renew(Millis now, const std::string& holder, Token token) {
  if (auto s = advance_to(now); !s) return s.error();
  if (auto s = check_holds(now, holder, token, "renew"); !s) return s.error();
  lease_->expires_at = now + duration_;
  return *lease_;
}

Status LeaseIssuer::release(Millis now, const std::string& holder, Token token) {
  if (auto s = advance_to(now); !s) return s.error();
  if (auto s = check_holds(now, holder, token, "release"); !s) return s.error();
  released_ = true;
  lease_->expires_at = now;  // latest() shows when it ended
  return ok_status();
}

}  // namespace vigil::fencing
