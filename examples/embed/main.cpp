// embed: one member of a SWIM cluster, hosting vigil::swim::Node with plain POSIX sockets.
//
// The engine does no I/O: the host gives it the time and what arrives, sends what it leaves in
// its outbox, and calls handle_tick() when next_deadline() comes. Probes and gossip are UDP
// datagrams; joining (and the periodic anti-entropy) exchanges whole member lists over TCP, as
// memberlist does, so a host also accepts and dials short TCP connections on the same port.
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <vigil/swim.hpp>  // the whole engine: Node, Config, Outbox, Millis, Rng

using namespace vigil;

namespace {

constexpr Millis kStreamTimeout{10000};   // memberlist's TCPTimeout
constexpr Millis kGoodbye{1000};          // the longest we stay to gossip our departure
constexpr std::size_t kMaxStreams = 128;  // memberlist's maxPushPullRequests
volatile std::sig_atomic_t stop_requested = 0;

[[noreturn]] void die(int code, const std::string& why) {
  std::fprintf(stderr, "embed: %s\n", why.c_str());
  std::exit(code);
}

// Any origin will do for engine time, but it must never go back: a steady clock.
Millis now() {
  return std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now().time_since_epoch());
}

// "HOST:PORT" as an IPv4 address. The engine speaks IPv6 too; this example keeps to IPv4.
swim::Address parse_address(const std::string& flag, const std::string& text) {
  const auto colon = text.rfind(':');
  char* end = nullptr;
  const long port = colon == std::string::npos ? 0 : std::strtol(&text[colon + 1], &end, 10);
  if (colon == 0 || port < 1 || port > 65535 || *end != '\0' ||
      !std::isdigit(static_cast<unsigned char>(text[colon + 1])))
    die(2, flag + " wants HOST:PORT with a port in 1..65535, not '" + text + "'");
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  if (::getaddrinfo(text.substr(0, colon).c_str(), nullptr, &hints, &found) != 0)
    die(2, flag + ": cannot resolve '" + text.substr(0, colon) + "' to an IPv4 address");
  const auto ip = ntohl(reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr.s_addr);
  ::freeaddrinfo(found);
  return swim::Address::from_v4(ip, static_cast<std::uint16_t>(port));
}

sockaddr_in to_sockaddr(const swim::Address& a) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(a.v4());
  sa.sin_port = htons(a.port);
  return sa;
}

int open_socket(int type, const swim::Address& at) {
  const int fd = ::socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const int one = 1;  // a restarted member can listen again at once, despite TIME_WAIT
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const sockaddr_in sa = to_sockaddr(at);
  if (fd < 0 || ::bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0 ||
      (type == SOCK_STREAM && ::listen(fd, 64) != 0))
    die(1, std::string("cannot bind ") + (type == SOCK_STREAM ? "TCP " : "UDP ") + at.to_string() +
               ": " + std::strerror(errno));
  return fd;
}

// One TCP connection carrying one exchange. The side that dials writes the node's state and
// reads the answer; the side that accepts reads, lets the node merge and answer, and hangs up
// once the answer is written.
struct Stream {
  int fd = -1;
  bool dialled = false;
  std::uint64_t id = 0;  // the engine's StreamRequest, when dialled
  wire::Bytes out{};     // framed bytes still to write from `written` on
  std::size_t written = 0;
  wire::Bytes in{};  // all read so far: a plaintext message is known complete only once it decodes
  Millis deadline{0};
  bool answered = false;
  bool done = false;
};

struct Host {
  swim::Node node;
  int udp, tcp;
  std::vector<Stream> streams;
};

void fail(Host& h, Stream& s, const std::string& why) {
  if (s.dialled) h.node.handle_stream_failure(now(), s.id, why);  // a join reports it
  s.done = true;
}

// Moves an exchange on as far as its socket allows without blocking.
void advance(Host& h, Stream& s) {
  for (; s.written < s.out.size();) {
    const ssize_t n = ::send(s.fd, &s.out[s.written], s.out.size() - s.written, MSG_NOSIGNAL);
    if (n < 0) return errno == EAGAIN ? void() : fail(h, s, std::strerror(errno));
    s.written += static_cast<std::size_t>(n);
  }
  if (s.answered) return void(s.done = true);
  std::uint8_t buf[65536];
  ssize_t n = 0;
  while (s.in.size() <= wire::kMaxStreamBytes && (n = ::recv(s.fd, buf, sizeof buf, 0)) > 0)
    s.in.insert(s.in.end(), buf, buf + n);
  if (s.in.size() > wire::kMaxStreamBytes) return fail(h, s, "message too large");
  if (n < 0 && errno != EAGAIN) return fail(h, s, std::strerror(errno));
  // Checks the label and, with a cipher, decrypts: only a whole, genuine message goes further.
  const auto part = s.dialled ? wire::StreamPart::reply : wire::StreamPart::request;
  auto read = h.node.read_stream(s.in, part, &swim::Node::stream_message_complete);
  if (read.status == wire::StreamRead::Status::refused) return fail(h, s, read.error);
  if (read.status == wire::StreamRead::Status::incomplete) {
    if (n == 0) fail(h, s, "connection closed mid-message");
    return;
  }
  s.done = s.dialled;  // a dialled exchange ends with the answer; an accepted one answers
  if (s.dialled) return h.node.handle_stream_reply(now(), s.id, read.message);
  auto reply = h.node.handle_stream(now(), swim::Address{}, read.message);
  auto framed = reply ? h.node.frame_stream(*reply, wire::StreamPart::reply) : reply;
  if (!framed) return fail(h, s, framed.error().message);
  s.out = std::move(framed).value();
  s.answered = true;
  advance(h, s);
}

void dial(Host& h, const swim::StreamRequest& request) {
  Stream s{.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0),
           .dialled = true,
           .id = request.id,
           .deadline = now() + kStreamTimeout};
  const sockaddr_in sa = to_sockaddr(request.to);
  auto framed = h.node.frame_stream(request.bytes, wire::StreamPart::request);
  if (s.fd < 0 || !framed ||
      (::connect(s.fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0 &&
       errno != EINPROGRESS)) {
    fail(h, s, framed ? std::strerror(errno) : framed.error().message);
    if (s.fd >= 0) ::close(s.fd);
    return;
  }
  s.out = std::move(framed).value();  // written once poll says the connection is up
  h.streams.push_back(std::move(s));
}

void print_event(const swim::Node& node, const swim::Event& e) {
  const swim::Member* m = node.member(e.member);
  const std::string where = m ? m->address.to_string() : "?";  // removed: already forgotten
  std::string what(swim::to_string(e.kind));
  if (e.kind == swim::EventKind::join) what = "joined";
  if (e.kind == swim::EventKind::alive) what = "is alive again";
  if (e.kind == swim::EventKind::suspect || e.kind == swim::EventKind::dead) what = "is " + what;
  if (!e.by.empty() && e.by != e.member) what += " (by " + e.by + ")";
  std::printf("[%s] member %s at %s %s\n", node.name().c_str(), e.member.c_str(), where.c_str(),
              what.c_str());
}

// Carries out what the node asked for; call it after every call into the node. Failing a
// stream can queue more (a join's result), so loop until the outbox stays empty.
void drain(Host& h) {
  while (!h.node.outbox().empty()) {
    swim::Outbox box = std::exchange(h.node.outbox(), swim::Outbox{});
    for (const auto& d : box.datagrams) {
      const sockaddr_in sa = to_sockaddr(d.to);  // a loss here is one more SWIM tolerates
      ::sendto(h.udp, d.bytes.data(), d.bytes.size(), 0, reinterpret_cast<const sockaddr*>(&sa),
               sizeof sa);
    }
    for (const auto& s : box.streams) dial(h, s);
    for (const auto& e : box.events) print_event(h.node, e);
    for (const auto& r : box.join_results) {
      for (const auto& f : r.failures)
        std::fprintf(stderr, "embed: cannot join through %s: %s\n", f.seed.to_string().c_str(),
                     f.reason.c_str());
      if (!r.ok()) die(1, "join failed");  // never a member: no one to say goodbye to
    }
    for (const auto& n : box.notices)  // once each: the counters carry the repetitions
      if (n.kind == swim::Notice::Kind::member_table_full)
        std::fprintf(stderr, "embed: member table full at %zu members; new names are refused\n",
                     n.limit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // events show as they happen, even through a pipe
  const std::string usage = "usage: embed --name N --bind IPV4:PORT [--join HOST:PORT]";
  std::string name, bind, join;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    std::string* value = flag == "--name" ? &name : flag == "--bind" ? &bind : nullptr;
    if (flag == "--join") value = &join;
    if (!value) die(2, "unknown argument '" + flag + "'\n" + usage);
    if (i + 1 >= argc || argv[i + 1][0] == '\0') die(2, flag + " needs a value\n" + usage);
    *value = argv[i + 1];
  }
  if (name.empty() || bind.empty()) die(2, "--name and --bind are required\n" + usage);
  const swim::Address self = parse_address("--bind", bind);
  // Peers reach us at the address we advertise, which is the one we bind.
  if (self.v4() == 0) die(2, "--bind needs this host's own address, not 0.0.0.0");

  // memberlist's DefaultLANConfig, with its TCP fallback ping: we carry streams anyway.
  swim::Config config = swim::Config::lan();
  config.tcp_fallback_ping = true;
  auto created = swim::Node::create(config, name, self, Rng(std::random_device{}()));
  if (!created) die(2, created.error().message);
  const int udp = open_socket(SOCK_DGRAM, self), tcp = open_socket(SOCK_STREAM, self);
  Host h{std::move(created).value(), udp, tcp, {}};
  std::signal(SIGINT, [](int) { stop_requested = 1; });
  std::signal(SIGTERM, [](int) { stop_requested = 1; });
  // Both stay blocked except inside ppoll(), which unblocks them atomically: a signal then always
  // cuts the sleep short, never slips in between the check of stop_requested and the sleep.
  sigset_t stops, while_waiting;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  sigprocmask(SIG_BLOCK, &stops, &while_waiting);

  h.node.start(now());
  if (!join.empty()) h.node.join(now(), {parse_address("--join", join)});
  std::printf("[%s] listening on %s (UDP and TCP)\n", name.c_str(), self.to_string().c_str());
  Millis leave_by = Millis::max();
  for (;;) {
    Millis t = now();
    if (stop_requested && !h.node.has_left()) {
      h.node.leave(t);  // tells every member directly, then gossips it
      leave_by = t + kGoodbye;
    }
    if (t >= h.node.next_deadline()) h.node.handle_tick(t);
    for (auto& s : h.streams)
      if (!s.done && t >= s.deadline) fail(h, s, "timed out");
    drain(h);
    if (h.node.has_left() && (h.node.pending_broadcasts() == 0 || t >= leave_by)) break;
    std::erase_if(h.streams, [](const Stream& s) {
      if (s.done) ::close(s.fd);
      return s.done;
    });

    // Sleep until the next timer, stream deadline or goodbye, unless a socket wakes us first.
    Millis next = std::min(h.node.next_deadline(), leave_by);
    // At the cap, connections wait in the listen backlog: a stranger cannot pile them up here.
    const short accepting = h.streams.size() < kMaxStreams ? POLLIN : 0;
    std::vector<pollfd> fds = {{h.udp, POLLIN, 0}, {h.tcp, accepting, 0}};
    for (const auto& s : h.streams) {
      next = std::min(next, s.deadline);
      fds.push_back({s.fd, static_cast<short>(s.written < s.out.size() ? POLLOUT : POLLIN), 0});
    }
    const auto wait = std::clamp(next - t, Millis{0}, Millis{60000}).count();
    const timespec timeout{wait / 1000, (wait % 1000) * 1000000};
    if (::ppoll(fds.data(), fds.size(), &timeout, &while_waiting) <= 0) continue;

    t = now();
    for (int i = 0; i < 256 && (fds[0].revents & POLLIN); ++i) {  // bounded: timers still run
      std::uint8_t buf[65536];
      sockaddr_in from{};
      socklen_t len = sizeof from;
      const ssize_t n =
          ::recvfrom(h.udp, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len);
      if (n < 0) break;
      const auto sender = swim::Address::from_v4(ntohl(from.sin_addr.s_addr), ntohs(from.sin_port));
      h.node.handle_datagram(t, sender, {buf, static_cast<std::size_t>(n)});
    }
    for (std::size_t i = 2; i < fds.size(); ++i)
      if (fds[i].revents) advance(h, h.streams[i - 2]);
    for (int fd; (fds[1].revents & POLLIN) && h.streams.size() < kMaxStreams &&
                 (fd = ::accept4(h.tcp, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;)
      h.streams.push_back({.fd = fd, .deadline = t + kStreamTimeout});
  }
  std::printf("[%s] left the cluster\n", name.c_str());
  return 0;
}
