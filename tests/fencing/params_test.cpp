#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <vigil/fencing/params.hpp>
#include <vigil/fencing/stale_leader.hpp>
#include "support/param_spec_checks.hpp"

using namespace vigil;
using namespace vigil::fencing;
namespace param = vigil::fencing::stale_leader_param;

TEST_CASE("fencing params: every default lies in its range and in its slider's range") {
  for (const auto& p : param::all) {
    vigil::test::check_well_formed(p);
    // Milliseconds, writes and tokens are whole numbers.
    CHECK(p.integer);
  }
  // The page holds its controls in ints.
  for (const auto& p : param::all) CHECK(p.view_max <= 2147483647.0);
}

TEST_CASE("fencing params: the stale leader's default options are the table's defaults") {
  const StaleLeaderOptions o;
  CHECK(static_cast<double>(o.lease.count()) == param::lease.def);
  CHECK(static_cast<double>(o.pause.count()) == param::pause.def);
  CHECK(static_cast<double>(o.write_interval.count()) == param::interval.def);
  CHECK(o.old_writes == param::old_writes.def);
  CHECK(static_cast<double>(o.old_token) == param::token.def);
  CHECK(o.validate().ok());
}

TEST_CASE("fencing params: the model refuses through the table's checks") {
  auto refused = [](StaleLeaderOptions o) {
    auto s = o.validate();
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  StaleLeaderOptions o;
  o.lease = Millis{86'400'001};
  CHECK(refused(o) == param::lease.check(86'400'001).error().message);
  CHECK(refused(o) == "--lease must be a whole number in [2, 86400000] ms, got 86400001");
  o = {};
  o.pause = Millis{-1};
  CHECK(refused(o) == param::pause.check(-1).error().message);
  o = {};
  o.write_interval = Millis{0};
  CHECK(refused(o) == param::interval.check(0).error().message);
  o = {};
  o.old_writes = -1;
  CHECK(refused(o) == param::old_writes.check(-1).error().message);
  o = {};
  o.old_token = 0;
  CHECK(refused(o) == param::token.check(0).error().message);
  CHECK(param::token.range_text() == "[1, 1e+15]");

  // The range's edges are runs, not errors.
  o = {};
  o.old_token = static_cast<Token>(param::token.max);
  CHECK(run_stale_leader(o).ok());
  o = {};
  o.lease = Millis{static_cast<Millis::rep>(param::lease.min)};
  o.write_interval = Millis{static_cast<Millis::rep>(param::interval.min)};
  o.pause = Millis{static_cast<Millis::rep>(param::pause.min)};
  o.old_writes = static_cast<int>(param::old_writes.max);
  CHECK(run_stale_leader(o).ok());
  o = {};
  o.lease = Millis{static_cast<Millis::rep>(param::lease.max)};
  o.pause = Millis{static_cast<Millis::rep>(param::pause.max)};
  o.write_interval = Millis{86'400};  // 1000 intervals in the pause: within what is listed
  CHECK(run_stale_leader(o).ok());
}

TEST_CASE("fencing params: URL keys") {
  CHECK(param::old_writes.flag == "old-writes");
  CHECK(param::old_writes.url_key() == "writes");
  CHECK(param::lease.url_key() == "lease");
  CHECK(param::token.url_key() == "token");
}
