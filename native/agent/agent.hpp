#pragma once

#include <csignal>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <vigil/base/event_queue.hpp>
#include <vigil/base/result.hpp>
#include <vigil/swim/node.hpp>
#include "agent/ack_trace.hpp"
#include "agent/agent_view.hpp"
#include "agent/auth_limiter.hpp"
#include "agent/fault_injector.hpp"
#include "agent/join_retry.hpp"
#include "agent/line_output.hpp"
#include "agent/packet_log.hpp"
#include "agent/peer_detectors.hpp"
#include "agent/probe_outcomes.hpp"
#include "agent/stream_link.hpp"
#include "cli/endpoint.hpp"
#include "http/lws_host.hpp"

namespace vigil::native {

struct AgentOptions {
  std::string name;
  swim::Address bind;  // UDP and TCP (push-pull) on the same port
  // Seeds to join through: IP literals or names, resolved again on every attempt.
  std::vector<cli::Endpoint> joins;
  Millis retry_interval{5000};  // between failed join attempts (Serf's -retry-interval)
  int retry_max = 0;            // join attempts before giving up; 0: for ever
  std::string http_host = "127.0.0.1";
  int http_port = 0;
  std::string profile = "lan";
  // memberlist's ProbeInterval and ProbeTimeout, overriding the profile's (also after a
  // set-profile command): the flags are the operator's choice, the profile only the defaults.
  std::optional<Millis> probe_interval;
  std::optional<Millis> probe_timeout;
  bool compression = true;  // memberlist's EnableCompression (see swim::Config::compression)
  std::string token;        // required for mutating WebSocket commands
  std::string web_dir;      // the web app served at "/"; empty: none
  std::size_t max_clients = 32;
  // Pages allowed to open /ws besides this agent's own (OriginPolicy syntax); see --allow-origin.
  std::vector<std::string> allow_origins;
  bool quiet = false;  // no event log on stdout
  std::string label;   // memberlist's cluster label; empty for none
  // Gossip encryption keys (AES, 16/24/32 bytes): the first seals, all open. Empty: plaintext.
  std::vector<wire::Bytes> keys;
  // The live view over HTTPS and wss: PEM certificate and key files; both empty for plain HTTP.
  std::string tls_cert;
  std::string tls_key;
  // The live view's URL other members advertise to viewers (--advertise-http); empty: the HTTP
  // host's own URL, its wildcard host replaced by the protocol's bind address.
  std::string advertise_http;
};

// The engine's configuration for `profile` as an agent runs it, with the options' overrides.
Result<swim::Config> agent_config(const std::string& profile, const AgentOptions& options);

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
  // A line for standard output, after the event lines already waiting (see LineOutput).
  void say(std::string line) { output_.write(std::move(line)); }

 private:
  friend class StreamLink;
  struct Delayed {
    bool outgoing;
    swim::Address peer;
    wire::Bytes bytes;
  };

  Agent(const AgentOptions& options, swim::Node node, Rng rng);
  Status open_sockets();
  Millis now() const;
  AgentViewContext view_at(Millis at) const;

  // UDP (RawHandler).
  void on_readable() override;
  // Hands what waits in the UDP socket to the engine, a bounded number of datagrams at a time.
  void read_datagrams();
  void send_datagram(const swim::Address& to, const wire::Bytes& bytes);
  void receive_datagram(const swim::Address& from, wire::Bytes bytes);

  // After anything that may have produced output: carry it out, then re-arm the timer.
  void settle();
  // How often acks from one peer arrive when every probe succeeds: one probe period per peer.
  Millis expected_ack_gap() const;
  void drain();
  void on_timer();
  void set_paused(bool paused);

  // Joining: one attempt resolves every seed and asks some of their addresses for an exchange
  // (JoinPlanner: a few at once, round robin over the seeds).
  void attempt_join(Millis now);
  void on_join_result(const swim::JoinResult& result);

  // Streams (push-pull over TCP).
  void accept_streams();
  void start_stream(const swim::StreamRequest& request);
  void reap_streams();
  std::size_t incoming_streams() const;
  // One line per interval summing up streams turned away, not one per stream.
  void log_stream_refusals(Millis now);
  // A second node claims a member's name: logged once per interval per name; fatal to an
  // agent that has not yet joined and finds its own name held by a live member elsewhere.
  void on_conflict(const swim::Event& e);

  // The live view.
  HttpResponse http(const std::string& uri);
  void on_ws_open(LwsHost::ClientId client);
  void on_ws_message(LwsHost::ClientId client, std::string_view text, LwsHost::Inbound status);
  void broadcast_stats();
  std::optional<swim::Address> address_of(const std::string& member) const;
  void log_auth_reports(Millis at);

  // The packet log (only while a viewer asked for it): datagrams as they cross the socket or
  // the fault injector, streams as plaintext messages.
  void log_datagram(bool outgoing, const swim::Address& peer, std::span<const std::uint8_t> bytes,
                    bool dropped, Millis delay);
  void log_stream(bool outgoing, const swim::Address& peer, std::span<const std::uint8_t> plaintext,
                  std::size_t wire_size);
  // A member's name for an address, or the address itself.
  std::string peer_name(const swim::Address& address) const;
  void flush_packets(Millis at);

  // "[name] time text" on standard output.
  void say_at(Millis t, const std::string& text);

  AgentOptions options_;
  swim::Node node_;
  LineOutput output_;  // standard output: event and join lines
  FaultInjector faults_;
  std::map<std::string, swim::Address> blocked_names_;  // where each peer was blocked, by name
  PeerDetectors detectors_;
  ProbeOutcomes probe_outcomes_;
  AckTrace ack_trace_;  // ack arrivals per peer, for GET /v1/trace
  PacketLog packets_;
  AuthLimiter auth_;  // wrong tokens per remote address, across connections
  std::unique_ptr<LwsHost> http_;
  EventQueue<Delayed> delayed_;
  // Declared before streams_, which are destroyed first and give their bytes back here.
  StreamStats stream_stats_;
  std::size_t stream_buffered_ = 0;  // input buffer capacity reserved by all streams
  StreamStats stream_logged_;        // as of the last refusal log line
  Millis next_stream_log_{0};
  struct ConflictLog {
    Millis quiet_until{0};       // when to log a conflict over this name again
    std::uint64_t unlogged = 0;  // conflicts since the last line
  };
  std::map<std::string, ConflictLog> conflict_log_;  // by member name, forgotten with the member
  bool joined_ = false;  // a join exchange has completed (or none was asked for)
  std::string fatal_;    // set: stop at once, without a goodbye, and exit 1 with this message
  std::map<StreamLink*, std::unique_ptr<StreamLink>> streams_;
  std::unique_ptr<RawHandler> listener_;  // accepts push-pull connections
  std::optional<JoinRetry> join_retry_;   // while joining; reset once joined
  JoinPlanner join_planner_;              // which addresses each attempt asks; its counters
  std::size_t join_not_asked_ = 0;        // the attempt under way's addresses left for later
  bool join_in_flight_ = false;
  std::vector<UnresolvedSeed> unresolved_;  // the attempt under way's seeds that did not resolve
  bool gave_up_ = false;                    // --retry-max attempts failed: run() exits 1
  int socket_family_ = 0;                   // AF_INET or AF_INET6, as the bind address
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
