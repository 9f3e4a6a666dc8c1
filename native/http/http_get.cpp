#include "http/http_get.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vigil::native {

Result<HttpReply> http_get(const std::string& host, int port, const std::string& path, Millis timeout) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) return Error{"not an IPv4 address: " + host};
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Error{std::string("socket: ") + std::strerror(errno)};
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  const std::string where = host + ":" + std::to_string(port);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    return Error{"cannot connect to " + where + ": " + why};
  }
  const std::string request = "GET " + path + " HTTP/1.0\r\nHost: " + where + "\r\nConnection: close\r\n\r\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
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
      return Error{"no complete answer from " + where + " within " + std::to_string(timeout.count()) + " ms"};
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
