#include <doctest/doctest.h>

#include <algorithm>

#include <vigil/retry/fleet.hpp>

using namespace vigil::retry;

namespace {

Fleet run(BackoffStrategy s, std::uint32_t seed = 2, int clients = 4000, int seconds = 35) {
  FleetOptions o;
  o.backoff.strategy = s;
  o.seed = seed;
  o.clients = clients;
  o.seconds = seconds;
  auto f = Fleet::create(o).value();
  while (!f.finished()) f.run_second();
  return f;
}

// Seconds whose offered load is a strict local maximum above `floor`.
std::vector<int> spikes(const Fleet& f, std::int64_t floor) {
  std::vector<int> out;
  const auto& s = f.per_second();
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto before = i ? s[i - 1].offered : 0;
    const auto after = i + 1 < s.size() ? s[i + 1].offered : 0;
    if (s[i].offered > floor && s[i].offered > before && s[i].offered > after)
      out.push_back(s[i].second);
  }
  return out;
}

}  // namespace

TEST_CASE("exponential backoff without jitter: synchronised spikes at 1, 3, 7, 15 s") {
  const auto f = run(BackoffStrategy::exponential);
  const auto at = spikes(f, 3000);
  // Each wave finds room for 10 of its calls in the one 10 ms tick it lands on, so each spike
  // keeps all but 10 per wave of the 4,000: far over the 3,000 threshold.
  const std::vector<int> expected = {1, 3, 7, 15, 31};
  REQUIRE(at.size() == expected.size());
  for (std::size_t i = 0; i < at.size(); ++i) {
    CHECK(std::abs(at[i] - expected[i]) <= 1);
    CHECK(f.per_second()[static_cast<std::size_t>(at[i])].offered ==
          4000 - 10 * static_cast<std::int64_t>(i));
  }
  CHECK(f.unfinished() == 4000 - 10 * 5);
}

TEST_CASE("jitter cuts the peak rate: no-jitter peaks are at least 3x full jitter's") {
  const auto none_jitter = run(BackoffStrategy::exponential);
  const auto full = run(BackoffStrategy::full_jitter);
  CHECK(none_jitter.peak_rps() >= 3 * full.peak_rps());
  CHECK(none_jitter.peak_rps() == 4000 * 10);  // all 4,000 inside one 100 ms window
  // Full jitter's first wave spreads 4,000 calls over a second: about 400 per 100 ms, plus the
  // re-retries of those that found no room.
  CHECK(full.peak_rps() > 4000);
  CHECK(full.peak_rps() < 8000);
  CHECK(full.unfinished() == 0);
}

TEST_CASE("every call is either served or retried: nothing lost, nothing invented") {
  for (auto s : {BackoffStrategy::none, BackoffStrategy::fixed, BackoffStrategy::exponential,
                 BackoffStrategy::full_jitter, BackoffStrategy::equal_jitter,
                 BackoffStrategy::decorrelated}) {
    CAPTURE(backoff_name(s));
    const auto f = run(s, 5, 1000, 20);
    std::int64_t offered = 0, served = 0;
    for (const auto& sec : f.per_second()) {
      offered += sec.offered;
      served += sec.successes;
      CHECK(sec.successes <= 1000);  // the server's capacity per second
      CHECK(sec.successes <= sec.offered);
      CHECK(sec.waiting == 1000 - served);
    }
    CHECK(offered == f.total_calls());
    CHECK(served + f.unfinished() == 1000);
  }
}

TEST_CASE("each strategy is deterministic for a seed") {
  for (auto s : {BackoffStrategy::full_jitter, BackoffStrategy::equal_jitter,
                 BackoffStrategy::decorrelated, BackoffStrategy::none}) {
    CAPTURE(backoff_name(s));
    const auto a = run(s, 11, 500, 15), b = run(s, 11, 500, 15);
    REQUIRE(a.per_second().size() == b.per_second().size());
    for (std::size_t i = 0; i < a.per_second().size(); ++i) {
      CHECK(a.per_second()[i].offered == b.per_second()[i].offered);
      CHECK(a.per_second()[i].successes == b.per_second()[i].successes);
    }
  }
  // Another seed draws other jitter.
  const auto a = run(BackoffStrategy::full_jitter, 11, 500, 15);
  const auto c = run(BackoffStrategy::full_jitter, 12, 500, 15);
  bool differs = false;
  for (std::size_t i = 0; i < a.per_second().size(); ++i)
    differs = differs || a.per_second()[i].offered != c.per_second()[i].offered;
  CHECK(differs);
}

TEST_CASE("fleet options are checked") {
  FleetOptions o;
  CHECK(o.validate().ok());
  o.clients = 0;
  CHECK(Fleet::create(o).error().message.find("--clients") != std::string::npos);
  o = {};
  o.capacity_rps = -1;
  CHECK(Fleet::create(o).error().message.find("--capacity") != std::string::npos);
  o = {};
  o.backoff.cap_s = 0.5;
  CHECK(Fleet::create(o).error().message.find("--cap") != std::string::npos);
}
