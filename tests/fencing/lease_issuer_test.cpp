#include <doctest/doctest.h>

#include <limits>

#include <vigil/fencing/lease_issuer.hpp>

using namespace vigil;
using fencing::LeaseIssuer;

namespace {

LeaseIssuer issuer(std::int64_t lease_ms, fencing::Token last = 0) {
  auto i = LeaseIssuer::create(Millis{lease_ms}, last);
  REQUIRE(i);
  return std::move(i).value();
}

}  // namespace

TEST_CASE("fencing: LeaseIssuer: tokens go up with every grant, one live lease at a time") {
  auto is = issuer(1000, 40);
  CHECK(is.last_issued() == 40);
  CHECK(is.lease_duration() == Millis{1000});
  CHECK_FALSE(is.latest().has_value());

  auto a = is.acquire(Millis{0}, "a");
  REQUIRE(a);
  CHECK(a->token == 41);
  CHECK(a->holder == "a");
  CHECK(a->granted_at == Millis{0});
  CHECK(a->expires_at == Millis{1000});
  CHECK(a->live_at(Millis{999}));
  CHECK_FALSE(a->live_at(Millis{1000}));

  // Refused while a's lease is live, to b and to a itself.
  auto b = is.acquire(Millis{500}, "b");
  REQUIRE_FALSE(b);
  CHECK(b.error().message == "lease token 41 held by 'a' is live until 1000 ms");
  auto again = is.acquire(Millis{600}, "a");
  REQUIRE_FALSE(again);
  CHECK(again.error().message ==
        "lease token 41 held by 'a' is live until 1000 ms; its holder renews it instead");
  CHECK(is.last_issued() == 41);  // refusals issue nothing

  // At the expiry instant the lease is over: b gets the next token.
  CHECK(is.current(Millis{999}).has_value());
  CHECK_FALSE(is.current(Millis{1000}).has_value());
  auto b2 = is.acquire(Millis{1000}, "b");
  REQUIRE(b2);
  CHECK(b2->token == 42);
  CHECK(b2->expires_at == Millis{2000});
  REQUIRE(is.current(Millis{1500}));
  CHECK(is.current(Millis{1500})->holder == "b");
}

TEST_CASE("fencing: LeaseIssuer: renewal keeps the token and moves the expiry") {
  auto is = issuer(1000);
  auto a = is.acquire(Millis{0}, "a");
  REQUIRE(a);
  CHECK(a->token == 1);
  auto r = is.renew(Millis{800}, "a", 1);
  REQUIRE(r);
  CHECK(r->token == 1);
  CHECK(r->granted_at == Millis{0});
  CHECK(r->expires_at == Millis{1800});
  CHECK_FALSE(is.acquire(Millis{1500}, "b"));

  // Too late: an expired lease is not renewed, even if no one took over; a new grant gets 2.
  auto late = is.renew(Millis{1800}, "a", 1);
  REQUIRE_FALSE(late);
  CHECK(late.error().message ==
        "cannot renew token 1 for 'a': it expired at 1800 ms; acquire a new lease");
  auto a2 = is.acquire(Millis{1800}, "a");
  REQUIRE(a2);
  CHECK(a2->token == 2);
}

TEST_CASE("fencing: LeaseIssuer: only the live lease's holder renews or releases it") {
  auto is = issuer(1000, 40);
  REQUIRE(is.acquire(Millis{0}, "old"));
  REQUIRE(is.acquire(Millis{1000}, "new"));  // 42
  auto stale = is.renew(Millis{1100}, "old", 41);
  REQUIRE_FALSE(stale);
  CHECK(stale.error().message ==
        "cannot renew token 41 for 'old': superseded by token 42 held by 'new'");
  auto thief = is.renew(Millis{1100}, "old", 42);
  REQUIRE_FALSE(thief);
  CHECK(thief.error().message ==
        "cannot renew token 42 for 'old': the lease is token 42 held by 'new'");
  auto future = is.renew(Millis{1100}, "new", 43);
  REQUIRE_FALSE(future);
  CHECK(future.error().message == "cannot renew token 43 for 'new': this issuer never granted it");
  auto zero = is.release(Millis{1100}, "new", 0);
  REQUIRE_FALSE(zero);
  CHECK(zero.error().message == "cannot release token 0 for 'new': this issuer never granted it");
  CHECK(is.renew(Millis{1100}, "new", 42));
}

TEST_CASE("fencing: LeaseIssuer: release lets the next holder in before the expiry") {
  auto is = issuer(10'000);
  auto a = is.acquire(Millis{0}, "a");
  REQUIRE(a);
  REQUIRE(is.release(Millis{300}, "a", a->token));
  CHECK_FALSE(is.current(Millis{300}).has_value());
  REQUIRE(is.latest());
  CHECK(is.latest()->expires_at == Millis{300});
  auto twice = is.release(Millis{300}, "a", a->token);
  REQUIRE_FALSE(twice);
  CHECK(twice.error().message == "cannot release token 1 for 'a': it was released");
  CHECK_FALSE(is.renew(Millis{310}, "a", a->token));
  auto b = is.acquire(Millis{400}, "b");
  REQUIRE(b);
  CHECK(b->token == 2);  // never reused, never lower
  CHECK(b->expires_at == Millis{10'400});
}

TEST_CASE("fencing: LeaseIssuer: tokens never wrap around") {
  const auto max = std::numeric_limits<fencing::Token>::max();
  auto is = issuer(100, max - 1);
  auto last = is.acquire(Millis{0}, "a");
  REQUIRE(last);
  CHECK(last->token == max);
  auto none = is.acquire(Millis{100}, "b");
  REQUIRE_FALSE(none);
  CHECK(none.error().message ==
        "fencing tokens exhausted at 18446744073709551615: no larger token is left to grant");
  CHECK(is.last_issued() == max);
  CHECK_FALSE(is.current(Millis{100}).has_value());
}

TEST_CASE("fencing: LeaseIssuer: bad input is an error, not a crash") {
  auto zero = LeaseIssuer::create(Millis{0});
  REQUIRE_FALSE(zero);
  CHECK(zero.error().message == "the lease duration must be positive, got 0 ms");
  CHECK_FALSE(LeaseIssuer::create(Millis{-5}));

  auto is = issuer(1000);
  auto nameless = is.acquire(Millis{0}, "");
  REQUIRE_FALSE(nameless);
  CHECK(nameless.error().message == "a lease needs a holder name");
  CHECK(is.last_issued() == 0);

  REQUIRE(is.acquire(Millis{500}, "a"));
  auto back = is.acquire(Millis{400}, "b");
  REQUIRE_FALSE(back);
  CHECK(back.error().message ==
        "time went back: 400 ms is before 500 ms (the issuer needs a clock that never goes back)");
  CHECK_FALSE(is.renew(Millis{499}, "a", 1));
  CHECK(is.renew(Millis{500}, "a", 1));  // the same instant again is fine
}
