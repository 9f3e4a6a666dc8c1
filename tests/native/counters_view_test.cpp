#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>

#include <vigil/wire/messages.hpp>
#include "agent/agent_view.hpp"

using vigil::swim::CounterInfo;
using vigil::swim::CounterKind;
using vigil::swim::Counters;

namespace {

// Prometheus text (0.0.4) as a test reads it: families' TYPE and HELP lines, and samples by
// their full name with labels ("vigil_x_total" or "vigil_x_total{type=\"ping\"}").
struct Exposition {
  std::map<std::string, int> type_lines;  // family -> how many TYPE lines name it
  std::map<std::string, std::string> types, helps;
  std::map<std::string, std::uint64_t> samples;
};

Exposition parse(const std::string& text) {
  Exposition e;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    REQUIRE_MESSAGE(!line.empty(), "an empty line in the exposition");
    if (line.starts_with("# TYPE ") || line.starts_with("# HELP ")) {
      const std::string rest = line.substr(7);
      const auto space = rest.find(' ');
      REQUIRE_MESSAGE(space != std::string::npos, line);
      const std::string family = rest.substr(0, space);
      if (line[2] == 'T') {
        ++e.type_lines[family];
        e.types[family] = rest.substr(space + 1);
      } else {
        e.helps[family] = rest.substr(space + 1);
      }
      continue;
    }
    REQUIRE_MESSAGE(line[0] != '#', line);
    const auto space = line.rfind(' ');
    REQUIRE_MESSAGE(space != std::string::npos, line);
    const std::string value = line.substr(space + 1);
    // Gauges may be fractional; only counters' values are compared, and those are integers.
    e.samples[line.substr(0, space)] =
        value.find_first_not_of("0123456789") == std::string::npos ? std::stoull(value) : 0;
  }
  return e;
}

std::string type_label(const CounterInfo& info, std::size_t t) {
  return std::string(info.metric) + "{type=\"" +
         std::string(vigil::wire::to_string(static_cast<vigil::wire::MessageType>(t))) + "\"}";
}

// Every number of the counters a distinct non-zero value, so that no per-type sample is
// left out for being zero and a value read from the wrong field shows.
Counters distinct_counters() {
  Counters k;
  std::uint64_t next = 1;
  for_each_counter(k, [&](const CounterInfo&, auto& field) {
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, Counters::ByType>) {
      for (auto& v : field) v = next++;
    } else {
      field = next++;
    }
  });
  return k;
}

}  // namespace

TEST_CASE("the agent's JSON carries every counter of the list under its key, and nothing else") {
  const Counters k = distinct_counters();
  const nlohmann::json j = vigil::native::counters_json(k);
  REQUIRE(j.is_object());
  std::size_t listed = 0;
  for_each_counter(k, [&](const CounterInfo& info, const auto& field) {
    ++listed;
    const std::string key(info.key);
    REQUIRE_MESSAGE(j.contains(key), key);
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, Counters::ByType>) {
      CHECK(info.kind == CounterKind::by_type);
      REQUIRE_MESSAGE(j[key].is_object(), key);
      CHECK_MESSAGE(j[key].size() == field.size(), key);
      for (std::size_t t = 0; t < field.size(); ++t) {
        const std::string type(vigil::wire::to_string(static_cast<vigil::wire::MessageType>(t)));
        CHECK_MESSAGE(j[key].value(type, std::uint64_t{0}) == field[t], key << "." << type);
      }
    } else {
      CHECK(info.kind == CounterKind::total);
      CHECK_MESSAGE(j[key] == field, key);
    }
  });
  CHECK(j.size() == listed);
}

TEST_CASE("per-type counters leave out the types never seen") {
  Counters k;
  k.messages_sent[Counters::index(vigil::wire::MessageType::push_pull)] = 3;
  const nlohmann::json j = vigil::native::counters_json(k);
  CHECK(j["messages_sent"] == nlohmann::json{{"push_pull", 3}});
  CHECK(j["messages_received"] == nlohmann::json::object());
  const Exposition e = parse(vigil::native::counters_metrics_text(k));
  CHECK(e.samples.at("vigil_messages_sent_total{type=\"push_pull\"}") == 3);
  CHECK(e.samples.count("vigil_messages_sent_total{type=\"ping\"}") == 0);
  CHECK(e.types.at("vigil_messages_received_total") == "counter");
}

TEST_CASE("the Prometheus text carries every counter of the list with its help and value") {
  const Counters k = distinct_counters();
  const Exposition e = parse(vigil::native::counters_metrics_text(k));
  for_each_counter(k, [&](const CounterInfo& info, const auto& field) {
    const std::string metric(info.metric);
    CHECK_MESSAGE(e.type_lines.count(metric) == 1, metric);
    CHECK_MESSAGE(e.types.count(metric) == 1, metric);
    if (e.types.count(metric)) CHECK_MESSAGE(e.types.at(metric) == "counter", metric);
    if (e.helps.count(metric))
      CHECK_MESSAGE(e.helps.at(metric) == info.help, metric);
    else
      FAIL_CHECK("no HELP line for " << metric);
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, Counters::ByType>) {
      for (std::size_t t = 0; t < field.size(); ++t) {
        const std::string sample = type_label(info, t);
        REQUIRE_MESSAGE(e.samples.count(sample), sample);
        CHECK_MESSAGE(e.samples.at(sample) == field[t], sample);
      }
    } else {
      REQUIRE_MESSAGE(e.samples.count(metric), metric);
      CHECK_MESSAGE(e.samples.at(metric) == field, metric);
    }
  });
}

TEST_CASE("an agent's /metrics has every counter of the list once, beside its other metrics") {
  const auto node = vigil::swim::Node::create(vigil::swim::Config::lan(), "a",
                                              vigil::swim::Address::from_octets(127, 0, 0, 1, 7946),
                                              vigil::Rng(1));
  REQUIRE(node);
  const vigil::native::PeerDetectors detectors{vigil::detect::PhiAccrualConfig{}};
  const vigil::native::FaultInjector faults{vigil::Rng(2)};
  const std::string profile = "lan";
  const vigil::native::AgentViewContext context{*node, detectors, faults, profile, vigil::Millis{0},
                                                false, {}};
  const Exposition e = parse(vigil::native::metrics_text(context));
  // A family written twice (the list's counters and another block) is invalid exposition.
  for (const auto& type_line : e.type_lines) CHECK_MESSAGE(type_line.second == 1, type_line.first);
  for_each_counter(node->counters(), [&](const CounterInfo& info, const auto&) {
    const std::string metric(info.metric);
    CHECK_MESSAGE(e.types.count(metric) == 1, metric);
    // A fresh node has counted nothing: plain counters read 0, per-type ones have no sample yet.
    if (info.kind == CounterKind::total) CHECK_MESSAGE(e.samples.count(metric) == 1, metric);
  });
  CHECK(e.types.at("vigil_members") == "gauge");
  CHECK(e.types.count("vigil_streams_refused_total") == 1);
}
