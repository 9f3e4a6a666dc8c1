// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <vigil/base/result.hpp>
#include <vigil/base/time.hpp>

namespace vigil::swim {

// Lifeguard (Dadgar, Phillips, Currey 2018) as three switches, named after the paper, so that
// figures can compare each mechanism on and off.
struct Lifeguard {
  // LHA-Probe: the local health multiplier (memberlist's "awareness") stretches the probe
  // interval when this node's own probes keep failing or it keeps having to refute, and (beyond
  // the paper) when its timers fire late because its host starves it of CPU.
  bool lha_probe = true;
  // LHA-Suspicion: a suspicion starts at the max timeout and shrinks with independent
  // confirmations; off, every suspicion lasts the min timeout.
  bool lha_suspicion = true;
  // Buddy system: a ping to a suspect member carries the suspicion so it can refute at once.
  bool buddy_system = true;
};

// Protocol parameters. Defaults are memberlist's DefaultLANConfig; the named profiles follow
// memberlist's LAN, WAN and local configurations, plus a teaching setup closer to the
// SWIM paper (Das, Gupta and Motivala 2002). Each field names its memberlist (or Serf)
// counterpart; durations are milliseconds of engine time. A host's own settings (bind and
// advertised address, TCP timeout, keys) live in the host, not here.
struct Config {
  // How often this node probes one member (memberlist's ProbeInterval). Default 1000 ms. The
  // unit of failure detection: suspicion timeouts are multiples of it, and Lifeguard's local
  // health stretches it up to awareness_max_multiplier times.
  Millis probe_interval{1000};
  // How long a direct ping waits for its ack before indirect probes start (ProbeTimeout).
  // Default 500 ms; memberlist advises the network's 99th-percentile round trip. At most
  // probe_interval. Not stretched by local health: waiting longer does not help a lost packet.
  Millis probe_timeout{500};
  // How often queued news is gossiped to random members when it could not ride on probes
  // (GossipInterval). Default 200 ms. The tick sleeps while nothing is queued.
  Millis gossip_interval{200};
  // How many random members each gossip tick sends to (GossipNodes). Default 3. Dead members
  // still count as targets for gossip_to_the_dead_time, so they can refute.
  int gossip_nodes = 3;
  // The shortest suspicion, from suspect to dead: suspicion_mult * max(1, log10(n)) *
  // probe_interval for n known members (SuspicionMult). Default 4: 4 s for up to 10 members at
  // the default interval. With LHA-Suspicion a suspicion starts longer (below).
  int suspicion_mult = 4;
  // Lifeguard's upper bound: a suspicion starts at this many times the timeout above and
  // shrinks towards it as independent confirmations arrive (SuspicionMaxTimeoutMult). Default 6.
  int suspicion_max_timeout_mult = 6;
  // Each piece of news is sent retransmit_mult * ceil(log10(n + 1)) times before it is dropped
  // from the queue (RetransmitMult). Default 4.
  int retransmit_mult = 4;
  // How many members are asked to ping a member that missed its direct ack (IndirectChecks).
  // Default 3; 0 leaves only the direct ping (and the TCP fallback).
  int indirect_checks = 3;
  // Lifeguard's local health: the most the probe interval stretches when this node's own probes
  // fail or it has to refute accusations (AwarenessMaxMultiplier). Default 8 (up to 8 s at LAN).
  int awareness_max_multiplier = 8;
  // How often this node exchanges its whole member list with one random live member over a
  // stream, repairing what gossip missed (PushPullInterval). Default 30000 ms; 0 turns it off.
  // Beyond 32 members it grows with log2(n), as in memberlist.
  Millis push_pull_interval{30000};
  // A joining node learns the whole member list from its seeds. memberlist then re-gossips every
  // entry as news, though the cluster knows them all: at 1,000 members that is some 16,000 sends
  // per newcomer. With this set, a join's reply is merged quietly and, this long after the join,
  // one more full-state exchange with a random member picks up the members that joined at the
  // same time through other seeds (whose news went round before this node was known); until
  // then, news heard again of a member learned that way is passed on once. Default 2000 ms: ten
  // gossip intervals, where news reaches 1,000 members in about seven. 0 merges the reply as
  // memberlist does. No memberlist counterpart.
  Millis join_follow_up{2000};
  // How long a dead member is still gossiped to (so that it can refute), and a dead or departed
  // member kept in the list before it is forgotten (GossipToTheDeadTime). Default 30000 ms.
  Millis gossip_to_the_dead_time{30000};
  // The most bytes a datagram carries, piggybacked news included, before the label and
  // encryption are added (UDPBufferSize). Default 1400, under a 1500-byte Ethernet MTU.
  std::size_t udp_buffer_size = 1400;
  // Serf's reconnect loop, which memberlist lacks: every interval, exchange state with one
  // member believed dead, so that the two sides of a healed partition find each other again.
  // Serf's ReconnectInterval; default 30000 ms; 0 turns it off.
  Millis reconnect_interval{30000};
  // How long a failed member stays a reconnect candidate after it is forgotten (Serf's
  // ReconnectTimeout). Default 24 h.
  Millis reconnect_timeout{24LL * 3600 * 1000};
  // SWIM's basic variant: probe a uniformly random member each period instead of walking a
  // shuffled list round-robin. No memberlist counterpart (it always walks the list). Default off.
  bool random_probing = false;
  // Every node probes and gossips on the same period boundaries (synchronous rounds, as in the
  // SWIM paper's analysis) instead of at randomly staggered phases. No memberlist counterpart.
  // Default off.
  bool round_based = false;
  // memberlist's TCP fallback (DisableTcpPings false): when the direct UDP probe times out, also
  // ping the target over a stream, alongside the indirect probes, if it speaks protocol 3 or
  // later. Off in the simulations, whose streams are lossless and would hide UDP loss; on in the
  // native agent, as in memberlist. Default off: a host that carries streams should turn it on.
  bool tcp_fallback_ping = false;
  // Lifeguard's three mechanisms, each on by default; memberlist always runs all three.
  Lifeguard lifeguard;
  // memberlist's EnableCompression: full-state exchanges, and datagrams where it saves bytes,
  // are sent as LZW-compressed messages (type 9), which memberlist and Serf read. What arrives
  // compressed is read either way. Default on, as in memberlist's LAN, WAN and local configs.
  bool compression = true;
  // The most members this node holds, itself and dead or departed ones not yet forgotten
  // included. Without gossip encryption anyone who can reach a member can declare members that
  // do not exist: six full states of 50,000 invented names each grew an agent to 300,000 members
  // and 635 MB. At the cap new names are refused (counted in Counters::members_refused, and
  // reported once in the outbox's notices), while members already known keep being updated, so
  // the cluster this node is part of carries on; names refused now are taken from later gossip
  // or exchanges once forgotten members make room. memberlist has no such cap. Default 16,384:
  // well above the 1,000-agent benchmarks and the gossip pools Consul and Serf run, and small
  // enough to bound what a stranger can make a member hold (an agent with a full table of
  // invented members holds some 17 MB more than an idle one). At least 2.
  std::size_t max_members = 16384;
  // memberlist's cluster label (Label): sent in front of every datagram and stream, and
  // authenticated by the cipher; traffic with another label is refused. Empty (the default) for
  // none; at most 255 bytes.
  std::string label;

  Status validate() const;

  static Config lan();
  static Config wan();
  static Config local();
  // A teaching simulation: whole rounds, no Lifeguard, suspicion lasting a fixed few
  // probe periods.
  static Config teaching();
  static Result<Config> profile(std::string_view name);
  static const std::vector<std::string>& profile_names();
};

}  // namespace vigil::swim
