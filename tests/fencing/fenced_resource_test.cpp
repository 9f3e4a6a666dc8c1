#include <doctest/doctest.h>

#include <limits>

#include <vigil/fencing/fenced_resource.hpp>

using namespace vigil;
using fencing::Checking;
using fencing::FencedResource;

namespace {

// The stale-leader story's resource, one call each: true when the write was accepted.
bool write(FencedResource& r, fencing::Token token, const std::string& value) {
  auto out = r.write(token, value);
  REQUIRE(out);
  return out->accepted;
}

}  // namespace

TEST_CASE("fencing: FencedResource: 41 then 42 then a late 41") {
  FencedResource r;
  CHECK(r.highest() == 0);
  CHECK_FALSE(r.value().has_value());
  CHECK(write(r, 41, "old"));
  CHECK(write(r, 42, "new"));
  CHECK_FALSE(write(r, 41, "late-old"));
  CHECK(r.value() == "new");
  CHECK(write(r, 42, "new-again"));  // the same lease may write again and again
  CHECK(r.value() == "new-again");
  CHECK(r.highest() == 42);
  CHECK(r.value_token() == 42);
  CHECK(r.accepted() == 3);
  CHECK(r.rejected() == 1);
}

TEST_CASE(
    "fencing: FencedResource: a token issued but not yet seen fences "
    "nothing") {
  FencedResource r2;
  CHECK(write(r2, 41, "old"));
  const fencing::Token issued_token = 42;  // granted by the issuer; the resource knows nothing
  CHECK(write(r2, 41, "late-but-before-fence"));
  CHECK(r2.value() == "late-but-before-fence");
  CHECK(write(r2, issued_token, "new"));
  CHECK_FALSE(write(r2, 41, "now-rejected"));
  CHECK(r2.value() == "new");
  CHECK(r2.highest() == 42);
}

TEST_CASE("fencing: FencedResource: a rejection says why and changes nothing") {
  FencedResource r;
  REQUIRE(write(r, 42, "new"));
  auto out = r.write(41, "late-old");
  REQUIRE(out);
  CHECK_FALSE(out->accepted);
  CHECK(out->token == 41);
  CHECK(out->highest_before == 42);
  CHECK(out->highest_after == 42);
  CHECK(out->reason == "token 41 is below the highest seen, 42");
  CHECK(r.value() == "new");
  CHECK(r.value_token() == 42);

  auto ok = r.write(43, "newer");
  REQUIRE(ok);
  CHECK(ok->accepted);
  CHECK(ok->reason.empty());
  CHECK(ok->highest_before == 42);
  CHECK(ok->highest_after == 43);
}

TEST_CASE("fencing: FencedResource: the resource taking part in the hand-over rejects at once") {
  FencedResource r;
  REQUIRE(write(r, 41, "old"));
  // The issuer grants 42 and tells the resource before the new holder writes anything.
  auto f = r.fence(42);
  REQUIRE(f);
  CHECK(f->raised);
  CHECK(f->highest_before == 41);
  CHECK(f->highest_after == 42);
  CHECK(r.value() == "old");  // fencing writes nothing
  CHECK(r.value_token() == 41);
  CHECK_FALSE(write(r, 41, "late-but-before-fence"));
  CHECK(write(r, 42, "new"));
  CHECK(r.value() == "new");

  // Fencing with a token that is not higher changes nothing.
  auto lower = r.fence(40);
  REQUIRE(lower);
  CHECK_FALSE(lower->raised);
  CHECK(r.highest() == 42);
  auto same = r.fence(42);
  REQUIRE(same);
  CHECK_FALSE(same->raised);
}

TEST_CASE("fencing: FencedResource: unfenced, every write lands, which loses updates") {
  FencedResource r(Checking::unfenced);
  CHECK(r.checking() == Checking::unfenced);
  REQUIRE(write(r, 41, "old"));
  REQUIRE(write(r, 42, "new"));
  CHECK(write(r, 41, "late-old"));  // accepted: the newer holder's value is gone
  CHECK(r.value() == "late-old");
  CHECK(r.value_token() == 41);
  CHECK(r.highest() == 42);  // still recorded, just never checked
  CHECK(r.rejected() == 0);
}

TEST_CASE("fencing: FencedResource: token 0 is no token") {
  FencedResource r;
  auto w = r.write(0, "x");
  REQUIRE_FALSE(w);
  CHECK(w.error().message == "a write needs a fencing token (tokens start at 1)");
  CHECK(r.accepted() + r.rejected() == 0);
  CHECK_FALSE(r.value().has_value());
  auto f = r.fence(0);
  REQUIRE_FALSE(f);
  CHECK(f.error().message == "fence needs a token (tokens start at 1)");
}

TEST_CASE("fencing: FencedResource: the largest token still compares") {
  FencedResource r;
  const auto max = std::numeric_limits<fencing::Token>::max();
  CHECK(write(r, max, "last"));
  CHECK(write(r, max, "last-again"));
  CHECK_FALSE(write(r, max - 1, "older"));
  CHECK(r.highest() == max);
}
