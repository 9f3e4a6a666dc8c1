#include <vigil/fencing/stale_leader.hpp>

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

#include <vigil/fencing/fenced_resource.hpp>

namespace vigil::fencing {

namespace {

constexpr std::int64_t kMaxTicks = 10'000;  // write intervals from the pause to the end

const char* const kOld = "old leader";
const char* const kNew = "new leader";

std::string ms(Millis t) {
  return std::to_string(t.count()) + " ms";
}

std::string tok(Token t) {
  return std::to_string(t);
}

// At one instant: the issuer, then the new leader, then the old one; each in the order planned.
enum Rank { kIssuerRank = 0, kNewRank = 1, kOldRank = 2 };

enum class Step {
  old_acquire,
  old_tick,      // renew, then write (or, at the pause tick, renew and freeze)
  old_wake,      // wake and send the write that was pending
  expiry_check,  // the standby looks at the old lease's expiry
  new_acquire,
  new_tick,  // renew (after the first), then write
};

struct Planned {
  Millis at;
  int rank;
  std::uint64_t seq;
  Step step;
  int k;  // old_tick: the write number; new_tick: the tick number, 0 at the grant
};

class Simulation {
 public:
  Simulation(const StaleLeaderOptions& o, LeaseIssuer issuer)
      : o_(o),
        issuer_(std::move(issuer)),
        resource_(o.fencing ? Checking::fenced : Checking::unfenced) {
    r_.old_token = o.old_token;
    r_.pause_at = o.write_interval * (o.old_writes + 1);
    r_.wake_at = r_.pause_at + o.pause;
    r_.end = r_.wake_at + 2 * o.write_interval;
  }

  Result<StaleLeaderResult> run() {
    plan(Millis{0}, kOldRank, Step::old_acquire, 0);
    while (!agenda_.empty()) {
      auto next =
          std::min_element(agenda_.begin(), agenda_.end(), [](const auto& a, const auto& b) {
            return std::tie(a.at, a.rank, a.seq) < std::tie(b.at, b.rank, b.seq);
          });
      const Planned p = *next;
      agenda_.erase(next);
      if (auto s = perform(p); !s) return s.error();
    }
    finish();
    return std::move(r_);
  }

 private:
  void plan(Millis at, int rank, Step step, int k) {
    if (at <= r_.end) agenda_.push_back({at, rank, seq_++, step, k});
  }

  Event& emit(Millis at, Actor actor, Action action, Token token, Outcome outcome,
              std::string detail) {
    Event e;
    e.at = at;
    e.actor = actor;
    e.action = action;
    e.token = token;
    e.outcome = outcome;
    e.highest = resource_.highest();
    e.stored = resource_.value().value_or("");
    e.stored_token = resource_.value_token();
    e.detail = std::move(detail);
    r_.events.push_back(std::move(e));
    return r_.events.back();
  }

  // The old lease's expiry, watched by the standby; a renewal plans a later check.
  void watch_old_lease(const Lease& lease) {
    plan(lease.expires_at, kIssuerRank, Step::expiry_check, 0);
  }

  Status grant(Millis now, const char* who, Token* token) {
    auto lease = issuer_.acquire(now, who);
    if (!lease) return lease.error();
    *token = lease->token;
    emit(now, Actor::issuer, Action::grant, lease->token, Outcome::granted,
         "grants token " + tok(lease->token) + " to the " + who + ", valid until " +
             ms(lease->expires_at));
    return ok_status();
  }

  // Renews the leader's lease; false (after the events) when refused.
  bool renew(Millis now, Actor actor, const char* who, Token token) {
    auto lease = issuer_.renew(now, who, token);
    if (!lease) {
      emit(now, actor, Action::renew, token, Outcome::refused,
           "renewal refused: " + lease.error().message);
      return false;
    }
    emit(now, actor, Action::renew, token, Outcome::renewed,
         "renews token " + tok(token) + " until " + ms(lease->expires_at));
    if (actor == Actor::old_leader) watch_old_lease(*lease);
    return true;
  }

  Status write(Millis now, Actor actor, Token token, const std::string& value) {
    const Token stored_before = resource_.value_token();
    const std::string value_before = resource_.value().value_or("");
    auto out = resource_.write(token, value);
    if (!out) return out.error();
    std::string detail;
    if (out->accepted) {
      detail = "writes '" + value + "' with token " + tok(token) + ": accepted";
      if (resource_.checking() == Checking::unfenced && token < out->highest_before)
        detail += " (unfenced: token " + tok(token) + " is below " + tok(out->highest_before) +
                  ", unchecked)";
      if (stored_before > token && !value_before.empty())
        detail += ", overwriting '" + value_before + "' written with " + tok(stored_before);
    } else {
      detail = "writes '" + value + "' with token " + tok(token) + ": rejected, " + out->reason;
    }
    Event& e = emit(now, actor, Action::write, token,
                    out->accepted ? Outcome::accepted : Outcome::rejected, std::move(detail));
    e.value = value;
    return ok_status();
  }

  Status perform(const Planned& p) {
    const Millis now = p.at;
    const Millis interval = o_.write_interval;
    switch (p.step) {
      case Step::old_acquire: {
        if (auto s = grant(now, kOld, &old_token_); !s) return s;
        watch_old_lease(*issuer_.latest());
        plan(now + interval, kOldRank, Step::old_tick, 1);
        return ok_status();
      }
      case Step::old_tick: {
        if (!renew(now, Actor::old_leader, kOld, old_token_)) {
          emit(now, Actor::old_leader, Action::step_down, old_token_, Outcome::none,
               "learns it lost the lease and steps down");
          return ok_status();
        }
        if (p.k == o_.old_writes + 1) {
          emit(now, Actor::old_leader, Action::pause, old_token_, Outcome::none,
               "checked its lease, then freezes for " + ms(o_.pause) +
                   " (GC pause, SIGSTOP) before sending 'old-" + std::to_string(p.k) + "'");
          plan(r_.wake_at, kOldRank, Step::old_wake, p.k);
          return ok_status();
        }
        if (auto s = write(now, Actor::old_leader, old_token_, "old-" + std::to_string(p.k)); !s)
          return s;
        plan(now + interval, kOldRank, Step::old_tick, p.k + 1);
        return ok_status();
      }
      case Step::old_wake: {
        const auto live = issuer_.current(now);
        r_.stale_write = !(live && live->token == old_token_);
        emit(now, Actor::old_leader, Action::wake, old_token_, Outcome::none,
             "wakes after " + ms(o_.pause) + ", still believing it leads with token " +
                 tok(old_token_));
        const Token highest_before = resource_.highest();
        const Token stored_before = resource_.value_token();
        overwritten_ = resource_.value().value_or("");
        if (auto s = write(now, Actor::old_leader, old_token_, "old-" + std::to_string(p.k)); !s)
          return s;
        r_.wake_write = r_.events.size() - 1;
        const bool accepted = r_.events.back().outcome == Outcome::accepted;
        r_.stale_write_rejected = r_.stale_write && !accepted;
        if (r_.stale_write && accepted) {
          r_.lost_update = new_token_ != 0 && stored_before == new_token_;
          r_.issued_not_seen = o_.fencing && highest_before < new_token_;
        }
        plan(now + interval, kOldRank, Step::old_tick, p.k + 1);
        return ok_status();
      }
      case Step::expiry_check: {
        const auto& lease = issuer_.latest();
        // Only the old lease's own expiry, and only if no renewal has moved it since.
        if (!lease || lease->token != old_token_ || lease->expires_at != now) return ok_status();
        emit(now, Actor::issuer, Action::expire, old_token_, Outcome::expired,
             "token " + tok(old_token_) + " expires: the old leader has not renewed it");
        plan(now, kNewRank, Step::new_acquire, 0);
        return ok_status();
      }
      case Step::new_acquire: {
        if (auto s = grant(now, kNew, &new_token_); !s) return s;
        r_.handover = true;
        r_.handover_at = now;
        r_.new_token = new_token_;
        if (o_.resource_participates) {
          auto f = resource_.fence(new_token_);
          if (!f) return f.error();
          emit(now, Actor::resource, Action::fence, new_token_,
               f->raised ? Outcome::raised : Outcome::unchanged,
               "fenced by the issuer at the hand-over: highest " + tok(f->highest_before) + " -> " +
                   tok(f->highest_after) + ", before any write with " + tok(new_token_));
          if (f->raised && !first_seen_) first_seen_ = Seen{now, true};
        }
        plan(now, kNewRank, Step::new_tick, 0);
        return ok_status();
      }
      case Step::new_tick: {
        if (p.k > 0 && !renew(now, Actor::new_leader, kNew, new_token_)) return ok_status();
        const bool catching_up = !o_.new_leader_writes_first && now <= r_.wake_at;
        if (!catching_up) {
          if (auto s =
                  write(now, Actor::new_leader, new_token_, "new-" + std::to_string(++new_writes_));
              !s)
            return s;
          if (!first_seen_ && r_.events.back().outcome == Outcome::accepted)
            first_seen_ = Seen{now, false};
          new_write_times_.push_back(now);
        }
        plan(now + interval, kNewRank, Step::new_tick, p.k + 1);
        return ok_status();
      }
    }
    return ok_status();
  }

  void finish() {
    r_.accepted = resource_.accepted();
    r_.rejected = resource_.rejected();
    r_.highest = resource_.highest();
    r_.value = resource_.value().value_or("");
    r_.value_token = resource_.value_token();
    r_.summary = summarize();
  }

  std::string summarize() const {
    const std::string n = tok(old_token_), n1 = tok(new_token_);
    const std::string head = "old leader's write with token " + n;
    if (!r_.stale_write) {
      if (!r_.handover)
        return head + " accepted: the pause (" + ms(o_.pause) + ") ended within the lease (" +
               ms(o_.lease) + "), so it still led; no hand-over";
      return head + " accepted: its lease was still live when it woke; the lease expired at " +
             ms(r_.handover_at) + ", before its next renewal, and token " + n1 +
             " went to the new leader";
    }
    if (r_.stale_write_rejected) {
      std::string s = head + " rejected: resource has seen " + n1;
      if (first_seen_)
        s += first_seen_->by_fence
                 ? " (fenced by the issuer at the hand-over, " + ms(first_seen_->at) + ")"
                 : " (the new leader's write at " + ms(first_seen_->at) + ")";
      return s;
    }
    if (!o_.fencing) {
      if (r_.lost_update)
        return "fencing off: " + head + " accepted and overwrote the new leader's '" +
               overwritten_ + "' (lost update)";
      return "fencing off: " + head + " accepted while token " + n1 + " held the lease";
    }
    std::string s = head + " accepted: token " + n1 + " was issued at " + ms(r_.handover_at) +
                    " but the resource had not seen it yet";
    const auto later = std::find_if(new_write_times_.begin(), new_write_times_.end(),
                                    [&](Millis t) { return t > r_.wake_at; });
    if (later != new_write_times_.end())
      s += " (the new leader's first write with " + n1 + " came at " + ms(*later) + ")";
    return s;
  }

  struct Seen {
    Millis at;
    bool by_fence;
  };

  StaleLeaderOptions o_;
  LeaseIssuer issuer_;
  FencedResource resource_;
  StaleLeaderResult r_;
  std::vector<Planned> agenda_;
  std::uint64_t seq_ = 0;
  Token old_token_ = 0, new_token_ = 0;
  int new_writes_ = 0;
  std::string overwritten_;         // the value the old leader's wake write replaced
  std::optional<Seen> first_seen_;  // when the resource first held the new token
  std::vector<Millis> new_write_times_;
};

}  // namespace

const char* actor_name(Actor actor) {
  switch (actor) {
    case Actor::issuer:
      return "issuer";
    case Actor::old_leader:
      return kOld;
    case Actor::new_leader:
      return kNew;
    case Actor::resource:
      return "resource";
  }
  return "?";
}

const char* action_name(Action action) {
  switch (action) {
    case Action::grant:
      return "grant";
    case Action::renew:
      return "renew";
    case Action::expire:
      return "expire";
    case Action::fence:
      return "fence";
    case Action::write:
      return "write";
    case Action::pause:
      return "pause";
    case Action::wake:
      return "wake";
    case Action::step_down:
      return "step down";
  }
  return "?";
}

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::none:
      return "";
    case Outcome::granted:
      return "granted";
    case Outcome::renewed:
      return "renewed";
    case Outcome::refused:
      return "refused";
    case Outcome::expired:
      return "expired";
    case Outcome::raised:
      return "raised";
    case Outcome::unchanged:
      return "unchanged";
    case Outcome::accepted:
      return "accepted";
    case Outcome::rejected:
      return "rejected";
  }
  return "?";
}

Status StaleLeaderOptions::validate() const {
  namespace p = stale_leader_param;
  // As doubles, every value is either exact or far outside its range.
  for (auto [spec, v] : {std::pair{&p::lease, static_cast<double>(lease.count())},
                         {&p::pause, static_cast<double>(pause.count())},
                         {&p::interval, static_cast<double>(write_interval.count())},
                         {&p::old_writes, static_cast<double>(old_writes)},
                         {&p::token, static_cast<double>(old_token)}})
    if (auto s = spec->check(v); !s) return s;
  if (lease <= write_interval)
    return Error{"--lease (" + ms(lease) + ") must be longer than --interval (" +
                 ms(write_interval) + "): a leader renews its lease at every write"};
  if (pause.count() / write_interval.count() > kMaxTicks)
    return Error{"--pause / --interval is " +
                 std::to_string(pause.count() / write_interval.count()) +
                 ", more write intervals than the timeline lists (10000); raise --interval or "
                 "shorten --pause"};
  return ok_status();
}

Result<StaleLeaderResult> run_stale_leader(const StaleLeaderOptions& options) {
  if (auto s = options.validate(); !s) return s.error();
  // The issuer resumes from old_token - 1, so the old leader's grant carries old_token.
  auto issuer = LeaseIssuer::create(options.lease, options.old_token - 1);
  if (!issuer) return issuer.error();
  return Simulation(options, std::move(issuer).value()).run();
}

}  // namespace vigil::fencing
