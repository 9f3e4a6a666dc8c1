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
  // interval when this node's own probes keep failing or it keeps having to refute.
  bool lha_probe = true;
  // LHA-Suspicion: a suspicion starts at the max timeout and shrinks with independent
  // confirmations; off, every suspicion lasts the min timeout.
  bool lha_suspicion = true;
  // Buddy system: a ping to a suspect member carries the suspicion so it can refute at once.
  bool buddy_system = true;
};

// Protocol parameters. Defaults are memberlist's DefaultLANConfig; the named profiles follow
// memberlist's LAN, WAN and local configurations, plus a teaching setup closer to the
// SWIM paper (Das, Gupta and Motivala 2002).
struct Config {
  Millis probe_interval{1000};
  Millis probe_timeout{500};
  Millis gossip_interval{200};
  int gossip_nodes = 3;
  int suspicion_mult = 4;
  int suspicion_max_timeout_mult = 6;
  int retransmit_mult = 4;
  int indirect_checks = 3;
  int awareness_max_multiplier = 8;
  Millis push_pull_interval{30000};
  Millis gossip_to_the_dead_time{30000};
  std::size_t udp_buffer_size = 1400;  // datagram budget for piggybacked broadcasts
  // Serf's reconnect loop, which memberlist lacks: every interval, exchange state with one
  // member believed dead, so that the two sides of a healed partition find each other again.
  Millis reconnect_interval{30000};
  // How long a failed member stays a reconnect candidate after it is forgotten (Serf: 24 h).
  Millis reconnect_timeout{24LL * 3600 * 1000};
  // SWIM's basic variant: probe a uniformly random member each period instead of walking a
  // shuffled list round-robin.
  bool random_probing = false;
  // Every node probes and gossips on the same period boundaries (synchronous rounds, as in the
  // SWIM paper's analysis) instead of at randomly staggered phases.
  bool round_based = false;
  // memberlist's TCP fallback (DisableTcpPings false): when the direct UDP probe times out, also
  // ping the target over a stream, alongside the indirect probes, if it speaks protocol 3 or
  // later. Off in the simulations, whose streams are lossless and would hide UDP loss; on in the
  // native agent, as in memberlist.
  bool tcp_fallback_ping = false;
  Lifeguard lifeguard;
  std::string label;  // memberlist's cluster label; empty for none

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
