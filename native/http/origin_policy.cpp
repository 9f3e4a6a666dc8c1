#include "http/origin_policy.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace vigil::native {

namespace {

bool scheme_char(char c, bool first) {
  if (c >= 'a' && c <= 'z') return true;
  return !first && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.');
}

bool host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

std::string default_port(const std::string& scheme) {
  if (scheme == "http" || scheme == "ws") return "80";
  if (scheme == "https" || scheme == "wss") return "443";
  return "";
}

}  // namespace

OriginPolicy OriginPolicy::allow_all() {
  OriginPolicy p;
  p.all_ = true;
  return p;
}

Result<std::string> OriginPolicy::normalize(std::string_view origin, bool wildcard_port) {
  const std::string original(origin);
  auto bad = [&](const std::string& why) {
    return Error{"'" + original + "' is not an origin such as http://127.0.0.1:8080 (" + why + ")"};
  };
  std::string s = original;
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s == "null") return s;
  const auto sep = s.find("://");
  if (sep == std::string::npos || sep == 0) return bad("no scheme://");
  const std::string scheme = s.substr(0, sep);
  for (std::size_t i = 0; i < scheme.size(); ++i)
    if (!scheme_char(scheme[i], i == 0)) return bad("bad scheme");
  std::string rest = s.substr(sep + 3);
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.find_first_of("/?#@\\ ") != std::string::npos)
    return bad("an origin has no path, query or user");
  std::string host, after;
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string::npos) return bad("unclosed [");
    host = rest.substr(0, close + 1);
    after = rest.substr(close + 1);
    for (std::size_t i = 1; i + 1 < host.size(); ++i)
      if (!std::isxdigit(static_cast<unsigned char>(host[i])) && host[i] != ':' && host[i] != '.')
        return bad("bad IPv6 address");
    if (host.size() < 3) return bad("empty host");
  } else {
    const auto colon = rest.find(':');
    host = rest.substr(0, colon);
    after = colon == std::string::npos ? "" : rest.substr(colon);
    if (host.empty()) return bad("empty host");
    if (!std::all_of(host.begin(), host.end(), host_char)) return bad("bad host");
  }
  std::string port;
  if (after.empty()) {
    port = default_port(scheme);
  } else if (after == ":*") {
    if (!wildcard_port) return bad("a port of * is only for the allow-list");
    port = "*";
  } else {
    const std::string_view digits = std::string_view(after).substr(1);
    int value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || value < 1 ||
        value > 65535)
      return bad("port must be 1..65535");
    port = std::to_string(value);
  }
  return scheme + "://" + host + (port.empty() ? "" : ":" + port);
}

Status OriginPolicy::allow(std::string_view origin) {
  if (origin == "*") {
    all_ = true;
    entries_.push_back("*");
    return ok_status();
  }
  auto n = normalize(origin, /*wildcard_port=*/true);
  if (!n) return n.error();
  if (std::find(entries_.begin(), entries_.end(), *n) == entries_.end()) entries_.push_back(*n);
  return ok_status();
}

bool OriginPolicy::allows(std::string_view origin_header) const {
  if (origin_header.empty() || all_) return true;
  auto n = normalize(origin_header);
  if (!n) return false;
  for (const std::string& e : entries_) {
    if (e == *n) return true;
    if (e.size() >= 2 && e.compare(e.size() - 2, 2, ":*") == 0) {
      const std::string_view prefix(e.data(), e.size() - 1);  // "scheme://host:"
      if (n->size() > prefix.size() && n->compare(0, prefix.size(), prefix) == 0) return true;
    }
  }
  return false;
}

std::vector<std::string> OriginPolicy::own_origins(const std::string& host, int port, bool tls) {
  const std::string scheme = tls ? "https://" : "http://";
  const std::string p = ":" + std::to_string(port);
  std::vector<std::string> out;
  // A wildcard bind has no single name of its own; other names need --allow-origin.
  if (host != "0.0.0.0" && host != "::" && !host.empty()) {
    const bool v6 = host.find(':') != std::string::npos && host.front() != '[';
    out.push_back(scheme + (v6 ? "[" + host + "]" : host) + p);
  }
  for (const char* loopback : {"127.0.0.1", "localhost"}) {
    const std::string origin = scheme + loopback + p;
    if (std::find(out.begin(), out.end(), origin) == out.end()) out.push_back(origin);
  }
  return out;
}

}  // namespace vigil::native
