#include "agent/stream_link.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

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
    if (::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0) return fail();
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
  auto labelled = wire::strip_label(in_);
  if (labelled && labelled->label != agent_.node_.config().label) return fail();
  if (labelled && wire::decode_push_pull_view(labelled->rest)) {
    const Millis now = agent_.now();
    resolved_ = true;
    if (role_ == Role::initiator) {
      agent_.node_.handle_stream_reply(now, id_, labelled->rest);
      agent_.settle();
      return finish();
    }
    auto reply = agent_.node_.handle_stream(now, swim::Address{}, labelled->rest);
    agent_.settle();
    if (!reply) return fail();
    const std::string& label = agent_.node_.config().label;
    if (label.empty()) out_ = std::move(*reply);
    else out_ = wire::add_label(label, *reply).value();
    written_ = 0;
    agent_.http_->want_write(wsi_);
    return;
  }
  // Incomplete: wait for more, unless the peer has already hung up.
  if (eof) fail();
}

void StreamLink::fail() {
  if (!resolved_ && role_ == Role::initiator) {
    resolved_ = true;
    agent_.node_.handle_stream_failure(agent_.now(), id_);
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
