#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include <vigil/sim/swim_cluster.hpp>
#include <vigil/swim/counters.hpp>

using vigil::swim::CounterInfo;
using vigil::swim::CounterKind;
using vigil::swim::Counters;

namespace {

// Every number of `c` in the list's order, the per-type arrays unrolled.
std::vector<std::uint64_t*> slots(Counters& c) {
  std::vector<std::uint64_t*> out;
  for_each_counter(c, [&](const CounterInfo& info, auto& field) {
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, Counters::ByType>) {
      CHECK(info.kind == CounterKind::by_type);
      for (auto& v : field) out.push_back(&v);
    } else {
      CHECK(info.kind == CounterKind::total);
      out.push_back(&field);
    }
  });
  return out;
}

std::vector<std::uint64_t> values(Counters c) {
  std::vector<std::uint64_t> out;
  for (const auto* v : slots(c)) out.push_back(*v);
  return out;
}

}  // namespace

TEST_CASE("the counters' list names every field of Counters once") {
  Counters c;
  const auto all = slots(c);
  // Distinct addresses filling the whole struct: a field missing from the list leaves a gap.
  const std::set<std::uint64_t*> distinct(all.begin(), all.end());
  CHECK(distinct.size() == all.size());
  CHECK(all.size() * sizeof(std::uint64_t) == sizeof(Counters));
  for (const auto* v : all) {
    const auto* base = reinterpret_cast<const unsigned char*>(&c);
    const auto* at = reinterpret_cast<const unsigned char*>(v);
    CHECK(std::less_equal<>{}(base, at));
    CHECK(std::less<>{}(at, base + sizeof(Counters)));
  }
}

TEST_CASE("the counters' names are distinct and in Prometheus style") {
  std::set<std::string> keys, metrics;
  std::size_t count = 0;
  vigil::swim::for_each_counter_member([&](const CounterInfo& info, auto) {
    ++count;
    keys.emplace(info.key);
    metrics.emplace(info.metric);
    const std::string metric(info.metric);
    CHECK_MESSAGE(metric.starts_with("vigil_"), metric);
    CHECK_MESSAGE(metric.ends_with("_total"), metric);
    CHECK_MESSAGE(!info.help.empty(), metric);
    CHECK_MESSAGE(info.help.find('\n') == std::string_view::npos, metric);
  });
  CHECK(keys.size() == count);
  CHECK(metrics.size() == count);
}

TEST_CASE("add sums every counter, per-type slots included") {
  Counters a, b;
  const auto sa = slots(a), sb = slots(b);
  REQUIRE(sa.size() == sb.size());
  for (std::size_t i = 0; i < sa.size(); ++i) {
    *sa[i] = i + 1;
    *sb[i] = 1000 * (i + 1);
  }
  const auto b_before = values(b);
  vigil::swim::add(a, b);
  const auto sum = values(a);
  for (std::size_t i = 0; i < sum.size(); ++i)
    CHECK_MESSAGE(sum[i] == 1001 * (i + 1), "slot " << i);
  CHECK(values(b) == b_before);
}

TEST_CASE("a simulated cluster's totals are its nodes' counters summed, field by field") {
  vigil::sim::ClusterOptions o;
  o.nodes = 6;
  o.config = vigil::swim::Config::lan();
  o.static_membership = false;  // joins through node 0, each with a full-state exchange
  auto cluster = vigil::sim::SwimCluster::create(o).value();
  cluster.run_for(vigil::Millis{20000});

  std::vector<std::uint64_t> expected;
  for (std::size_t n = 0; n < cluster.size(); ++n) {
    const auto v = values(cluster.node(n).counters());
    if (expected.empty()) expected.assign(v.size(), 0);
    for (std::size_t i = 0; i < v.size(); ++i) expected[i] += v[i];
  }
  const Counters totals = cluster.totals();
  CHECK(values(totals) == expected);
  // Joins exchange full states and probes run: the comparison is not between zeros.
  CHECK(totals.streams_sent > 0);
  CHECK(totals.stream_bytes_sent > 0);
  CHECK(totals.probes > 0);
}
