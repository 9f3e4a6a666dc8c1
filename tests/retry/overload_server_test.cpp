#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include <vigil/retry/overload_server.hpp>

using namespace vigil::retry;

namespace {

// 40 s: healthy to 10 s, the trigger to 15 s, settling to 25 s, "after" for the last 15 s.
ServerOptions options(const std::string& mitigation, std::uint32_t seed = 2) {
  ServerOptions o;
  o.seconds = 40;
  o.seed = seed;
  o.mitigations = parse_mitigations(mitigation).value();
  return o;
}

OverloadServer run(const ServerOptions& o) {
  auto s = OverloadServer::create(o).value();
  while (!s.finished()) s.run_second();
  return s;
}

template <typename F>
std::int64_t total(const OverloadServer& s, F field) {
  std::int64_t sum = 0;
  for (const auto& sec : s.per_second()) sum += field(sec);
  return sum;
}

}  // namespace

TEST_CASE("mitigation lists: none, all, and any comma-separated combination") {
  CHECK_FALSE(parse_mitigations("none").value().any());
  const auto all = parse_mitigations("all").value();
  CHECK((all.budget && all.quota && all.deadline && all.shed));
  const auto two = parse_mitigations("budget,deadline").value();
  CHECK((two.budget && two.deadline && !two.quota && !two.shed));
  CHECK(mitigations_name(two) == "budget,deadline");
  CHECK(mitigations_name(all) == "all");
  CHECK(mitigations_name(Mitigations{}) == "none");
  auto bad = parse_mitigations("budget,retry-harder");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("--mitigation must be") != std::string::npos);
  CHECK_FALSE(parse_mitigations("").ok());
  CHECK_FALSE(parse_mitigations("budget,").ok());
}

TEST_CASE("without a trigger the queue is healthy: goodput is the arrival rate") {
  auto o = options("none");
  o.trigger_seconds = 0;
  const auto s = run(o);
  const auto sum = s.summary();
  // Mean of 35 seconds of Poisson(700) arrivals: standard error sqrt(700 / 35) = 4.5 req/s.
  // At rho = 0.7 an M/M/1 wait exceeds 100 ms with probability 0.7 e^-30: no timeouts.
  CHECK(std::abs(sum.goodput_after - 700) < 4 * 4.5);
  CHECK(s.retries() == 0);
  CHECK(sum.wasted_share == 0.0);
  CHECK(sum.recovered);
}

TEST_CASE("no mitigation: a five-second trigger leaves the server stuck in a retry storm") {
  const auto s = run(options("none"));
  const auto sum = s.summary();
  CHECK(sum.goodput_before > 650);
  CHECK(sum.goodput_after < 0.05 * sum.goodput_before);
  // The server is as busy as it can be, serving requests nobody waits for any more.
  CHECK(sum.throughput_after > 0.95 * 1000);
  CHECK(sum.wasted_share > 0.5);
  CHECK_FALSE(sum.recovered);
  // Three tries per request once every attempt times out: 2 retries per first attempt.
  std::int64_t first = 0, retries = 0;
  for (const auto& sec : s.per_second())
    if (sec.second >= 25) {
      first += sec.offered - sec.retries;
      retries += sec.retries;
    }
  CHECK(static_cast<double>(retries) / static_cast<double>(first) ==
        doctest::Approx(2).epsilon(0.05));
  CHECK(s.per_second().back().queue > s.per_second()[20].queue);  // and the queue keeps growing
}

TEST_CASE("all mitigations together: the server recovers as soon as the trigger ends") {
  const auto s = run(options("all"));
  const auto sum = s.summary();
  CHECK(sum.recovered);
  CHECK(sum.goodput_after >= 0.9 * sum.goodput_before);
  // Load shedding keeps serving up to the reduced capacity during the trigger.
  CHECK(sum.goodput_during > 0.7 * 500);
}

TEST_CASE("retry budget: retries never exceed its ratio plus the initial tokens") {
  const auto o = options("budget");
  const auto s = run(o);
  const double bound = o.budget.ratio + o.budget.initial_tokens / s.first_attempts();
  CHECK(s.summary().retry_share <= bound);
  CHECK(total(s, [](const ServerSecond& x) { return x.denied; }) > 0);
  CHECK(s.summary().recovered);
}

TEST_CASE("retry quota: a drained bucket stops retries until successes refill it") {
  const auto s = run(options("quota"));
  // 500 tokens pay for 50 retries after timeouts; with no successes during the storm, that is
  // about all there is.
  CHECK(s.retries() <= 50 + 50);
  CHECK(total(s, [](const ServerSecond& x) { return x.denied; }) > 0);
  CHECK(s.summary().recovered);
}

TEST_CASE("deadline propagation: expired requests are dropped, not served") {
  const auto s = run(options("deadline"));
  CHECK(total(s, [](const ServerSecond& x) { return x.dropped; }) > 0);
  // A request can only outlive its deadline while in service (1 ms on average) or while the
  // queue ahead of it drains; far less waste than the storm's.
  CHECK(s.summary().wasted_share < 0.1);
  CHECK(s.summary().recovered);
}

TEST_CASE("load shedding: admitted requests wait about a deadline at most") {
  const auto o = options("shed");
  const auto s = run(o);
  CHECK(total(s, [](const ServerSecond& x) { return x.rejected; }) > 0);
  // Admission allows timeout x capacity requests ahead: 100 exponential services of 1 ms have a
  // mean of 100 ms and a deviation of 10 ms; the trigger halving the rate of requests already
  // admitted can double that. Nothing near the storm's seconds-long waits.
  for (const auto& sec : s.per_second())
    if (!std::isnan(sec.p99_ms)) CHECK(sec.p99_ms < 2.5 * o.timeout_ms);
  CHECK(s.summary().recovered);
}

TEST_CASE("a run is deterministic for its seed, and mitigations do not move the arrivals") {
  const auto a = run(options("none", 9)), b = run(options("none", 9));
  const auto c = run(options("shed", 9));
  for (std::size_t i = 0; i < a.per_second().size(); ++i) {
    CHECK(a.per_second()[i].offered == b.per_second()[i].offered);
    CHECK(a.per_second()[i].goodput == b.per_second()[i].goodput);
    CHECK(a.per_second()[i].p99_ms == b.per_second()[i].p99_ms);
  }
  CHECK(a.first_attempts() == c.first_attempts());
}

TEST_CASE("server options are checked") {
  auto o = options("none");
  CHECK(o.validate().ok());
  o.trigger_seconds = 30;
  CHECK(OverloadServer::create(o).error().message.find("--seconds must leave") !=
        std::string::npos);
  o = options("none");
  o.tries = 0;
  CHECK(OverloadServer::create(o).error().message.find("--tries") != std::string::npos);
  o = options("none");
  o.arrival_rps = 0;
  CHECK(OverloadServer::create(o).error().message.find("--arrival") != std::string::npos);
  o = options("none");
  o.trigger_capacity = 0;
  CHECK(OverloadServer::create(o).error().message.find("--trigger-capacity") != std::string::npos);
}
