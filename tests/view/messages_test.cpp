#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <vigil/view/messages.hpp>

// The live view's protocol (vigil::view): every message survives to_json -> from_json, what real
// agents sent reads and writes back to the same bytes, and docs/websocket.md lists exactly the
// fields the definition writes.

namespace view = vigil::view;
using view::Json;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string captured(const std::string& name) {
  std::string text = read_text(std::string(VIGIL_TEST_SOURCE_DIR) + "/view/captured/" + name);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// Samples with every optional field present, so that they also show every key.
view::MemberRow sample_member() {
  return {.name = "node-2",
          .address = "10.0.0.2:7946",
          .state = view::MemberState::suspect,
          .incarnation = 7,
          .tags = {{"vigil-view", "http://10.0.0.2:8081"}, {"role", "web"}},
          .view = "http://10.0.0.2:8081",
          .phi = 3.25,
          .probes = view::ProbeCounts{40, 6, 5, 1},
          .gaps = view::Gaps{{998.5, 1001.0, 1000.25}, 999.9, 1.1}};
}

view::SelfInfo sample_self() {
  return {.name = "node-1",
          .address = "10.0.0.1:7946",
          .incarnation = 3,
          .state = view::MemberState::alive,
          .health = 2,
          .members = 5,
          .profile = "wan",
          .paused = true,
          .left = false,
          .label = "blue",
          .encrypted = true,
          .time_ms = 123456,
          .tags = {{"vigil-view", "http://10.0.0.1:8081"}},
          .view = "http://10.0.0.1:8081"};
}

view::ConfigInfo sample_config() {
  return {.profile = "wan",
          .probe_interval_ms = 5000,
          .probe_timeout_ms = 3000,
          .gossip_interval_ms = 500,
          .gossip_nodes = 4,
          .suspicion_mult = 6,
          .suspicion_max_timeout_mult = 6,
          .retransmit_mult = 4,
          .indirect_checks = 3,
          .push_pull_interval_ms = 60000,
          .join_follow_up_ms = 2000,
          .reconnect_interval_ms = 30000,
          .gossip_to_the_dead_ms = 60000,
          .lifeguard = {true, false, true}};
}

view::FaultsInfo sample_faults() {
  return {.loss = 0.25,
          .delay_ms = 40,
          .jitter_ms = 5.5,
          .on_send = true,
          .on_receive = true,
          .blocked = {"10.0.0.3:7946"},
          .paused_until_ms = 9000};
}

Json sample_counters() {
  return {{"probes", 12}, {"messages_sent", {{"ping", 12}, {"ack", 11}}}};
}

view::Snapshot sample_snapshot() {
  return {.self = sample_self(),
          .members = {sample_member()},
          .counters = sample_counters(),
          .config = sample_config(),
          .faults = sample_faults()};
}

view::Stats sample_stats() {
  view::MemberRow m = sample_member();
  m.gaps.reset();
  return {.self = sample_self(), .members = {m}, .counters = sample_counters()};
}

view::Event sample_event() {
  return {.kind = vigil::swim::EventKind::dead,
          .member = "node-2",
          .incarnation = 7,
          .by = "node-3",
          .at_ms = 4500};
}

view::UserMessage sample_user() {
  return {.from = "10.0.0.4:7946", .at_ms = 77, .size = 3, .hex = "00ff10"};
}

view::Packet sample_packet() {
  return {.t = 48309,
          .out = false,
          .tcp = false,
          .kind = "ping-req",
          .peer = "node-3",
          .address = "10.0.0.3:7946",
          .size = 118,
          .dropped = true,
          .delay_ms = 20,
          .seq = 412,
          .target = "node-2",
          .rumours = {{"alive", "node-4", 3}, {"suspect", "node-2", 7}}};
}

view::PacketBatch sample_batch() {
  view::Packet plain = sample_packet();
  plain.out = true;
  plain.tcp = true;
  plain.kind = "push-pull";
  plain.delay_ms.reset();
  plain.seq.reset();
  plain.target.reset();
  plain.rumours.clear();
  return {.at_ms = 48400, .packets = {sample_packet(), plain}, .skipped = 2, .skipped_total = 9};
}

view::Ok sample_ok() {
  return {.command = "packets", .on = true, .max_per_s = 200.0};
}

view::Error sample_error() {
  return {.code = "rate-limited", .message = "too many", .command = "block", .dropped = 12};
}

template <typename T>
T round_trip(const T& value) {
  const Json j = value;
  // Through text as well: what travels is the dump.
  return Json::parse(j.dump()).get<T>();
}

// The keys of an object written by the definition.
std::set<std::string> keys(const Json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

// docs/websocket.md's "Fields of each message" table: object name -> its backquoted fields.
std::map<std::string, std::set<std::string>> documented_fields() {
  const std::string doc = read_text(std::string(VIGIL_SOURCE_DIR) + "/docs/websocket.md");
  const auto section = doc.find("\n## Fields of each message\n");
  REQUIRE(section != std::string::npos);
  std::map<std::string, std::set<std::string>> out;
  std::istringstream lines(doc.substr(section + 1));
  std::string line;
  std::getline(lines, line);  // the heading
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (line.rfind('|', 0) != 0) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    // | `name` | `a`, `b`, ... | what |
    const auto second = line.find(" | ", 2);
    // The header row and the rule under it name no field.
    if (second == std::string::npos || line.find('`') > second) continue;
    const std::string object = line.substr(3, line.find('`', 3) - 3);
    const auto third = line.find(" | ", second + 3);
    const std::string cell = line.substr(second + 3, third - second - 3);
    std::set<std::string>& fields = out[object];
    for (std::size_t at = cell.find('`'); at != std::string::npos;) {
      const auto end = cell.find('`', at + 1);
      fields.insert(cell.substr(at + 1, end - at - 1));
      at = cell.find('`', end + 1);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("view: member state names and their inverse agree, and nothing else is a state") {
  CHECK(view::kMemberStates.size() == 4);
  for (view::MemberState s : view::kMemberStates) {
    const auto back = view::member_state_from_string(view::to_string(s));
    REQUIRE(back.has_value());
    CHECK(*back == s);
  }
  CHECK_FALSE(view::member_state_from_string("Alive").has_value());
  CHECK_FALSE(view::member_state_from_string("").has_value());
  CHECK_FALSE(view::member_state_from_string("unknown").has_value());
}

TEST_CASE("view: severity ranks dead, suspect, left, alive, unknown") {
  using S = view::MemberState;
  CHECK(view::severity(S::dead) > view::severity(S::suspect));
  CHECK(view::severity(S::suspect) > view::severity(S::left));
  CHECK(view::severity(S::left) > view::severity(S::alive));
  CHECK(view::severity(S::alive) > view::severity(std::nullopt));
}

TEST_CASE("view: event kinds read back from their names") {
  for (auto k : {vigil::swim::EventKind::join, vigil::swim::EventKind::refuted,
                 vigil::swim::EventKind::removed, vigil::swim::EventKind::conflict}) {
    const auto back = view::event_kind_from_string(vigil::swim::to_string(k));
    REQUIRE(back.has_value());
    CHECK(*back == k);
  }
  CHECK_FALSE(view::event_kind_from_string("exploded").has_value());
}

TEST_CASE("view: every message survives to_json and from_json") {
  CHECK(round_trip(sample_member()) == sample_member());
  CHECK(round_trip(sample_self()) == sample_self());
  CHECK(round_trip(sample_config()) == sample_config());
  CHECK(round_trip(sample_faults()) == sample_faults());
  CHECK(round_trip(sample_snapshot()) == sample_snapshot());
  CHECK(round_trip(sample_stats()) == sample_stats());
  CHECK(round_trip(sample_event()) == sample_event());
  CHECK(round_trip(sample_user()) == sample_user());
  CHECK(round_trip(sample_batch()) == sample_batch());
  CHECK(round_trip(sample_ok()) == sample_ok());
  CHECK(round_trip(sample_error()) == sample_error());

  SUBCASE("optional fields left out stay out") {
    view::MemberRow bare;
    bare.name = "b";
    bare.address = "x:1";
    bare.state = view::MemberState::left;
    const Json j = bare;
    CHECK_FALSE(j.contains("phi"));
    CHECK_FALSE(j.contains("view"));
    CHECK_FALSE(j.contains("probes"));
    CHECK_FALSE(j.contains("gaps_ms"));
    CHECK(j.at("tags") == Json::object());
    CHECK(round_trip(bare) == bare);
    view::Event quiet = sample_event();
    quiet.by.clear();
    CHECK_FALSE(Json(quiet).contains("by"));
  }
  SUBCASE("an unbounded phi travels as null and reads back unbounded") {
    view::MemberRow m = sample_member();
    m.phi = std::numeric_limits<double>::infinity();
    CHECK(Json(m).at("phi").is_null());
    CHECK(round_trip(m) == m);
  }
}

TEST_CASE("view: reading never throws, and keeps defaults for what is missing or mistyped") {
  for (const char* text :
       {"null", "[]", "3", "\"x\"", "{}", R"({"self":7,"members":{"a":1},"config":[],"faults":""})",
        R"({"members":[1,"a",null,{"name":5,"state":"zombie","incarnation":-4,"phi":"x"}]})"}) {
    const Json j = Json::parse(text);
    CHECK_NOTHROW((void)j.get<view::Snapshot>());
    CHECK_NOTHROW((void)j.get<view::Stats>());
    CHECK_NOTHROW((void)j.get<view::Event>());
    CHECK_NOTHROW((void)j.get<view::PacketBatch>());
    CHECK_NOTHROW((void)view::member_rows_from_json(j));
  }
  const auto odd =
      Json::parse(R"({"members":[1,{"name":"z","state":"zombie","incarnation":-4,"phi":"x"}]})")
          .get<view::Stats>();
  REQUIRE(odd.members.size() == 1);
  CHECK(odd.members[0].name == "z");
  CHECK_FALSE(odd.members[0].state.has_value());  // not a state: unknown, not alive
  CHECK(odd.members[0].incarnation == 0);         // clamped into the field's range
  CHECK(std::isinf(*odd.members[0].phi));         // present but not a number: unbounded
  const auto big = Json::parse(R"({"incarnation":1e12,"time_ms":2.5})").get<view::SelfInfo>();
  CHECK(big.incarnation == std::numeric_limits<std::uint32_t>::max());
  CHECK(big.time_ms == 2);
}

TEST_CASE("view: what real agents sent reads and writes back unchanged") {
  SUBCASE("a snapshot, byte for byte") {
    const std::string text = captured("snapshot.json");
    const auto snapshot = Json::parse(text).get<view::Snapshot>();
    CHECK(snapshot.self.name == "cap-a");
    CHECK(snapshot.self.state == view::MemberState::alive);
    CHECK(snapshot.config.profile == "local");
    REQUIRE(snapshot.members.size() == 2);
    for (const auto& m : snapshot.members) {
      CHECK(m.state == view::MemberState::alive);
      REQUIRE(m.gaps.has_value());
      CHECK_FALSE(m.gaps->gaps_ms.empty());
      CHECK(m.probes.has_value());
      CHECK(m.view.has_value());
    }
    CHECK(Json(snapshot).dump() == text);
  }
  SUBCASE("stats, an event, self and the member list, byte for byte") {
    for (const char* name : {"stats.json", "event.json", "self.json", "members.json"}) {
      CAPTURE(name);
      const std::string text = captured(name);
      const Json j = Json::parse(text);
      Json again;
      if (std::string(name) == "stats.json") again = j.get<view::Stats>();
      if (std::string(name) == "event.json") again = j.get<view::Event>();
      if (std::string(name) == "self.json") again = j.get<view::SelfInfo>();
      if (std::string(name) == "members.json") again = view::member_rows_from_json(j);
      CHECK(again.dump() == text);
    }
  }
  SUBCASE("a packet batch, an ok and an error, field for field") {
    // The packet log writes its batches by hand, so only their content is compared.
    const Json packets = Json::parse(captured("packets.json"));
    const auto batch = packets.get<view::PacketBatch>();
    CHECK_FALSE(batch.packets.empty());
    CHECK(Json(batch) == packets);
    const Json ok = Json::parse(captured("ok.json"));
    CHECK(Json(ok.get<view::Ok>()) == ok);
    const Json error = Json::parse(captured("error.json"));
    CHECK(Json(error.get<view::Error>()) == error);
  }
}

TEST_CASE("view: docs/websocket.md lists exactly the fields each message has") {
  const std::map<std::string, Json> written = {{"snapshot", sample_snapshot()},
                                               {"stats", sample_stats()},
                                               {"self", sample_self()},
                                               {"member", sample_member()},
                                               {"probes", *sample_member().probes},
                                               {"config", sample_config()},
                                               {"lifeguard", sample_config().lifeguard},
                                               {"faults", sample_faults()},
                                               {"event", sample_event()},
                                               {"user", sample_user()},
                                               {"packets", sample_batch()},
                                               {"packet", sample_packet()},
                                               {"rumour", sample_packet().rumours.front()},
                                               {"ok", sample_ok()},
                                               {"error", sample_error()}};
  const auto documented = documented_fields();
  for (const auto& [object, j] : written) {
    CAPTURE(object);
    REQUIRE(documented.count(object) == 1);
    CHECK(documented.at(object) == keys(j));
  }
  for (const auto& [object, fields] : documented) {
    CAPTURE(object);
    CHECK(written.count(object) == 1);  // nothing documented that the definition lacks
  }
}
