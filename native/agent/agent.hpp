#pragma once

#include <csignal>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/agent_view.hpp"
#include "agent/fault_injector.hpp"
#include "agent/peer_detectors.hpp"
#include "base/result.hpp"
#include "http/lws_host.hpp"
#include "sim/event_queue.hpp"
#include "swim/node.hpp"

namespace vigil::native {

struct AgentOptions {
  std::string name;
  swim::Address bind;                 // UDP and TCP (push-pull) on the same port
  std::vector<swim::Address> joins;   // seeds to join through
  std::string http_host = "127.0.0.1";
  int http_port = 0;
  std::string profile = "lan";
  std::string token;                  // required for mutating WebSocket commands
  std::string web_dir;                // the web app served at "/"; empty: none
  std::size_t max_clients = 32;
  // Pages allowed to open /ws besides this agent's own (OriginPolicy syntax); see --allow-origin.
  std::vector<std::string> allow_origins;
  bool quiet = false;                 // no event log on stdout
  std::string label;                  // memberlist's cluster label; empty for none
  // Gossip encryption keys (AES, 16/24/32 bytes): the first seals, all open. Empty: plaintext.
  std::vector<wire::Bytes> keys;
  // The live view's URL other members advertise to viewers (--advertise-http); empty: the HTTP
  // host's own URL, its wildcard host replaced by the protocol's bind address.
  std::string advertise_http;
};

class StreamLink;

// A real SWIM member: the engine on a UDP socket and a TCP listener (push-pull), a steady clock,
// per-peer phi detectors on acks, injected faults, and an HTTP/WebSocket face for live views —
// all in one single-threaded libwebsockets service loop.
class Agent : private RawHandler {
 public:
  static Result<std::unique_ptr<Agent>> start(const AgentOptions& options);
  ~Agent() override;

  // Serves until `stop` is set, then leaves the cluster gracefully (a second signal cuts the
  // goodbye short). Returns the process exit code.
  int run(const volatile std::sig_atomic_t& stop, const volatile std::sig_atomic_t& stop_now);

  const swim::Node& node() const { return node_; }
  std::string http_url() const { return http_->url(); }

 private:
  friend class StreamLink;
  struct Delayed {
    bool outgoing;
    swim::Address peer;
    wire::Bytes bytes;
  };

  Agent(const AgentOptions& options, swim::Node node, sim::Rng rng);
  Status open_sockets();
  Millis now() const;
  AgentViewContext view_at(Millis at) const;

  // UDP (RawHandler).
  void on_readable() override;
  void send_datagram(const swim::Address& to, const wire::Bytes& bytes);
  void receive_datagram(const swim::Address& from, wire::Bytes bytes);

  // After anything that may have produced output: carry it out, then re-arm the timer.
  void settle();
  // How often acks from one peer arrive when every probe succeeds: one probe period per peer.
  Millis expected_ack_gap() const;
  void drain();
  void on_timer();
  void set_paused(bool paused);

  // Streams (push-pull over TCP).
  void accept_streams();
  void start_stream(const swim::StreamRequest& request);
  void stream_finished(StreamLink* link);
  void reap_streams();

  // The live view.
  HttpResponse http(const std::string& uri);
  void on_ws_open(LwsHost::ClientId client);
  void on_ws_message(LwsHost::ClientId client, std::string_view text, LwsHost::Inbound status);
  void broadcast_stats();
  std::optional<swim::Address> address_of(const std::string& member) const;

  AgentOptions options_;
  swim::Node node_;
  FaultInjector faults_;
  std::map<std::string, swim::Address> blocked_names_;  // where each peer was blocked, by name
  PeerDetectors detectors_;
  std::unique_ptr<LwsHost> http_;
  sim::EventQueue<Delayed> delayed_;
  std::map<StreamLink*, std::unique_ptr<StreamLink>> streams_;
  std::unique_ptr<RawHandler> listener_;  // accepts push-pull connections
  int udp_fd_ = -1;
  int tcp_fd_ = -1;
  ::lws* udp_wsi_ = nullptr;
  ::lws* tcp_wsi_ = nullptr;
  bool paused_ = false;
  bool leaving_ = false;
  Millis next_stats_{0};
  std::int64_t started_ns_ = 0;
};

}  // namespace vigil::native
