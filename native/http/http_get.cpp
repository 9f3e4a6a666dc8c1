#include "http/http_get.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace vigil::native {

namespace {

// A connected socket to the first address of `host` (a literal, IPv4 or IPv6, or a name) that
// accepts, each attempt bounded by `timeout`.
Result<int> connect_to(const std::string& host, int port, Millis timeout,
                       const std::string& where) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0)
    return Error{"cannot resolve " + host + ": " + ::gai_strerror(rc)};
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owned(found, &::freeaddrinfo);
  std::string why = "no address";
  for (const addrinfo* a = found; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) {
      why = std::string("socket: ") + std::strerror(errno);
      continue;
    }
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) return fd;
    why = std::strerror(errno);
    ::close(fd);
  }
  return Error{"cannot connect to " + where + ": " + why};
}

}  // namespace

Result<HttpReply> http_get(const std::string& host, int port, const std::string& path,
                           Millis timeout) {
  // An IPv6 literal is bracketed in the Host header, as in a URL.
  const std::string where =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  auto connected = connect_to(host, port, timeout, where);
  if (!connected) return connected.error();
  const int fd = *connected;
  const std::string request =
      "GET " + path + " HTTP/1.0\r\nHost: " + where + "\r\nConnection: close\r\n\r\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return Error{"cannot send the request to " + where};
  }
  std::string response;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      response.append(buf, static_cast<std::size_t>(n));
      if (response.size() > 64 * 1024 * 1024) break;
      continue;
    }
    if (n < 0) {
      ::close(fd);
      return Error{"no complete answer from " + where + " within " +
                   std::to_string(timeout.count()) + " ms"};
    }
    break;
  }
  ::close(fd);
  const auto header_end = response.find("\r\n\r\n");
  if (response.rfind("HTTP/", 0) != 0 || header_end == std::string::npos)
    return Error{"not an HTTP answer from " + where};
  HttpReply reply;
  reply.status = std::atoi(response.c_str() + response.find(' ') + 1);
  reply.body = response.substr(header_end + 4);
  return reply;
}

}  // namespace vigil::native
