#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "agent/ack_trace.hpp"
#include "agent/trace_endpoint.hpp"
#include "http/query_string.hpp"

using vigil::Millis;
using vigil::native::AckTrace;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

vigil::swim::Node node_named(const std::string& name) {
  return vigil::swim::Node::create(vigil::swim::Config::local(), name,
                                   vigil::swim::Address::from_octets(127, 0, 0, 1, 7946),
                                   vigil::Rng(1))
      .value();
}

}  // namespace

TEST_CASE("a peer's trace keeps its newest rows, oldest first, and counts the ones it drops") {
  AckTrace trace(1'000'000.0, 4, 8);
  for (int i = 0; i < 10; ++i) trace.record("b", 100.0 * i);
  const auto times = trace.wall_times("b");
  REQUIRE(times.size() == 4);
  CHECK(times.front() == doctest::Approx(1'000'600.0));
  CHECK(times.back() == doctest::Approx(1'000'900.0));
  for (std::size_t i = 1; i < times.size(); ++i) CHECK(times[i] > times[i - 1]);
  const auto c = trace.counters();
  CHECK(c.entries == 4);
  CHECK(c.rows_dropped == 6);
  CHECK(c.peers == 1);
}

TEST_CASE("the record holds at most its peer cap, dropping the peer heard from longest ago") {
  AckTrace trace(0.0, 4, 3);
  trace.record("a", 1);
  trace.record("b", 2);
  trace.record("c", 3);
  trace.record("a", 4);  // a is fresh again: b is now the stalest
  trace.record("d", 5);
  CHECK(trace.has("a"));
  CHECK_FALSE(trace.has("b"));
  CHECK(trace.has("c"));
  CHECK(trace.has("d"));
  CHECK(trace.counters().peers_evicted == 1);
  CHECK(trace.counters().entries == 4);  // a: 2, c: 1, d: 1
}

TEST_CASE("a flood of peer names and acks leaves the record's memory at its bound") {
  AckTrace trace(0.0, 64, 16);
  for (int i = 0; i < 200; ++i) trace.record("warm-" + std::to_string(i % 16), i);
  for (int i = 0; i < 16 * 64; ++i) trace.record("warm-" + std::to_string(i % 16), i);
  const auto full = trace.counters();
  CHECK(full.entries == 16 * 64);
  for (int i = 0; i < 20000; ++i) trace.record("peer-" + std::to_string(i), i);
  for (int i = 0; i < 20000; ++i) trace.record("peer-" + std::to_string(i % 16), i);
  const auto c = trace.counters();
  CHECK(c.peers == 16);
  CHECK(c.entries <= 16 * 64);
  CHECK(c.bytes <= full.bytes + 16 * 64);  // names of another length, never more rows
  CHECK(c.peers_evicted >= 20000);
}

TEST_CASE("the CSV is the trace contract: a comment, the header, ms with 3 decimals, the sender") {
  AckTrace trace(1'764'664'200'000.0, 16, 4);
  trace.record("node-b", 125.25);
  trace.record("node-b", 1126.875);
  const auto rows = lines(trace.csv("node-a", "node-b", Millis{1000}));
  REQUIRE(rows.size() == 4);
  CHECK(rows[0] ==
        "# vigil trace: ack arrivals from node-b seen by node-a, probe interval 1000 ms");
  CHECK(rows[1] == "time_ms,sender");
  CHECK(rows[2] == "1764664200125.250,node-b");
  CHECK(rows[3] == "1764664201126.875,node-b");
}

TEST_CASE("a sender holding a comma or a quote is quoted as CSV wants") {
  AckTrace trace(0.0, 4, 4);
  trace.record("a,\"b\"", 1.0);
  const auto rows = lines(trace.csv("self", "a,\"b\"", Millis{500}));
  REQUIRE(rows.size() == 3);
  CHECK(rows[2] == "1.000,\"a,\"\"b\"\"\"");
}

TEST_CASE("query values are found by key and percent-decoded; bad escapes are refused") {
  using vigil::native::query_value;
  CHECK(vigil::native::target_path("/v1/trace?peer=a") == "/v1/trace");
  CHECK(query_value("/v1/trace?x=1&peer=node%2Db", "peer") == std::optional<std::string>("node-b"));
  CHECK(query_value("/v1/trace?peer=a%26b%3Dc&peer=z", "peer") ==
        std::optional<std::string>("a&b=c"));
  CHECK(query_value("/v1/trace?peer=", "peer") == std::optional<std::string>(""));
  CHECK_FALSE(query_value("/v1/trace", "peer"));
  CHECK_FALSE(query_value("/v1/trace?peers=a", "peer"));
  CHECK_FALSE(query_value("/v1/trace?peer=a%2", "peer"));
  CHECK_FALSE(query_value("/v1/trace?peer=a%zz", "peer"));
  CHECK(vigil::native::percent_encode("a b&c=d/é") == "a%20b%26c%3Dd%2F%C3%A9");
  const std::string name = "odd & name=1%";
  CHECK(query_value("/?peer=" + vigil::native::percent_encode(name), "peer") ==
        std::optional<std::string>(name));
}

TEST_CASE("/v1/trace answers 400 without a valid name, 404 for a stranger, CSV for a peer") {
  const auto node = node_named("a");
  AckTrace trace(0.0, 8, 8);
  trace.record("gone", 10.0);  // no longer a member, still traced
  using vigil::native::trace_response;
  CHECK(trace_response(trace, "/v1/trace", node).status == 400);
  CHECK(trace_response(trace, "/v1/trace?peer=", node).status == 400);
  CHECK(trace_response(trace, "/v1/trace?peer=a%0Ab", node).status == 400);
  CHECK(trace_response(trace, "/v1/trace?peer=" + std::string(600, 'x'), node).status == 400);
  const auto stranger = trace_response(trace, "/v1/trace?peer=nobody", node);
  CHECK(stranger.status == 404);
  CHECK(stranger.body.find("nobody") != std::string::npos);
  CHECK(trace.counters().exports == 0);
  const auto ok = trace_response(trace, "/v1/trace?peer=gone", node);
  CHECK(ok.status == 200);
  CHECK(ok.content_type.rfind("text/csv", 0) == 0);
  REQUIRE(ok.headers.size() == 1);
  CHECK(ok.headers[0].first == "content-disposition:");
  CHECK(ok.headers[0].second == "attachment; filename=\"trace-gone.csv\"");
  CHECK(lines(ok.body).size() == 3);
  CHECK(trace.counters().exports == 1);
  // Itself is a member with no acks: the header alone.
  CHECK(lines(trace_response(trace, "/v1/trace?peer=a", node).body).size() == 2);
}

TEST_CASE("the download's file name keeps only safe characters") {
  using vigil::native::trace_file_name;
  CHECK(trace_file_name("node-b.dc1") == "trace-node-b.dc1.csv");
  CHECK(trace_file_name("../x\"y;z") == "trace-.._x_y_z.csv");
  CHECK(trace_file_name(std::string(100, 'n')).size() == 6 + 64 + 4);
}

TEST_CASE("a full trace at the real limits: 4096 rows, about 32 KiB held, about 100 KiB of CSV") {
  AckTrace trace(1'764'664'200'000.0);
  constexpr std::size_t kRows = vigil::native::AckTraceLimits::kEntriesPerPeer;
  for (std::size_t i = 0; i < kRows + 100; ++i) trace.record("node-b", 1000.0 * i + 0.125);
  const auto c = trace.counters();
  CHECK(c.entries == kRows);
  CHECK(c.rows_dropped == 100);
  CHECK(c.bytes <= kRows * sizeof(double) + 512);
  const std::string csv = trace.csv("node-a", "node-b", Millis{1000});
  CHECK(lines(csv).size() == kRows + 2);
  CHECK(csv.size() <= kRows * (18 + 1 + 6 + 1) + 128);
  MESSAGE("a full trace of node-b: " << csv.size() << " bytes of CSV, " << c.bytes
                                     << " bytes held");
}
