#include "http/listen_socket.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace vigil::native {

namespace {

std::string with_port(const sockaddr* sa) {
  const std::string host = address_text(sa);
  const int port = sa->sa_family == AF_INET6
                       ? ntohs(reinterpret_cast<const sockaddr_in6*>(sa)->sin6_port)
                       : ntohs(reinterpret_cast<const sockaddr_in*>(sa)->sin_port);
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

void close_all(std::vector<ListenSocket>& sockets) {
  for (const ListenSocket& s : sockets) ::close(s.fd);
  sockets.clear();
}

Result<ListenSocket> listen_on(const addrinfo& ai) {
  const std::string where = with_port(ai.ai_addr);
  const int fd = ::socket(ai.ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error{"cannot listen on " + where + ": " + std::strerror(errno)};
  const int one = 1;
  // A restart must not wait out the previous run's connections in TIME_WAIT.
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, ai.ai_addr, ai.ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
    const int error = errno;
    ::close(fd);
    std::string why = std::strerror(error);
    if (error == EADDRNOTAVAIL) why += " (not an address of this machine)";
    if (error == EADDRINUSE) why += " (another program listens there)";
    return Error{"cannot listen on " + where + ": " + why};
  }
  return ListenSocket{fd, where};
}

}  // namespace

Result<std::vector<ListenSocket>> open_listen_sockets(const std::string& host, int port) {
  if (port < 1 || port > 65535)
    return Error{"port must be in 1..65535, got " + std::to_string(port)};
  if (host.empty()) return Error{"no address to listen on"};
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0)
    return Error{"cannot listen on " + host + ":" + service + ": " + ::gai_strerror(rc)};
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owner(found, &::freeaddrinfo);
  std::vector<ListenSocket> sockets;
  for (const addrinfo* ai = found; ai; ai = ai->ai_next) {
    if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6) continue;
    const std::string where = with_port(ai->ai_addr);
    bool repeated = false;  // resolvers may list one address once per protocol
    for (const ListenSocket& s : sockets) repeated |= s.address == where;
    if (repeated) continue;
    auto socket = listen_on(*ai);
    if (!socket) {
      close_all(sockets);
      return socket.error();
    }
    sockets.push_back(*socket);
  }
  if (sockets.empty()) return Error{"cannot listen on " + host + ":" + service + ": no address"};
  return sockets;
}

bool is_loopback(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(sa);
    return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
  }
  if (sa->sa_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127;
  }
  return false;
}

std::string address_text(const sockaddr* sa) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (sa->sa_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, text, sizeof text);
    return text;
  }
  if (sa->sa_family != AF_INET6) return {};
  const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
  if (IN6_IS_ADDR_V4MAPPED(&a)) {
    ::inet_ntop(AF_INET, &a.s6_addr[12], text, sizeof text);
    return text;
  }
  ::inet_ntop(AF_INET6, &a, text, sizeof text);
  return text;
}

bool is_loopback_host_header(std::string_view host) {
  std::string_view name = host;
  if (!name.empty() && name.front() == '[') {
    const auto close = name.find(']');
    if (close == std::string_view::npos) return false;
    const std::string_view rest = name.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return false;
    in6_addr a{};
    return ::inet_pton(AF_INET6, std::string(name.substr(1, close - 1)).c_str(), &a) == 1 &&
           IN6_IS_ADDR_LOOPBACK(&a);
  }
  if (const auto colon = name.rfind(':'); colon != std::string_view::npos)
    name = name.substr(0, colon);
  std::string lower;
  for (const char c : name) lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  if (!lower.empty() && lower.back() == '.') lower.pop_back();  // the root label
  constexpr std::string_view kSuffix = ".localhost";
  if (lower == "localhost" || (lower.size() > kSuffix.size() && lower.ends_with(kSuffix)))
    return true;
  in_addr a{};
  return ::inet_pton(AF_INET, lower.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

}  // namespace vigil::native
