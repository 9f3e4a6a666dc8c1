// The phi demo's trace view: loading, limits, the five detectors on a trace whose gaps are known,
// and agreement with the lab's replay and tuning, which the command line prints.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include <vigil/detect/phi_threshold.hpp>
#include <vigil/detect/trace.hpp>
#include <vigil/lab/trace_tune.hpp>
#include "support/gapped_trace.hpp"
#include "ui/phi_trace.hpp"
#include "ui/trace_inbox.hpp"

using vigil::Millis;
using vigil::detect::TimeUnit;
using vigil::web::PhiTrace;
using vigil::web::TraceDetectors;

namespace {

std::string csv(const std::vector<Millis>& arrivals, const std::string& sender = "node-b") {
  return vigil::detect::trace_csv(arrivals, sender, "test");
}

std::vector<Millis> shifted(std::vector<Millis> a, Millis by) {
  for (auto& t : a) t += by;
  return a;
}

}  // namespace

TEST_CASE("a trace with known gaps: its timeouts' mistakes counted by hand") {
  // Gaps of 250, 450, 1200 and 3500 ms among 100 ms ones, starting at a Unix time.
  const auto arrivals = shifted(vigil::test::regular_with_gaps(150, {250, 450, 1200, 3500}),
                                Millis{1'700'000'000'000});
  auto t = PhiTrace::load("known.csv", csv(arrivals), "", TimeUnit::automatic);
  REQUIRE(t.ok());
  CHECK(t->arrivals().front() == Millis{0});  // the demo's axis starts at the first heartbeat
  CHECK(t->arrivals().size() == arrivals.size());
  CHECK(t->interval_ms() == 100);
  CHECK(t->timeout_ms(0) == 300);
  CHECK(t->timeout_ms(2) == 3000);
  const TraceDetectors d;
  CHECK(t->detector_name(d, 0) == "timeout 300 ms");
  CHECK(t->detector_name(d, 1) == "timeout 1.0 s");
  CHECK(t->detector_name(d, 4) == "phi(normal) > 12.0");
  const auto& rows = t->replay(d);
  REQUIRE(rows.size() == 5);
  // All four gaps come after the warm-up of 100 heartbeats; 250 ms stays under every timeout.
  CHECK(rows[0].mistakes == 3);  // 450, 1200 and 3500 exceed 300 ms
  CHECK(rows[1].mistakes == 2);
  CHECK(rows[2].mistakes == 1);
  CHECK(rows[0].max_mistake_ms == 3500 - 300);
}

TEST_CASE("the trace view's figures are the lab's: replay and tuning agree with the CLI's") {
  const auto arrivals = vigil::test::regular_with_gaps(150, {250, 450, 1200, 3500, 180, 700});
  auto t = PhiTrace::load("t.txt", csv(arrivals), "", TimeUnit::milliseconds);
  REQUIRE(t.ok());
  TraceDetectors d;
  d.model = vigil::detect::TailModel::logistic;
  d.threshold_a = 3.5;
  const auto rows = t->replay(d);
  // The same phi detector built as `vigil lab detectors --trace` builds it.
  std::vector<std::unique_ptr<vigil::detect::Detector>> one;
  one.push_back(std::make_unique<vigil::detect::PhiThreshold>(
      vigil::detect::PhiThreshold::create(
          vigil::lab::trace_phi_config(100, vigil::detect::TailModel::logistic), 3.5)
          .value()));
  const auto lab = vigil::lab::replay_trace(arrivals, one, vigil::lab::TraceReplayOptions{});
  REQUIRE(lab.ok());
  CHECK(rows[3].mistakes == lab->front().mistakes);
  CHECK(rows[3].mistake_ms == lab->front().mistake_ms);
  CHECK(rows[3].detection_mean_ms == lab->front().detection_mean_ms);

  vigil::lab::TuneOptions options;
  options.max_mistakes_per_hour = 100;
  const auto cli = vigil::lab::tune_trace(arrivals, options);
  REQUIRE(cli.ok());
  const auto& page = t->tune(100, options.confidence);
  REQUIRE(page.families.size() == cli->families.size());
  for (std::size_t i = 0; i < page.families.size(); ++i) {
    CAPTURE(page.families[i].family);
    REQUIRE(page.families[i].best.has_value() == cli->families[i].best.has_value());
    if (page.families[i].best)
      CHECK(page.families[i].best->parameter == cli->families[i].best->parameter);
    CHECK(page.families[i].frontier.size() == cli->families[i].frontier.size());
  }
  CHECK(PhiTrace::family_of(vigil::detect::TailModel::logistic) == "phi-logistic");
  CHECK(PhiTrace::family_of(vigil::detect::TailModel::empirical).empty());
}

TEST_CASE("several senders: the busiest is shown, another can be chosen, or named") {
  const auto few = vigil::test::regular_with_gaps(60, {300});
  const auto many = vigil::test::regular_with_gaps(150, {300});
  std::string text = "time_ms,sender\n";
  for (Millis a : few) text += std::to_string(a.count()) + ",node-a\n";
  for (Millis a : many) text += std::to_string(a.count()) + ",node-b\n";
  auto t = PhiTrace::load("two.csv", text, "", TimeUnit::milliseconds);
  REQUIRE(t.ok());
  CHECK(t->parsed().senders.size() == 2);
  CHECK(t->sender().sender == "node-b");
  CHECK(t->choose_sender(0).ok());
  CHECK(t->sender().sender == "node-a");
  CHECK(t->arrivals().size() == few.size());
  auto named = PhiTrace::load("two.csv", text, "node-a", TimeUnit::milliseconds);
  REQUIRE(named.ok());
  CHECK(named->sender().sender == "node-a");
  auto unknown = PhiTrace::load("two.csv", text, "node-x", TimeUnit::milliseconds);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message == "no sender 'node-x' in the trace (senders: node-a, node-b)");
}

TEST_CASE("the page's limits: bytes, heartbeats, and a trace too short to replay") {
  const std::string huge(vigil::web::kMaxTraceBytes + 1, '1');
  auto big = PhiTrace::load("huge.txt", huge, "", TimeUnit::automatic);
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().message ==
        "the file has 33,554,433 bytes; the page reads at most 33,554,432 (use vigil tune on the "
        "command line)");
  std::string many;
  for (std::size_t i = 0; i <= vigil::web::kMaxTraceHeartbeats; ++i)
    many += std::to_string(i * 100) + "\n";
  auto long_trace = PhiTrace::load("long.txt", many, "", TimeUnit::milliseconds);
  REQUIRE_FALSE(long_trace.ok());
  CHECK(long_trace.error().message ==
        "the trace has 100,001 heartbeats; the page replays at most 100,000 (use vigil tune on "
        "the command line)");
  auto short_trace = PhiTrace::load("short.txt", "0\n100\n200\n", "", TimeUnit::milliseconds);
  REQUIRE_FALSE(short_trace.ok());
  CHECK(short_trace.error().message ==
        "the trace has 3 heartbeats; at least 102 are needed (the first 100 only train "
        "the detectors)");
  auto bad = PhiTrace::load("bad.txt", "100\nsoon\n", "", TimeUnit::automatic);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "line 2: 'soon' is not a number or an ISO-8601 time");
}

TEST_CASE("the page's hand-over: a name and a text in one buffer, bounded") {
  vigil::web::TraceInbox inbox;
  CHECK_FALSE(inbox.take().has_value());
  CHECK(inbox.reserve(4, vigil::web::kMaxTraceBytes + 1) == nullptr);
  CHECK(inbox.reserve(5000, 10) == nullptr);
  char* at = inbox.reserve(5, 4);
  REQUIRE(at != nullptr);
  std::copy_n("a.csvdata", 9, at);
  inbox.deliver(true, false);
  auto f = inbox.take();
  REQUIRE(f.has_value());
  CHECK(f->name == "a.csv");
  CHECK(f->text == "data");
  CHECK(f->ok);
  CHECK_FALSE(f->from_url);
  CHECK_FALSE(inbox.take().has_value());  // taken once
}
