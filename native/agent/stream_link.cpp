#include "agent/stream_link.hpp"

#include <malloc.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include <vigil/wire/codec.hpp>
#include "agent/agent.hpp"
#include "http/prometheus_text.hpp"

namespace vigil::native {

std::string stream_metrics_text(const StreamStats& s) {
  std::ostringstream out;
  auto counter = [&](const char* name, const char* help, std::uint64_t value) {
    write_counter(out, name, help, value);
  };
  auto gauge = [&](const char* name, const char* help, std::uint64_t value) {
    write_gauge(out, name, help, value);
  };
  counter("vigil_streams_refused_total",
          "TCP connections on the protocol port closed at once: 128 incoming streams were open.",
          s.refused);
  counter("vigil_streams_too_large_total", "TCP streams closed for sending more than 4 MiB.",
          s.too_large);
  counter("vigil_streams_over_budget_total",
          "TCP streams closed because all streams together would buffer more than 16 MiB.",
          s.over_budget);
  counter("vigil_streams_timed_out_total", "TCP streams closed unfinished at their 10 s deadline.",
          s.timed_out);
  counter("vigil_streams_junk_total",
          "TCP streams closed because their bytes are not a message (foreign labels and bad keys "
          "included).",
          s.junk);
  gauge("vigil_streams_incoming", "Incoming TCP streams open now.", s.open_incoming);
  gauge("vigil_stream_bytes_buffered", "Bytes reserved for reading TCP streams now.", s.buffered);
  return out.str();
}

StreamLink::StreamLink(Agent& agent, Role role, int fd, std::uint64_t id, wire::Bytes request,
                       Millis deadline)
    : agent_(agent),
      role_(role),
      fd_(fd),
      id_(id),
      out_(std::move(request)),
      deadline_(deadline),
      connecting_(role == Role::initiator) {}

StreamLink::~StreamLink() {
  release_buffer();
}

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

bool StreamLink::make_room(std::size_t more) {
  const std::size_t needed = in_.size() + more;
  if (needed > StreamLimits::kMaxBytesPerStream) {
    ++agent_.stream_stats_.too_large;
    return false;
  }
  if (needed <= in_.capacity()) return true;
  // Grown here rather than by insert(), so the buffer never overshoots the per-stream limit and
  // the total counts what is really reserved.
  const std::size_t grown =
      std::min(StreamLimits::kMaxBytesPerStream, std::max(needed, 2 * in_.capacity()));
  if (agent_.stream_buffered_ - accounted_ + grown > StreamLimits::kMaxBytesBuffered) {
    ++agent_.stream_stats_.over_budget;
    return false;
  }
  in_.reserve(grown);
  agent_.stream_buffered_ = agent_.stream_buffered_ - accounted_ + in_.capacity();
  accounted_ = in_.capacity();
  return true;
}

void StreamLink::release_buffer() {
  const std::size_t freed = in_.capacity();
  wire::Bytes().swap(in_);
  agent_.stream_buffered_ -= accounted_;
  accounted_ = 0;
  if (freed >= StreamLimits::kTrimAfter) ::malloc_trim(0);
}

bool StreamLink::plausible_start() const {
  std::size_t at = 0;
  if (role_ == Role::responder && !in_.empty() &&
      in_[0] == static_cast<std::uint8_t>(wire::MessageType::has_label))
    at = in_.size() < 2 ? in_.size() : 2 + std::size_t{in_[1]};
  if (at >= in_.size()) return true;
  switch (static_cast<wire::MessageType>(in_[at])) {
    case wire::MessageType::push_pull:
    case wire::MessageType::compress:
    case wire::MessageType::encrypt:
      return true;
    case wire::MessageType::ping:  // memberlist's TCP fallback probe
      return role_ == Role::responder;
    case wire::MessageType::ack:
      return role_ == Role::initiator;
    default:
      return false;
  }
}

void StreamLink::on_readable() {
  if (closing_ || resolved_) return;
  std::uint8_t buf[65536];
  bool eof = false;
  for (;;) {
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n > 0) {
      if (!make_room(static_cast<std::size_t>(n))) return fail();
      in_.insert(in_.end(), buf, buf + n);
      continue;
    }
    if (n == 0)
      eof = true;
    else if (errno != EAGAIN && errno != EWOULDBLOCK)
      return fail();
    break;
  }
  auto junk = [this] {
    ++agent_.stream_stats_.junk;
    fail();
  };
  // The label and, with a keyring, the encryption are checked before anything reaches the engine;
  // a plaintext exchange is complete once it decodes. An initiator reads the answer on its own
  // connection, which carries no label header (memberlist labels only the dialling side).
  const auto part = role_ == Role::initiator ? wire::StreamPart::reply : wire::StreamPart::request;
  auto read = agent_.node_.read_stream(in_, part, [](std::span<const std::uint8_t> m) {
    return swim::Node::stream_message_complete(m);
  });
  if (read.status == wire::StreamRead::Status::refused) return junk();
  if (read.status == wire::StreamRead::Status::ready) {
    const Millis now = agent_.now();
    resolved_ = true;
    agent_.log_stream(false, peer_, read.message, in_.size());
    release_buffer();
    if (role_ == Role::initiator) {
      agent_.node_.handle_stream_reply(now, id_, read.message);
      agent_.settle();  // a conflict over our own name found in the answer is fatal before this
      if (join_) agent_.joined_ = true;
      return finish();
    }
    auto reply = agent_.node_.handle_stream(now, swim::Address{}, read.message);
    agent_.settle();
    if (!reply) return junk();
    auto framed = agent_.node_.frame_stream(*reply, wire::StreamPart::reply);
    if (!framed) return fail();
    out_ = std::move(framed).value();
    agent_.log_stream(true, peer_, *reply, out_.size());
    written_ = 0;
    agent_.http_->want_write(wsi_);
    return;
  }
  // Incomplete: wait for more, unless no message can start this way or the peer has already
  // hung up halfway through one.
  if (!plausible_start()) return junk();
  if (eof) return in_.empty() ? fail() : junk();
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

void StreamLink::abort() {
  fail();
}

void StreamLink::time_out() {
  if (closing_ || closed_) return;
  ++agent_.stream_stats_.timed_out;
  fail();
}

void StreamLink::finish() {
  // Whatever arrived is of no more use: a junk stream's memory goes back now, not when the
  // link is reaped.
  release_buffer();
  if (closing_) return;
  closing_ = true;
  agent_.http_->close_raw(wsi_);
}

void StreamLink::on_closed() {
  if (!resolved_ && role_ == Role::initiator) {
    resolved_ = true;
    agent_.node_.handle_stream_failure(agent_.now(), id_);
  }
  release_buffer();
  closed_ = true;
  wsi_ = nullptr;
}

}  // namespace vigil::native
