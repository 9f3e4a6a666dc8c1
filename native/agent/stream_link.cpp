#include "agent/stream_link.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/agent.hpp"
#include "wire/codec.hpp"

namespace vigil::native {

StreamLink::StreamLink(Agent& agent, Role role, int fd, std::uint64_t id, wire::Bytes request, Millis deadline)
    : agent_(agent),
      role_(role),
      fd_(fd),
      id_(id),
      out_(std::move(request)),
      deadline_(deadline),
      connecting_(role == Role::initiator) {}

void StreamLink::on_writable() {
  if (closing_) return;
  if (connecting_) {
    int error = 0;
    socklen_t len = sizeof error;
    if (::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0)
      return fail(error ? std::strerror(error) : nullptr);
    connecting_ = false;
  }
  while (written_ < out_.size()) {
    const ssize_t n = ::send(fd_, out_.data() + written_, out_.size() - written_, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        agent_.http_->want_write(wsi_);
        return;
      }
      return fail();
    }
    written_ += static_cast<std::size_t>(n);
  }
  // A responder is done once its answer is out; an initiator now waits for the answer.
  if (role_ == Role::responder && written_ == out_.size() && resolved_) finish();
}

void StreamLink::on_readable() {
  if (closing_ || resolved_) return;
  std::uint8_t buf[65536];
  bool eof = false;
  for (;;) {
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n > 0) {
      in_.insert(in_.end(), buf, buf + n);
      if (in_.size() > kMaxBytes) return fail();
      continue;
    }
    if (n == 0) eof = true;
    else if (errno != EAGAIN && errno != EWOULDBLOCK) return fail();
    break;
  }
  // The label and, with a keyring, the encryption are checked before anything reaches the engine;
  // a plaintext exchange is complete once it decodes. An initiator reads the answer on its own
  // connection, which carries no label header (memberlist labels only the dialling side).
  const auto part = role_ == Role::initiator ? wire::StreamPart::reply : wire::StreamPart::request;
  auto read = agent_.node_.read_stream(
      in_, part, [](std::span<const std::uint8_t> m) { return swim::Node::stream_message_complete(m); });
  if (read.status == wire::StreamRead::Status::refused) return fail();
  if (read.status == wire::StreamRead::Status::ready) {
    const Millis now = agent_.now();
    resolved_ = true;
    if (role_ == Role::initiator) {
      agent_.node_.handle_stream_reply(now, id_, read.message);
      agent_.settle();
      return finish();
    }
    auto reply = agent_.node_.handle_stream(now, swim::Address{}, read.message);
    agent_.settle();
    if (!reply) return fail();
    auto framed = agent_.node_.frame_stream(*reply, wire::StreamPart::reply);
    if (!framed) return fail();
    out_ = std::move(framed).value();
    written_ = 0;
    agent_.http_->want_write(wsi_);
    return;
  }
  // Incomplete: wait for more, unless the peer has already hung up.
  if (eof) fail();
}

void StreamLink::fail(const char* reason) {
  if (!resolved_ && role_ == Role::initiator) {
    resolved_ = true;
    agent_.node_.handle_stream_failure(agent_.now(), id_, reason ? reason : "");
    agent_.settle();
  }
  resolved_ = true;
  finish();
}

void StreamLink::abort() { fail(); }

void StreamLink::finish() {
  if (closing_) return;
  closing_ = true;
  agent_.http_->close_raw(wsi_);
}

void StreamLink::on_closed() {
  if (!resolved_ && role_ == Role::initiator) {
    resolved_ = true;
    agent_.node_.handle_stream_failure(agent_.now(), id_);
  }
  closed_ = true;
  wsi_ = nullptr;
}

}  // namespace vigil::native
