#include <vigil/swim/config.hpp>

namespace vigil::swim {

Status Config::validate() const {
  if (probe_interval <= Millis{0}) return Error{"probe interval must be > 0 ms"};
  if (probe_timeout <= Millis{0} || probe_timeout > probe_interval)
    return Error{"probe timeout must be > 0 and at most the probe interval"};
  if (gossip_interval <= Millis{0}) return Error{"gossip interval must be > 0 ms"};
  if (gossip_nodes < 0) return Error{"gossip nodes must be >= 0"};
  if (suspicion_mult < 1) return Error{"suspicion multiplier must be >= 1"};
  if (suspicion_max_timeout_mult < 1) return Error{"suspicion max timeout multiplier must be >= 1"};
  if (retransmit_mult < 1) return Error{"retransmit multiplier must be >= 1"};
  if (indirect_checks < 0) return Error{"indirect checks must be >= 0"};
  if (awareness_max_multiplier < 1) return Error{"awareness max multiplier must be >= 1"};
  if (push_pull_interval < Millis{0})
    return Error{"push-pull interval must be >= 0 (0 disables it)"};
  if (join_follow_up < Millis{0})
    return Error{"join follow-up must be >= 0 (0 merges a join's reply as memberlist does)"};
  if (gossip_to_the_dead_time < Millis{0}) return Error{"gossip-to-the-dead time must be >= 0"};
  if (reconnect_interval < Millis{0})
    return Error{"reconnect interval must be >= 0 (0 disables it)"};
  if (reconnect_timeout < Millis{0}) return Error{"reconnect timeout must be >= 0"};
  if (udp_buffer_size < 64 || udp_buffer_size > 65507)
    return Error{"UDP buffer size must be within 64..65507 bytes"};
  if (max_members < 2)
    return Error{"max members must be at least 2 (this node and one other; the default is 16384)"};
  if (label.size() > 255) return Error{"label must be at most 255 bytes"};
  return ok_status();
}

Config Config::lan() {
  return Config{};
}

Config Config::wan() {
  Config c;
  c.probe_interval = Millis{5000};
  c.probe_timeout = Millis{3000};
  c.gossip_interval = Millis{500};
  c.gossip_nodes = 4;
  c.suspicion_mult = 6;
  c.push_pull_interval = Millis{60000};
  c.join_follow_up = Millis{5000};
  c.gossip_to_the_dead_time = Millis{60000};
  c.reconnect_interval = Millis{60000};
  return c;
}

Config Config::local() {
  Config c;
  c.probe_interval = Millis{1000};
  c.probe_timeout = Millis{200};
  c.gossip_interval = Millis{100};
  c.gossip_nodes = 3;
  c.suspicion_mult = 3;
  c.retransmit_mult = 2;
  c.indirect_checks = 1;
  c.push_pull_interval = Millis{15000};
  c.join_follow_up = Millis{1000};
  c.gossip_to_the_dead_time = Millis{15000};
  c.reconnect_interval = Millis{15000};
  return c;
}

Config Config::teaching() {
  Config c;
  c.round_based = true;
  c.random_probing = true;
  c.lifeguard = Lifeguard{false, false, false};
  c.suspicion_mult = 3;
  c.suspicion_max_timeout_mult = 1;
  return c;
}

const std::vector<std::string>& Config::profile_names() {
  static const std::vector<std::string> names = {"lan", "wan", "local", "teaching"};
  return names;
}

Result<Config> Config::profile(std::string_view name) {
  if (name == "lan") return lan();
  if (name == "wan") return wan();
  if (name == "local") return local();
  if (name == "teaching") return teaching();
  return Error{"unknown profile '" + std::string(name) +
               "' (expected lan, wan, local or teaching)"};
}

}  // namespace vigil::swim
