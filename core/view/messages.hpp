// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vigil/swim/outbox.hpp>
#include <vigil/view/member_state.hpp>

// The live view's protocol (docs/websocket.md): every message an agent sends over its WebSocket
// and its /v1 answers, as structs with nlohmann's to_json/from_json. The agent writes them, and
// the web app and `vigil members` read them, through these definitions alone.
//
// Reading never throws, whatever a server sends: a missing field, or one of the wrong type, keeps
// its default, as a stranger's or a newer agent's answer must still show what it can.
namespace vigil::view {

using Json = nlohmann::json;
using Tags = std::map<std::string, std::string>;

// The field names, each written once.
namespace key {
inline constexpr const char* type = "type";
inline constexpr const char* name = "name";
inline constexpr const char* address = "address";
inline constexpr const char* state = "state";
inline constexpr const char* incarnation = "incarnation";
inline constexpr const char* tags = "tags";
inline constexpr const char* view = "view";
inline constexpr const char* phi = "phi";
inline constexpr const char* probes = "probes";
inline constexpr const char* total = "total";
inline constexpr const char* direct_failed = "direct_failed";
inline constexpr const char* indirect_acked = "indirect_acked";
inline constexpr const char* failed = "failed";
inline constexpr const char* gaps_ms = "gaps_ms";
inline constexpr const char* mean_ms = "mean_ms";
inline constexpr const char* std_ms = "std_ms";
inline constexpr const char* health = "health";
inline constexpr const char* members = "members";
inline constexpr const char* profile = "profile";
inline constexpr const char* paused = "paused";
inline constexpr const char* left = "left";
inline constexpr const char* label = "label";
inline constexpr const char* encrypted = "encrypted";
inline constexpr const char* time_ms = "time_ms";
inline constexpr const char* self = "self";
inline constexpr const char* counters = "counters";
inline constexpr const char* config = "config";
inline constexpr const char* faults = "faults";
inline constexpr const char* probe_interval_ms = "probe_interval_ms";
inline constexpr const char* probe_timeout_ms = "probe_timeout_ms";
inline constexpr const char* gossip_interval_ms = "gossip_interval_ms";
inline constexpr const char* gossip_nodes = "gossip_nodes";
inline constexpr const char* suspicion_mult = "suspicion_mult";
inline constexpr const char* suspicion_max_timeout_mult = "suspicion_max_timeout_mult";
inline constexpr const char* retransmit_mult = "retransmit_mult";
inline constexpr const char* indirect_checks = "indirect_checks";
inline constexpr const char* push_pull_interval_ms = "push_pull_interval_ms";
inline constexpr const char* join_follow_up_ms = "join_follow_up_ms";
inline constexpr const char* reconnect_interval_ms = "reconnect_interval_ms";
inline constexpr const char* gossip_to_the_dead_ms = "gossip_to_the_dead_ms";
inline constexpr const char* lifeguard = "lifeguard";
inline constexpr const char* lha_probe = "lha_probe";
inline constexpr const char* lha_suspicion = "lha_suspicion";
inline constexpr const char* buddy_system = "buddy_system";
inline constexpr const char* loss = "loss";
inline constexpr const char* delay_ms = "delay_ms";
inline constexpr const char* jitter_ms = "jitter_ms";
inline constexpr const char* on_send = "on_send";
inline constexpr const char* on_receive = "on_receive";
inline constexpr const char* blocked = "blocked";
inline constexpr const char* paused_until_ms = "paused_until_ms";
inline constexpr const char* kind = "kind";
inline constexpr const char* member = "member";
inline constexpr const char* by = "by";
inline constexpr const char* at_ms = "at_ms";
inline constexpr const char* from = "from";
inline constexpr const char* size = "size";
inline constexpr const char* hex = "hex";
inline constexpr const char* packets = "packets";
inline constexpr const char* skipped = "skipped";
inline constexpr const char* skipped_total = "skipped_total";
inline constexpr const char* t = "t";
inline constexpr const char* dir = "dir";
inline constexpr const char* via = "via";
inline constexpr const char* peer = "peer";
inline constexpr const char* dropped = "dropped";
inline constexpr const char* seq = "seq";
inline constexpr const char* target = "target";
inline constexpr const char* rumours = "rumours";
inline constexpr const char* node = "node";
inline constexpr const char* command = "command";
inline constexpr const char* on = "on";
inline constexpr const char* max_per_s = "max_per_s";
inline constexpr const char* code = "code";
inline constexpr const char* message = "message";
}  // namespace key

// The `type` of each message from the agent.
namespace message_type {
inline constexpr std::string_view snapshot = "snapshot";
inline constexpr std::string_view stats = "stats";
inline constexpr std::string_view event = "event";
inline constexpr std::string_view user = "user";
inline constexpr std::string_view packets = "packets";
inline constexpr std::string_view ok = "ok";
inline constexpr std::string_view error = "error";
}  // namespace message_type

// How the agent's probes of a member ended (all zeros before the first).
struct ProbeCounts {
  std::uint64_t total = 0;
  std::uint64_t direct_failed = 0;   // no ack before the indirect phase began
  std::uint64_t indirect_acked = 0;  // acked, but only after the indirect phase began
  std::uint64_t failed = 0;          // not acked at all
  bool operator==(const ProbeCounts&) const = default;
};

// The phi-accrual detector's view of a member: recent inter-ack gaps, oldest first, and its fit.
struct Gaps {
  std::vector<double> gaps_ms;
  double mean_ms = 0;
  double std_ms = 0;
  bool operator==(const Gaps&) const = default;
};

// One member of an agent's list (/v1/members, snapshots, stats).
struct MemberRow {
  std::string name;
  std::string address;
  std::optional<MemberState> state;  // nullopt: a name this vocabulary does not know
  std::uint32_t incarnation = 0;
  Tags tags;
  std::optional<std::string> view;  // a vigil agent's live-view URL
  std::optional<double> phi;        // once an ack was seen; infinity travels as null
  std::optional<ProbeCounts> probes;
  std::optional<Gaps> gaps;  // snapshots only
  bool operator==(const MemberRow&) const = default;
};

// The agent itself (/v1/self, `self` of snapshots and stats).
struct SelfInfo {
  std::string name;
  std::string address;
  std::uint32_t incarnation = 0;
  std::optional<MemberState> state = MemberState::alive;
  int health = 0;  // Lifeguard's local health score, 0 healthy
  std::uint64_t members = 0;
  std::string profile;
  bool paused = false;
  bool left = false;
  std::string label;
  bool encrypted = false;
  std::int64_t time_ms = 0;  // the agent's clock
  Tags tags;
  std::optional<std::string> view;
  bool operator==(const SelfInfo&) const = default;
};

struct LifeguardSwitches {
  bool lha_probe = true;
  bool lha_suspicion = true;
  bool buddy_system = true;
  bool operator==(const LifeguardSwitches&) const = default;
};

// The profile's timings, as `config` of a snapshot.
struct ConfigInfo {
  std::string profile;
  std::int64_t probe_interval_ms = 0;
  std::int64_t probe_timeout_ms = 0;
  std::int64_t gossip_interval_ms = 0;
  int gossip_nodes = 0;
  int suspicion_mult = 0;
  int suspicion_max_timeout_mult = 0;
  int retransmit_mult = 0;
  int indirect_checks = 0;
  std::int64_t push_pull_interval_ms = 0;
  std::int64_t join_follow_up_ms = 0;
  std::int64_t reconnect_interval_ms = 0;
  std::int64_t gossip_to_the_dead_ms = 0;
  LifeguardSwitches lifeguard;
  bool operator==(const ConfigInfo&) const = default;
};

// The injected faults in force, as `faults` of a snapshot.
struct FaultsInfo {
  double loss = 0;
  double delay_ms = 0;
  double jitter_ms = 0;
  bool on_send = true;
  bool on_receive = false;
  std::vector<std::string> blocked;  // addresses this agent sends nothing to
  std::int64_t paused_until_ms = 0;
  bool operator==(const FaultsInfo&) const = default;
};

// The protocol counters by their JSON key (swim::for_each_counter lists them): a number each, or
// an object of numbers by message type. Kept as JSON: the engine's list is their one definition.
using CountersInfo = Json;

struct Snapshot {
  SelfInfo self;
  std::vector<MemberRow> members;
  CountersInfo counters = Json::object();
  ConfigInfo config;
  FaultsInfo faults;
  bool operator==(const Snapshot&) const = default;
};

struct Stats {
  SelfInfo self;
  std::vector<MemberRow> members;
  CountersInfo counters = Json::object();
  bool operator==(const Stats&) const = default;
};

// A membership change in the agent's view.
struct Event {
  std::optional<swim::EventKind> kind;  // nullopt: a kind this vocabulary does not know
  std::string member;
  std::uint32_t incarnation = 0;
  std::string by;  // the accuser of suspect and dead; empty (absent on the wire) otherwise
  std::int64_t at_ms = 0;
  bool operator==(const Event&) const = default;
};

// A memberlist user message: its size and its first 256 bytes in hex.
struct UserMessage {
  std::string from;
  std::int64_t at_ms = 0;
  std::uint64_t size = 0;
  std::string hex;
  bool operator==(const UserMessage&) const = default;
};

// Membership news piggybacked on a packet.
struct Rumour {
  std::string kind;  // suspect, alive, dead
  std::string node;
  std::uint32_t incarnation = 0;
  bool operator==(const Rumour&) const = default;
};

// One entry of the packet log.
struct Packet {
  std::int64_t t = 0;  // the agent's clock
  bool out = false;    // "dir": out or in
  bool tcp = false;    // "via": tcp or udp
  std::string kind;    // wire::packet_kind_name's names
  std::string peer;
  std::string address;
  std::uint64_t size = 0;
  bool dropped = false;
  std::optional<std::int64_t> delay_ms;
  std::optional<std::uint32_t> seq;
  std::optional<std::string> target;
  std::vector<Rumour> rumours;  // absent on the wire when empty
  bool operator==(const Packet&) const = default;
};

struct PacketBatch {
  std::int64_t at_ms = 0;
  std::vector<Packet> packets;
  std::uint64_t skipped = 0;  // since the previous batch
  std::uint64_t skipped_total = 0;
  bool operator==(const PacketBatch&) const = default;
};

// A command took effect. The packet log's answer also says whether it is on, and its rate.
struct Ok {
  std::string command;
  std::optional<bool> on;
  std::optional<double> max_per_s;
  bool operator==(const Ok&) const = default;
};

struct Error {
  std::string code;
  std::string message;
  std::optional<std::string> command;
  std::optional<std::uint64_t> dropped;  // rate-limited: messages dropped since the last notice
  bool operator==(const Error&) const = default;
};

std::optional<swim::EventKind> event_kind_from_string(std::string_view name);

// The state an event leaves its member in, for the events that change it (a join is alive).
std::optional<MemberState> state_after(swim::EventKind kind);

// The message's `type`, or empty when there is none.
std::string message_type_of(const Json& message);

void to_json(Json& j, const ProbeCounts& v);
void from_json(const Json& j, ProbeCounts& v);
void to_json(Json& j, const MemberRow& v);
void from_json(const Json& j, MemberRow& v);
void to_json(Json& j, const SelfInfo& v);
void from_json(const Json& j, SelfInfo& v);
void to_json(Json& j, const LifeguardSwitches& v);
void from_json(const Json& j, LifeguardSwitches& v);
void to_json(Json& j, const ConfigInfo& v);
void from_json(const Json& j, ConfigInfo& v);
void to_json(Json& j, const FaultsInfo& v);
void from_json(const Json& j, FaultsInfo& v);
void to_json(Json& j, const Snapshot& v);
void from_json(const Json& j, Snapshot& v);
void to_json(Json& j, const Stats& v);
void from_json(const Json& j, Stats& v);
void to_json(Json& j, const Event& v);
void from_json(const Json& j, Event& v);
void to_json(Json& j, const UserMessage& v);
void from_json(const Json& j, UserMessage& v);
void to_json(Json& j, const Rumour& v);
void from_json(const Json& j, Rumour& v);
void to_json(Json& j, const Packet& v);
void from_json(const Json& j, Packet& v);
void to_json(Json& j, const PacketBatch& v);
void from_json(const Json& j, PacketBatch& v);
void to_json(Json& j, const Ok& v);
void from_json(const Json& j, Ok& v);
void to_json(Json& j, const Error& v);
void from_json(const Json& j, Error& v);

// A member list (/v1/members): entries that are not objects are skipped.
std::vector<MemberRow> member_rows_from_json(const Json& list);

}  // namespace vigil::view
