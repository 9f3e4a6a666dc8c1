#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <vigil/detect/trace.hpp>

using vigil::Millis;
using namespace vigil::detect;

namespace {
std::vector<long long> ms(const SenderTrace& s) {
  std::vector<long long> out;
  for (auto t : s.arrivals) out.push_back(t.count());
  return out;
}
std::string error_of(std::string_view text, TimeUnit unit = TimeUnit::automatic) {
  auto t = parse_trace(text, unit);
  REQUIRE_FALSE(t.ok());
  return t.error().message;
}
}  // namespace

TEST_CASE("plain text: relative milliseconds, comments and blank lines skipped") {
  auto t = parse_trace("# a comment\n0\n\n100\n205.4\n  300  \n");
  REQUIRE(t.ok());
  CHECK(t->format == "text");
  CHECK(t->unit == TimeUnit::milliseconds);
  REQUIRE(t->senders.size() == 1);
  CHECK(ms(t->senders[0]) == std::vector<long long>{0, 100, 205, 300});
}

TEST_CASE("plain text: small relative gaps are seconds; epoch magnitudes pick the unit") {
  auto s = parse_trace("10.0\n11.0\n12.5\n");
  REQUIRE(s.ok());
  CHECK(s->unit == TimeUnit::seconds);
  CHECK(ms(s->senders[0]) == std::vector<long long>{10000, 11000, 12500});
  auto epoch_s = parse_trace("1764664200.125\n1764664201.5\n");
  REQUIRE(epoch_s.ok());
  CHECK(epoch_s->unit == TimeUnit::seconds);
  CHECK(ms(epoch_s->senders[0]) == std::vector<long long>{1764664200125, 1764664201500});
  auto epoch_ms = parse_trace("1764664200125\n1764664201126\n");
  REQUIRE(epoch_ms.ok());
  CHECK(epoch_ms->unit == TimeUnit::milliseconds);
  auto epoch_us = parse_trace("1764664200125000\n1764664201126000\n");
  REQUIRE(epoch_us.ok());
  CHECK(epoch_us->unit == TimeUnit::microseconds);
  CHECK(ms(epoch_us->senders[0]) == std::vector<long long>{1764664200125, 1764664201126});
}

TEST_CASE("long relative traces are not mistaken for epoch times") {
  // 30 hours of 1 s heartbeats in relative milliseconds pass 1e8.
  auto ms_trace = parse_trace("108000000\n108001000\n108002000\n");
  REQUIRE(ms_trace.ok());
  CHECK(ms_trace->unit == TimeUnit::milliseconds);
  // 30 hours in relative microseconds pass 1e11.
  auto us_trace = parse_trace("108000000000\n108001000000\n108002000000\n");
  REQUIRE(us_trace.ok());
  CHECK(us_trace->unit == TimeUnit::microseconds);
  CHECK(ms(us_trace->senders[0]) == std::vector<long long>{108000000, 108001000, 108002000});
}

TEST_CASE("an explicit unit overrides detection") {
  auto t = parse_trace("1\n2\n3\n", TimeUnit::milliseconds);
  REQUIRE(t.ok());
  CHECK(ms(t->senders[0]) == std::vector<long long>{1, 2, 3});
  auto s = parse_trace("100\n1100\n", TimeUnit::seconds);
  REQUIRE(s.ok());
  CHECK(ms(s->senders[0]) == std::vector<long long>{100000, 1100000});
}

TEST_CASE("ISO-8601 times, with and without a zone offset") {
  auto t = parse_trace(
      "2026-12-02T08:30:00.125Z\n2026-12-02T08:30:01.250Z\n2026-12-02T09:30:02+01:00\n");
  REQUIRE(t.ok());
  const auto a = ms(t->senders[0]);
  REQUIRE(a.size() == 3);
  CHECK(a[0] == 1796200200125LL);
  CHECK(a[1] - a[0] == 1125);
  CHECK(a[2] - a[0] == 1875);
}

TEST_CASE("CSV: the agent's export, several senders split in order of appearance") {
  const std::string text =
      "# vigil trace: ack arrivals from node-b seen by node-a, probe interval 1000 ms\n"
      "time_ms,sender\n"
      "1764664200125.250,node-b\n"
      "1764664200500,node-c\n"
      "1764664201126.875,node-b\n";
  auto t = parse_trace(text);
  REQUIRE(t.ok());
  CHECK(t->format == "csv");
  REQUIRE(t->senders.size() == 2);
  CHECK(t->senders[0].sender == "node-b");
  CHECK(ms(t->senders[0]) == std::vector<long long>{1764664200125, 1764664201127});
  CHECK(t->senders[1].sender == "node-c");
  CHECK(pick_sender(*t, "node-c")->arrivals.size() == 1);
  CHECK(pick_sender(*t, "").error().message ==
        "the trace has 2 senders (node-b, node-c): choose one");
  CHECK(pick_sender(*t, "node-x").error().message ==
        "no sender 'node-x' in the trace (senders: node-b, node-c)");
}

TEST_CASE("CSV: a thousand interleaved senders each keep their own arrivals") {
  std::string text = "time_ms,sender\n";
  for (int round = 0; round < 3; ++round)
    for (int n = 0; n < 1000; ++n)
      text += std::to_string(round * 100000 + n) + ",node-" + std::to_string(n) + "\n";
  auto t = parse_trace(text);
  REQUIRE(t.ok());
  REQUIRE(t->senders.size() == 1000);
  CHECK(t->senders[0].sender == "node-0");
  CHECK(t->senders[999].sender == "node-999");
  CHECK(ms(t->senders[7]) == std::vector<long long>{7, 100007, 200007});
  CHECK(t->senders[999].records == 3);
}

TEST_CASE("CSV: time_s column, extra columns ignored") {
  auto t = parse_trace("host,time_s,rtt\na,1.5,3\na,2.5,4\n");
  REQUIRE(t.ok());
  CHECK(ms(t->senders[0]) == std::vector<long long>{1500, 2500});
}

TEST_CASE("JSON: numbers and objects") {
  auto n = parse_trace("[0, 1000, 2000.4]");
  REQUIRE(n.ok());
  CHECK(n->format == "json");
  CHECK(ms(n->senders[0]) == std::vector<long long>{0, 1000, 2000});
  auto o = parse_trace(
      "[\n {\"time_ms\": 10, \"sender\": \"a\", \"note\": \"x\"},\n {\"sender\": \"b\", \"time\": "
      "20},\n {\"time_s\": 0.03, \"sender\": \"a\", \"ok\": true}\n]\n");
  REQUIRE(o.ok());
  REQUIRE(o->senders.size() == 2);
  CHECK(ms(o->senders[0]) == std::vector<long long>{10, 30});
  CHECK(ms(o->senders[1]) == std::vector<long long>{20});
}

TEST_CASE("duplicates are dropped and counted; out-of-order records are sorted and counted") {
  auto t = parse_trace("0\n100\n100\n300\n200\n400\n400.2\n");
  REQUIRE(t.ok());
  const auto& s = t->senders[0];
  CHECK(ms(s) == std::vector<long long>{0, 100, 200, 300, 400});
  CHECK(s.records == 7);
  CHECK(s.duplicates == 2);  // 100 twice, and 400.2 rounds onto 400
  CHECK(s.out_of_order == 1);
}

TEST_CASE("export and re-import give back the same arrivals") {
  const std::vector<Millis> arrivals = {Millis{1764664200125}, Millis{1764664201126},
                                        Millis{1764664202130}};
  const auto csv = trace_csv(arrivals, "node-b", "vigil trace: test");
  CHECK(csv.rfind("# vigil trace: test\ntime_ms,sender\n1764664200125.000,node-b\n", 0) == 0);
  auto back = parse_trace(csv);
  REQUIRE(back.ok());
  CHECK(back->senders[0].arrivals == arrivals);
  CHECK(back->senders[0].sender == "node-b");
}

TEST_CASE("malformed input: each error names the line and the reason") {
  CHECK(error_of("") == "trace is empty: no timestamps found");
  CHECK(error_of("# only a comment\n\n") == "trace is empty: no timestamps found");
  CHECK(error_of("time_ms,sender\n") == "trace is empty: no timestamps found");
  CHECK(error_of("100\n200\nabc\n") == "line 3: 'abc' is not a number or an ISO-8601 time");
  CHECK(error_of("100\n200,a\n") == "line 2: expected one timestamp, got '200,a'");
  CHECK(error_of("100\ninf\n") == "line 2: time 'inf' is not a finite number");
  CHECK(error_of("2026-12-02T08:30:00Z\n2026-13-02T08:30:00Z\n") ==
        "line 2: '2026-13-02T08:30:00Z' is not a valid ISO-8601 time");
  CHECK(error_of("2026-12-02T08:30:00Z\n1764664200\n") ==
        "line 2: mixes ISO-8601 times and numbers");
  CHECK(error_of("when,sender\n1,a\n") ==
        "line 1: CSV header has no time, time_ms or time_s column");
  CHECK(error_of("# c\ntime,sender\n1,a\n2\n") == "line 4: row has 1 fields, the header has 2");
  CHECK(error_of("time,sender\n1,a\n,a\n") == "line 3: empty time");
  CHECK(error_of("1,a\n2,a\n") ==
        "line 1: expected a timestamp or a CSV header with a time, time_ms or time_s column, got "
        "'1,a'");
  CHECK(error_of("[1,\n2,\n3\n") == "line 4: JSON array is not closed");
  CHECK(error_of("[1, 2]\nx") == "line 2: unexpected text after the JSON array");
  CHECK(error_of("[1,\n {\"sender\": \"a\"}]") ==
        "line 2: JSON object has no time, time_ms or time_s key");
  CHECK(error_of("[1, true]") == "line 1: expected a number or an object in the JSON array");
  CHECK(error_of("[1, 2 3]") == "line 1: expected ',' or ']' in the JSON array");
  CHECK(error_of("[{\"time\": 1, \"x\": [1]}]") ==
        "line 1: nested JSON values are not supported in a trace");
  CHECK(error_of("1e300\n2e300\n") == "line 1: time is out of range");
}

TEST_CASE("time units parse and print") {
  CHECK(parse_time_unit("auto").value() == TimeUnit::automatic);
  CHECK(parse_time_unit("s").value() == TimeUnit::seconds);
  CHECK(parse_time_unit("us").value() == TimeUnit::microseconds);
  CHECK(parse_time_unit("min").error().message ==
        "unknown time unit 'min' (expected auto, s, ms or us)");
}
