#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <vigil/fencing/stale_leader.hpp>
#include <vigil/lab/fencing_report.hpp>

using namespace vigil;
using fencing::Outcome;
using fencing::StaleLeaderOptions;
using fencing::StaleLeaderResult;

namespace {

StaleLeaderResult run(const StaleLeaderOptions& o) {
  auto r = fencing::run_stale_leader(o);
  REQUIRE(r);
  return std::move(r).value();
}

// "t actor action token outcome", renewals left out unless asked for: the story in short.
std::vector<std::string> story(const StaleLeaderResult& r, bool renewals = false) {
  std::vector<std::string> out;
  for (const auto& e : r.events) {
    if (!renewals && e.action == fencing::Action::renew && e.outcome == Outcome::renewed) continue;
    std::string s = std::to_string(e.at.count()) + " " + fencing::actor_name(e.actor) + " " +
                    fencing::action_name(e.action);
    if (e.token) s += " " + std::to_string(e.token);
    if (e.outcome != Outcome::none) s += std::string(" ") + fencing::outcome_name(e.outcome);
    if (!e.value.empty()) s += " " + e.value;
    out.push_back(s);
  }
  return out;
}

const fencing::Event& wake_write(const StaleLeaderResult& r) {
  REQUIRE(r.wake_write < r.events.size());
  return r.events[r.wake_write];
}

}  // namespace

TEST_CASE("fencing: stale leader: with fencing, the old leader's late write is rejected") {
  const StaleLeaderOptions o;  // lease 1000, pause 2000, interval 250, 2 writes, token 41
  const auto r = run(o);
  CHECK(story(r, true) == std::vector<std::string>{
                              "0 issuer grant 41 granted",
                              "250 old leader renew 41 renewed",
                              "250 old leader write 41 accepted old-1",
                              "500 old leader renew 41 renewed",
                              "500 old leader write 41 accepted old-2",
                              "750 old leader renew 41 renewed",
                              "750 old leader pause 41",
                              "1750 issuer expire 41 expired",
                              "1750 issuer grant 42 granted",
                              "1750 new leader write 42 accepted new-1",
                              "2000 new leader renew 42 renewed",
                              "2000 new leader write 42 accepted new-2",
                              "2250 new leader renew 42 renewed",
                              "2250 new leader write 42 accepted new-3",
                              "2500 new leader renew 42 renewed",
                              "2500 new leader write 42 accepted new-4",
                              "2750 new leader renew 42 renewed",
                              "2750 new leader write 42 accepted new-5",
                              "2750 old leader wake 41",
                              "2750 old leader write 41 rejected old-3",
                              "3000 new leader renew 42 renewed",
                              "3000 new leader write 42 accepted new-6",
                              "3000 old leader renew 41 refused",
                              "3000 old leader step down 41",
                              "3250 new leader renew 42 renewed",
                              "3250 new leader write 42 accepted new-7",
                          });
  CHECK(r.pause_at == Millis{750});
  CHECK(r.wake_at == Millis{2750});
  CHECK(r.end == Millis{3250});
  CHECK(r.handover);
  CHECK(r.handover_at == Millis{1750});
  CHECK(r.old_token == 41);
  CHECK(r.new_token == 42);
  CHECK(r.stale_write);
  CHECK(r.stale_write_rejected);
  CHECK_FALSE(r.lost_update);
  CHECK_FALSE(r.issued_not_seen);
  CHECK(r.accepted == 9);
  CHECK(r.rejected == 1);
  CHECK(r.highest == 42);
  CHECK(r.value == "new-7");
  CHECK(r.value_token == 42);
  const auto& w = wake_write(r);
  CHECK(w.at == Millis{2750});
  CHECK(w.highest == 42);
  CHECK(w.stored == "new-5");  // untouched by the rejected write
  CHECK(w.detail ==
        "writes 'old-3' with token 41: rejected, token 41 is below the highest seen, 42");
  CHECK(r.summary ==
        "old leader's write with token 41 rejected: resource has seen 42 (the new leader's write "
        "at 1750 ms)");
  // Before the first write the resource holds nothing; every event carries its state after.
  CHECK(r.events[0].highest == 0);
  CHECK(r.events[0].stored.empty());
  CHECK(r.events[2].highest == 41);
  CHECK(r.events[2].stored == "old-1");
}

TEST_CASE(
    "fencing: stale leader: without fencing, the late write lands and the new leader's update is "
    "lost") {
  StaleLeaderOptions o;
  o.fencing = false;
  const auto r = run(o);
  const auto& w = wake_write(r);
  CHECK(w.outcome == Outcome::accepted);
  CHECK(w.value == "old-3");
  CHECK(w.stored == "old-3");
  CHECK(w.stored_token == 41);  // the stored value's token went back below the highest seen
  CHECK(w.highest == 42);
  CHECK(r.events[r.wake_write - 1].stored == "new-5");
  CHECK(w.detail ==
        "writes 'old-3' with token 41: accepted (unfenced: token 41 is below 42, unchecked), "
        "overwriting 'new-5' written with 42");
  CHECK(r.stale_write);
  CHECK_FALSE(r.stale_write_rejected);
  CHECK(r.lost_update);
  CHECK_FALSE(r.issued_not_seen);
  CHECK(r.accepted == 10);
  CHECK(r.rejected == 0);
  CHECK(r.summary ==
        "fencing off: old leader's write with token 41 accepted and overwrote the new leader's "
        "'new-5' (lost update)");
  // Everything else is the fenced run's timeline.
  StaleLeaderOptions fenced;
  const auto f = run(fenced);
  REQUIRE(f.events.size() == r.events.size());
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    CHECK(r.events[i].at == f.events[i].at);
    CHECK(r.events[i].action == f.events[i].action);
  }
}

TEST_CASE("fencing: stale leader: a token issued but not yet seen by the resource fences nothing") {
  StaleLeaderOptions o;
  o.new_leader_writes_first = false;
  const auto r = run(o);
  CHECK(story(r) == std::vector<std::string>{
                        "0 issuer grant 41 granted",
                        "250 old leader write 41 accepted old-1",
                        "500 old leader write 41 accepted old-2",
                        "750 old leader pause 41",
                        "1750 issuer expire 41 expired",
                        "1750 issuer grant 42 granted",
                        "2750 old leader wake 41",
                        "2750 old leader write 41 accepted old-3",
                        "3000 new leader write 42 accepted new-1",
                        "3000 old leader renew 41 refused",
                        "3000 old leader step down 41",
                        "3250 new leader write 42 accepted new-2",
                    });
  CHECK(r.stale_write);
  CHECK_FALSE(r.stale_write_rejected);
  CHECK(r.issued_not_seen);
  CHECK_FALSE(r.lost_update);  // the new leader had written nothing yet
  CHECK(wake_write(r).highest == 41);
  CHECK(r.value == "new-2");
  CHECK(r.summary ==
        "old leader's write with token 41 accepted: token 42 was issued at 1750 ms but the "
        "resource had not seen it yet (the new leader's first write with 42 came at 3000 ms)");
}

TEST_CASE("fencing: stale leader: a resource that takes part in the hand-over rejects at once") {
  StaleLeaderOptions o;
  o.new_leader_writes_first = false;
  o.resource_participates = true;
  const auto r = run(o);
  CHECK(story(r) == std::vector<std::string>{
                        "0 issuer grant 41 granted",
                        "250 old leader write 41 accepted old-1",
                        "500 old leader write 41 accepted old-2",
                        "750 old leader pause 41",
                        "1750 issuer expire 41 expired",
                        "1750 issuer grant 42 granted",
                        "1750 resource fence 42 raised",
                        "2750 old leader wake 41",
                        "2750 old leader write 41 rejected old-3",
                        "3000 new leader write 42 accepted new-1",
                        "3000 old leader renew 41 refused",
                        "3000 old leader step down 41",
                        "3250 new leader write 42 accepted new-2",
                    });
  const auto fence_at = std::find_if(r.events.begin(), r.events.end(), [](const auto& e) {
    return e.action == fencing::Action::fence;
  });
  REQUIRE(fence_at != r.events.end());
  const auto& fence = *fence_at;
  CHECK(fence.highest == 42);
  CHECK(fence.stored == "old-2");  // raised without a write
  CHECK(fence.stored_token == 41);
  CHECK(r.stale_write_rejected);
  CHECK_FALSE(r.issued_not_seen);
  CHECK(r.summary ==
        "old leader's write with token 41 rejected: resource has seen 42 (fenced by the issuer at "
        "the hand-over, 1750 ms)");

  // With the new leader writing first too, the fence comes first and the write changes nothing.
  o.new_leader_writes_first = true;
  const auto both = run(o);
  CHECK(both.stale_write_rejected);
  CHECK(both.summary.find("(fenced by the issuer at the hand-over, 1750 ms)") != std::string::npos);

  // Fencing off, the fence is recorded but never checked: the late write still lands.
  o.new_leader_writes_first = false;
  o.fencing = false;
  const auto off = run(o);
  CHECK(wake_write(off).outcome == Outcome::accepted);
  CHECK_FALSE(off.stale_write_rejected);
  CHECK_FALSE(off.lost_update);
  CHECK(off.summary ==
        "fencing off: old leader's write with token 41 accepted while token 42 held "
        "the lease");
}

TEST_CASE("fencing: stale leader: a pause shorter than the lease is no hand-over") {
  StaleLeaderOptions o;
  o.pause = Millis{500};
  const auto r = run(o);
  CHECK_FALSE(r.handover);
  CHECK(r.new_token == 0);
  CHECK_FALSE(r.stale_write);
  CHECK_FALSE(r.stale_write_rejected);
  CHECK(r.wake_at == Millis{1250});
  CHECK(r.end == Millis{1750});
  CHECK(story(r) == std::vector<std::string>{
                        "0 issuer grant 41 granted",
                        "250 old leader write 41 accepted old-1",
                        "500 old leader write 41 accepted old-2",
                        "750 old leader pause 41",
                        "1250 old leader wake 41",
                        "1250 old leader write 41 accepted old-3",
                        "1500 old leader write 41 accepted old-4",
                        "1750 old leader write 41 accepted old-5",
                    });
  CHECK(r.value == "old-5");
  CHECK(r.summary ==
        "old leader's write with token 41 accepted: the pause (500 ms) ended within the lease "
        "(1000 ms), so it still led; no hand-over");
}

TEST_CASE("fencing: stale leader: the lease can run out after the wake, before the next renewal") {
  StaleLeaderOptions o;
  o.pause = Millis{900};  // wakes at 1650 with the lease live until 1750; next renewal at 1900
  const auto r = run(o);
  CHECK(r.handover);
  CHECK(r.handover_at == Millis{1750});
  CHECK_FALSE(r.stale_write);  // its write at 1650 was within its lease
  CHECK(wake_write(r).outcome == Outcome::accepted);
  CHECK(story(r) == std::vector<std::string>{
                        "0 issuer grant 41 granted",
                        "250 old leader write 41 accepted old-1",
                        "500 old leader write 41 accepted old-2",
                        "750 old leader pause 41",
                        "1650 old leader wake 41",
                        "1650 old leader write 41 accepted old-3",
                        "1750 issuer expire 41 expired",
                        "1750 issuer grant 42 granted",
                        "1750 new leader write 42 accepted new-1",
                        "1900 old leader renew 41 refused",
                        "1900 old leader step down 41",
                        "2000 new leader write 42 accepted new-2",
                    });
  CHECK(r.summary ==
        "old leader's write with token 41 accepted: its lease was still live when it woke; the "
        "lease expired at 1750 ms, before its next renewal, and token 42 went to the new leader");
}

TEST_CASE("fencing: stale leader: a pause exactly as long as the lease hands over at the wake") {
  StaleLeaderOptions o;
  o.pause = Millis{1000};  // the lease expires at 1750, the instant the old leader wakes
  auto r = run(o);
  CHECK(r.handover_at == Millis{1750});
  CHECK(r.wake_at == Millis{1750});
  CHECK(r.stale_write);
  CHECK(r.stale_write_rejected);  // the issuer, then the new leader, then the old one
  o.new_leader_writes_first = false;
  r = run(o);
  CHECK(r.issued_not_seen);
  CHECK(wake_write(r).outcome == Outcome::accepted);
}

TEST_CASE("fencing: stale leader: tokens, intervals and zero pre-pause writes") {
  StaleLeaderOptions o;
  o.old_token = 7;
  o.old_writes = 0;
  o.write_interval = Millis{100};
  o.lease = Millis{300};
  o.pause = Millis{450};
  const auto r = run(o);
  CHECK(r.pause_at == Millis{100});
  CHECK(r.wake_at == Millis{550});
  CHECK(r.handover_at == Millis{400});
  CHECK(r.new_token == 8);
  CHECK(story(r) == std::vector<std::string>{
                        "0 issuer grant 7 granted",
                        "100 old leader pause 7",
                        "400 issuer expire 7 expired",
                        "400 issuer grant 8 granted",
                        "400 new leader write 8 accepted new-1",
                        "500 new leader write 8 accepted new-2",
                        "550 old leader wake 7",
                        "550 old leader write 7 rejected old-1",
                        "600 new leader write 8 accepted new-3",
                        "650 old leader renew 7 refused",
                        "650 old leader step down 7",
                        "700 new leader write 8 accepted new-4",
                    });
  CHECK(r.summary ==
        "old leader's write with token 7 rejected: resource has seen 8 (the new "
        "leader's write at 400 ms)");
}

TEST_CASE("fencing: stale leader: the same options give the same events") {
  StaleLeaderOptions o;
  o.pause = Millis{3333};
  o.write_interval = Millis{170};
  const auto a = run(o), b = run(o);
  REQUIRE(a.events.size() == b.events.size());
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    CHECK(a.events[i].at == b.events[i].at);
    CHECK(a.events[i].detail == b.events[i].detail);
    CHECK(a.events[i].stored == b.events[i].stored);
  }
  // Time never goes back along the timeline.
  for (std::size_t i = 1; i < a.events.size(); ++i) CHECK(a.events[i - 1].at <= a.events[i].at);
}

TEST_CASE("fencing: stale leader: bad options are errors that name the option") {
  auto error = [](StaleLeaderOptions o) {
    auto r = fencing::run_stale_leader(o);
    REQUIRE_FALSE(r);
    return r.error().message;
  };
  StaleLeaderOptions o;
  o.write_interval = Millis{0};
  CHECK(error(o) == "--interval must be a whole number in [1, 86400000] ms, got 0");
  o = {};
  o.lease = Millis{250};
  CHECK(error(o) ==
        "--lease (250 ms) must be longer than --interval (250 ms): a leader renews its lease at "
        "every write");
  o = {};
  o.lease = Millis{86'400'001};
  CHECK(error(o) == "--lease must be a whole number in [2, 86400000] ms, got 86400001");
  o = {};
  o.pause = Millis{-1};
  CHECK(error(o) == "--pause must be a whole number in [0, 86400000] ms, got -1");
  o = {};
  o.old_writes = 1001;
  CHECK(error(o) == "--old-writes must be a whole number in [0, 1000], got 1001");
  o = {};
  o.pause = Millis{2'000'000};
  o.write_interval = Millis{100};
  CHECK(error(o) ==
        "--pause / --interval is 20000, more write intervals than the timeline lists (10000); "
        "raise --interval or shorten --pause");
  o = {};
  o.old_token = 0;
  CHECK(error(o) == "--token must be a whole number in [1, 1e+15], got 0");
  // Past the range a double holds exactly, a token could not be given back as it was passed in.
  o = {};
  o.old_token = std::numeric_limits<fencing::Token>::max();
  CHECK(error(o) == "--token must be a whole number in [1, 1e+15], got 1.8446744073709552e+19");
}

TEST_CASE("fencing: stale leader: the report is what `vigil lab fencing` prints") {
  const StaleLeaderOptions o;
  const auto r = run(o);
  const auto report = lab::stale_leader_report(r, o);
  const auto j = nlohmann::json::parse(lab::render(report, lab::Format::json));
  REQUIRE(j["timeline"].size() == r.events.size());
  const auto& stale = j["timeline"][r.wake_write];
  CHECK(stale["t_ms"] == 2750);
  CHECK(stale["actor"] == "old leader");
  CHECK(stale["action"] == "write");
  CHECK(stale["token"] == 41);
  CHECK(stale["outcome"] == "rejected");
  CHECK(stale["value"] == "old-3");
  CHECK(stale["highest"] == 42);
  CHECK(stale["stored"] == "new-5");
  CHECK(stale["stored_token"] == 42);
  CHECK(j["timeline"][0]["highest"].is_null());  // nothing seen yet
  CHECK(j["timeline"][0]["value"].is_null());
  CHECK(j["stale_write_rejected"] == true);
  CHECK(j["lost_update"] == false);
  CHECK(j["handover"] == true);
  CHECK(j["old_token"] == 41.0);
  CHECK(j["new_token"] == 42.0);
  CHECK(j["highest"] == 42.0);
  CHECK(j["accepted"] == 9.0);
  CHECK(j["rejected"] == 1.0);
  CHECK(j["handover_at_ms"] == 1750.0);
  const std::string text = lab::render(report, lab::Format::table);
  CHECK(text.find(r.summary) != std::string::npos);
  CHECK(text.find("value: 'new-7'") != std::string::npos);
}
