// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include <vigil/base/event_queue.hpp>
#include <vigil/base/result.hpp>
#include <vigil/base/rng.hpp>
#include <vigil/base/time.hpp>
#include <vigil/sim/network.hpp>
#include <vigil/swim/config.hpp>
#include <vigil/swim/counters.hpp>
#include <vigil/swim/node.hpp>

namespace vigil::sim {

struct ClusterOptions {
  std::size_t nodes = 5;
  swim::Config config = swim::Config::lan();
  std::uint32_t seed = 1;
  LinkModel link;
  // Everyone starts knowing everyone (a static configuration); otherwise every node joins
  // through the first join_seeds nodes with push-pull exchanges, as memberlist agents do.
  bool static_membership = true;
  // Hosts that run from the start (0: all of them); the others wait, down, for start().
  std::size_t started = 0;
  // How many hosts (0, 1, ...) a joining node contacts at once, as agents given several seeds.
  std::size_t join_seeds = 1;
  std::size_t event_log_capacity = 10000;  // most recent membership events kept (0: none)

  Status validate() const;
};

// One datagram or stream message as the network handled it, for whoever draws or logs traffic.
// `bytes` is only valid during the callback.
struct PacketTrace {
  enum class Fate : std::uint8_t {
    delivered,   // arrives at `arrives` (a paused or slow host may read it later still)
    lost,        // random loss on the link
    blocked,     // a one-way block or a partition stood in the way
    unroutable,  // addressed outside the cluster (`to` may then be any number)
  };
  std::size_t from = 0, to = 0;
  Millis sent{0};
  Millis arrives{0};  // == sent unless delivered
  Fate fate = Fate::delivered;
  bool stream = false;  // a push-pull exchange (request or reply), reliable like TCP
  std::span<const std::uint8_t> bytes;
};

// A membership event as one observer saw it.
struct ClusterEvent {
  std::size_t observer = 0;
  swim::Event event;
};

// N SWIM engines over a simulated network in virtual time, deterministic from the seed. Host i
// is "node-i" at 10.0.x.y:7946. Faults: crash, restart with a higher incarnation, pause (the
// process is stopped: it neither sends nor receives, then catches up with what queued), slow
// processing of incoming datagrams, one-way blocks and partitions (through network()).
class SwimCluster {
 public:
  static Result<SwimCluster> create(const ClusterOptions& options);

  Millis now() const { return now_; }
  void run_until(Millis t);
  // Handles the earliest pending event alone (a delivery, a timer, a stream) and moves the clock
  // to it: false if nothing is pending. For a viewer stepping through the protocol.
  bool step();
  // When the earliest pending event is due (Millis::max() when none).
  Millis next_event_time() const { return queue_.empty() ? Millis::max() : queue_.next_time(); }
  void run_for(Millis d) { run_until(now_ + d); }

  // Boots a host that has not run yet (see ClusterOptions::started); it joins as the others did.
  void start(std::size_t i);
  void kill(std::size_t i);
  void revive(std::size_t i);
  void pause(std::size_t i, Millis duration);
  void set_slow(std::size_t i, Millis processing_delay);  // 0 restores normal speed
  void leave(std::size_t i);
  // A datagram from outside the cluster (a stranger, a forger) handled by host i now, as if it
  // had just arrived from `from`; nothing happens if the host is down or stopped. What the host
  // sends back to an address outside the cluster is dropped as unroutable.
  void inject(std::size_t to, const swim::Address& from, std::span<const std::uint8_t> bytes);
  // New protocol parameters for every node, running or restarted later (e.g. Lifeguard off).
  Status reconfigure(const swim::Config& config);
  const swim::Config& config() const { return options_.config; }
  Network& network() { return network_; }
  const Network& network() const { return network_; }

  std::size_t size() const { return hosts_.size(); }
  bool is_up(std::size_t i) const { return hosts_[i].up; }
  bool is_paused(std::size_t i) const { return hosts_[i].paused_until > now_; }
  Millis slowness(std::size_t i) const { return hosts_[i].slow; }
  const swim::Node& node(std::size_t i) const { return *hosts_[i].node; }
  const std::string& name(std::size_t i) const { return hosts_[i].name; }
  std::optional<std::size_t> host_of(const std::string& name) const;
  // How `observer` currently sees `observed` (nothing if it does not know it).
  const swim::Member* view(std::size_t observer, std::size_t observed) const;

  // Traffic summed over all nodes since the start, restarted instances included.
  swim::Counters totals() const;
  std::uint64_t dropped_datagrams() const { return dropped_; }
  const std::deque<ClusterEvent>& events() const { return log_; }
  void on_event(std::function<void(const ClusterEvent&)> sink) { sink_ = std::move(sink); }
  // Every datagram and stream message as it is sent, with its fate.
  void on_packet(std::function<void(const PacketTrace&)> tap) { packet_tap_ = std::move(tap); }

  static swim::Address address_of(std::size_t i);

 private:
  struct Host {
    std::string name;
    std::optional<swim::Node> node;
    bool up = true;
    bool booted = false;
    Millis paused_until{0};
    std::uint64_t pause_generation = 0;
    Millis slow{0};
    Millis scheduled_wake = Millis::max();
    std::vector<std::pair<std::size_t, wire::Bytes>> backlog;  // arrived while stopped
    swim::Counters retired;  // counters of earlier instances of this host
  };
  struct Deliver {
    std::size_t to = 0, from = 0;
    wire::Bytes bytes;
    bool delayed = false;  // already held back for a slow host
  };
  struct Wake {
    std::size_t host = 0;
  };
  struct Resume {
    std::size_t host = 0;
    std::uint64_t generation = 0;
  };
  struct StreamArrive {
    std::size_t to = 0, from = 0;
    std::uint64_t id = 0;
    wire::Bytes bytes;
  };
  struct StreamReply {
    std::size_t to = 0;
    std::uint64_t id = 0;
    wire::Bytes bytes;
  };
  struct StreamFail {
    std::size_t to = 0;
    std::uint64_t id = 0;
  };
  using Item = std::variant<Deliver, Wake, Resume, StreamArrive, StreamReply, StreamFail>;

  SwimCluster(const ClusterOptions& options);
  swim::Node make_node(std::size_t i, swim::Incarnation incarnation);
  void boot(std::size_t i, swim::Incarnation incarnation);
  void process(Item& item);
  void deliver(std::size_t to, std::size_t from, const wire::Bytes& bytes);
  void drain(std::size_t i);
  void trace(std::size_t from, std::size_t to, Millis delay, PacketTrace::Fate fate, bool stream,
             std::span<const std::uint8_t> bytes);
  void arm(std::size_t i);
  bool running(std::size_t i) const { return hosts_[i].up && hosts_[i].paused_until <= now_; }

  ClusterOptions options_;
  Network network_;
  Rng rng_;
  Millis now_{0};
  std::vector<Host> hosts_;
  EventQueue<Item> queue_;
  std::uint64_t dropped_ = 0;
  std::deque<ClusterEvent> log_;
  std::function<void(const ClusterEvent&)> sink_;
  std::function<void(const PacketTrace&)> packet_tap_;
};

}  // namespace vigil::sim
