#pragma once

#include <cstdint>

#include "base/time.hpp"
#include "http/lws_host.hpp"
#include "wire/messages.hpp"

namespace vigil::native {

class Agent;

// One TCP connection carrying a push-pull exchange, as memberlist does it: the initiator writes
// its state and reads the peer's; the responder reads, merges, answers and closes. Messages are
// self-delimiting msgpack, so "complete" means "decodes".
class StreamLink : public RawHandler {
 public:
  enum class Role { initiator, responder };
  static constexpr std::size_t kMaxBytes = 20 * 1024 * 1024;  // memberlist's push-state limit

  StreamLink(Agent& agent, Role role, int fd, std::uint64_t id, wire::Bytes request, Millis deadline);

  void attach(::lws* wsi) { wsi_ = wsi; }
  ::lws* wsi() const { return wsi_; }
  Millis deadline() const { return deadline_; }
  bool closed() const { return closed_; }
  // Gives up (timeout or shutdown): an initiator reports the exchange as failed.
  void abort();

  void on_readable() override;
  void on_writable() override;
  void on_closed() override;

 private:
  void fail(const char* reason = nullptr);  // the reason, when known, for a join's log
  void finish();

  Agent& agent_;
  Role role_;
  int fd_;
  ::lws* wsi_ = nullptr;
  std::uint64_t id_;
  wire::Bytes out_;
  std::size_t written_ = 0;
  wire::Bytes in_;
  Millis deadline_;
  bool connecting_;
  bool resolved_ = false;  // the engine has heard how it ended
  bool closing_ = false;
  bool closed_ = false;
};

}  // namespace vigil::native
