// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include <vigil/wire/messages.hpp>

namespace vigil::swim {

// Traffic and protocol counters of one node (the agent's /metrics and the labs read them).
// for_each_counter_member below is their only list, with what each one counts: the simulation's
// totals, the agent's JSON and its metrics all walk it, so a field added here without an entry
// there is missing from all three (and fails the counters' unit test).
struct Counters {
  static constexpr std::size_t kTypes = wire::kNumberedMessageTypes;
  using ByType = std::array<std::uint64_t, kTypes>;  // indexed by the message type byte

  ByType messages_sent{};
  ByType messages_received{};
  std::uint64_t datagrams_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t datagrams_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t datagrams_rejected = 0;
  std::uint64_t datagrams_label_mismatch = 0;
  std::uint64_t datagrams_decrypt_failed = 0;
  std::uint64_t datagrams_expansion_refused = 0;
  std::uint64_t streams_rejected = 0;
  std::uint64_t streams_expansion_refused = 0;
  std::uint64_t streams_sent = 0;
  std::uint64_t stream_pings_answered = 0;
  std::uint64_t stream_pings_sent = 0;
  std::uint64_t stream_pings_acked = 0;
  std::uint64_t user_messages = 0;
  std::uint64_t user_messages_dropped = 0;
  std::uint64_t stream_bytes_sent = 0;
  std::uint64_t exchanges_unchanged = 0;
  std::uint64_t compressed_sent = 0;
  std::uint64_t compression_bytes_saved = 0;
  std::uint64_t compressed_datagrams_received = 0;
  std::uint64_t compressed_streams_received = 0;
  std::uint64_t news_datagrams_split = 0;
  std::uint64_t news_compressions_reused = 0;
  std::uint64_t probes = 0;
  std::uint64_t probes_failed = 0;
  std::uint64_t late_timers = 0;
  std::uint64_t indirect_probes = 0;
  std::uint64_t suspicions = 0;
  std::uint64_t refutations = 0;
  std::uint64_t stale_accusations_answered = 0;
  std::uint64_t name_conflicts = 0;
  std::uint64_t members_refused = 0;
  std::uint64_t incarnation_top_refutations = 0;

  static std::size_t index(wire::MessageType t) { return static_cast<std::size_t>(t); }
};

// One number, or one per message type (a ByType, labelled by wire::to_string of the type).
enum class CounterKind : std::uint8_t { total, by_type };

// How a counter is published. The help text speaks of "this agent" because /metrics is where
// it is read; in the simulation the same counter belongs to one simulated node.
struct CounterInfo {
  std::string_view key;     // its key in the agent's JSON "counters"
  std::string_view metric;  // its Prometheus counter (by_type: one sample per {type="..."})
  std::string_view help;
  CounterKind kind;
};

// Calls f(info, member) for every field of Counters, `member` being a pointer to it
// (std::uint64_t Counters::* or Counters::ByType Counters::*, as info.kind says).
template <class F>
constexpr void for_each_counter_member(F&& f) {
  auto counter = [&f](std::string_view key, std::string_view metric, std::string_view help,
                      auto member) {
    using Field = std::remove_reference_t<decltype(std::declval<Counters&>().*member)>;
    static_assert(std::is_same_v<Field, std::uint64_t> || std::is_same_v<Field, Counters::ByType>);
    constexpr CounterKind kind =
        std::is_same_v<Field, Counters::ByType> ? CounterKind::by_type : CounterKind::total;
    f(CounterInfo{key, metric, help, kind}, member);
  };
  using C = Counters;
  counter("messages_sent", "vigil_messages_sent_total",
          "Messages sent, by type (compound parts counted).", &C::messages_sent);
  counter("messages_received", "vigil_messages_received_total", "Messages received, by type.",
          &C::messages_received);
  counter("datagrams_sent", "vigil_datagrams_sent_total", "UDP datagrams sent.",
          &C::datagrams_sent);
  counter("bytes_sent", "vigil_bytes_sent_total", "UDP payload bytes sent.", &C::bytes_sent);
  counter("datagrams_received", "vigil_datagrams_received_total", "UDP datagrams received.",
          &C::datagrams_received);
  counter("bytes_received", "vigil_bytes_received_total", "UDP payload bytes received.",
          &C::bytes_received);
  counter("datagrams_rejected", "vigil_datagrams_rejected_total",
          "Datagrams dropped: undecodable, a foreign label, or failed decryption.",
          &C::datagrams_rejected);
  counter("datagrams_label_mismatch", "vigil_datagrams_label_mismatch_total",
          "Dropped datagrams that carried another label, or none where one is required.",
          &C::datagrams_label_mismatch);
  counter("datagrams_decrypt_failed", "vigil_datagrams_decrypt_failed_total",
          "Dropped datagrams that no key of the keyring opened (plaintext included).",
          &C::datagrams_decrypt_failed);
  counter("datagrams_expansion_refused", "vigil_datagrams_expansion_refused_total",
          "Of the dropped datagrams, those whose compressed messages expanded past 64 KiB "
          "together (refused whole: nothing in them was handled).",
          &C::datagrams_expansion_refused);
  counter("streams_rejected", "vigil_streams_rejected_total",
          "TCP streams refused: a foreign label, failed decryption, a bad frame or a compressed "
          "message expanding past 4 MiB.",
          &C::streams_rejected);
  counter("streams_expansion_refused", "vigil_streams_expansion_refused_total",
          "Of those, streams whose compressed message expanded past 4 MiB (refused as soon as it "
          "had arrived).",
          &C::streams_expansion_refused);
  counter("streams", "vigil_streams_sent_total",
          "Full-state exchanges (push-pull over TCP) this agent started.", &C::streams_sent);
  counter("stream_bytes_sent", "vigil_stream_bytes_sent_total",
          "Bytes of full state this agent sent in the exchanges it started (compressed if it "
          "was, before framing).",
          &C::stream_bytes_sent);
  counter("stream_pings_answered", "vigil_stream_pings_answered_total",
          "Pings that arrived over TCP (memberlist's fallback probe) and were acked.",
          &C::stream_pings_answered);
  counter("stream_pings_sent", "vigil_stream_pings_sent_total",
          "Pings this agent sent over TCP after a UDP probe timed out (memberlist's fallback).",
          &C::stream_pings_sent);
  counter("stream_pings_acked", "vigil_stream_pings_acked_total",
          "Of those, pings answered with their ack.", &C::stream_pings_acked);
  counter("user_messages", "vigil_user_messages_total",
          "User messages (memberlist type 8, e.g. Serf's events) received; carried as bytes.",
          &C::user_messages);
  counter("user_messages_dropped", "vigil_user_messages_dropped_total",
          "Of those, messages dropped because 256 of them or 1 MiB of their bytes (count or "
          "bytes) were still waiting to be handed on.",
          &C::user_messages_dropped);
  counter("exchanges_unchanged", "vigil_exchanges_unchanged_total",
          "Full-state exchanges received that matched this agent's own view (not merged).",
          &C::exchanges_unchanged);
  counter("compressed_sent", "vigil_compressed_sent_total",
          "Datagrams and full-state exchanges sent compressed (LZW, memberlist's compress "
          "message).",
          &C::compressed_sent);
  counter("compression_bytes_saved", "vigil_compression_bytes_saved_total",
          "Bytes compression took off those messages, before encryption and framing.",
          &C::compression_bytes_saved);
  counter("compressed_datagrams_received", "vigil_compressed_datagrams_received_total",
          "Datagrams received whose content came compressed.", &C::compressed_datagrams_received);
  counter("compressed_streams_received", "vigil_compressed_streams_received_total",
          "Stream messages (full states, pings, acks) read that came compressed.",
          &C::compressed_streams_received);
  counter("news_datagrams_split", "vigil_news_datagrams_split_total",
          "Datagrams of news, packed by the size compression was expected to give them, that "
          "came out too large and went as two.",
          &C::news_datagrams_split);
  counter("news_compressions_reused", "vigil_news_compressions_reused_total",
          "Gossip datagrams that carried the same news as the one before them in the same round, "
          "and so went out without being compressed again.",
          &C::news_compressions_reused);
  counter("probes", "vigil_probes_total", "Probes started.", &C::probes);
  counter("probes_failed", "vigil_probes_failed_total",
          "Probes that got no ack, direct or relayed.", &C::probes_failed);
  counter("late_timers", "vigil_late_timers_total",
          "Times this agent's timers fired half a probe timeout or more late: it was starved of "
          "CPU, and its next probe counts against its local health whatever the outcome.",
          &C::late_timers);
  counter("indirect_probes", "vigil_indirect_probes_total", "Probes that asked helpers.",
          &C::indirect_probes);
  counter("suspicions", "vigil_suspicions_total", "Members this agent started to suspect.",
          &C::suspicions);
  counter("refutations", "vigil_refutations_total", "Accusations this agent refuted.",
          &C::refutations);
  counter("stale_accusations_answered", "vigil_stale_accusations_answered_total",
          "Accusations against an older incarnation of a live member, answered with its alive "
          "straight to the member that passed them on (at most once a probe interval per "
          "member).",
          &C::stale_accusations_answered);
  counter("name_conflicts", "vigil_name_conflicts_total",
          "Claims to a known member's name from another address (memberlist's conflicting "
          "address).",
          &C::name_conflicts);
  counter("members_refused", "vigil_members_refused_total",
          "New member names refused because the member table held max_members (16,384 by "
          "default); members already known are still updated.",
          &C::members_refused);
  counter("incarnation_top_refutations", "vigil_incarnation_top_refutations_total",
          "Of the refutations, accusations (or alive messages with other metadata) at the top "
          "incarnation, 2^32-1, which cannot be outbid: answered with this agent's alive at the "
          "top, sent straight to the members, which take it from the member itself.",
          &C::incarnation_top_refutations);
}

// Calls f(info, field) with a reference to every counter of `counters`.
template <class F>
void for_each_counter(Counters& counters, F&& f) {
  for_each_counter_member([&](const CounterInfo& info, auto member) { f(info, counters.*member); });
}

template <class F>
void for_each_counter(const Counters& counters, F&& f) {
  for_each_counter_member([&](const CounterInfo& info, auto member) { f(info, counters.*member); });
}

// Adds every counter of `from` to `into`: the simulation's totals over its nodes.
inline void add(Counters& into, const Counters& from) {
  for_each_counter_member([&](const CounterInfo&, auto member) {
    auto& sum = into.*member;
    const auto& part = from.*member;
    if constexpr (std::is_same_v<std::remove_reference_t<decltype(sum)>, Counters::ByType>) {
      for (std::size_t t = 0; t < Counters::kTypes; ++t) sum[t] += part[t];
    } else {
      sum += part;
    }
  });
}

}  // namespace vigil::swim
