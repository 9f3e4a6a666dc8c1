#include "ui/url_params.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace vigil::web {

namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decode(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// RFC 3986's unreserved characters travel as they are; everything else is percent-encoded.
std::string encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

UrlParams UrlParams::parse(const std::string& query) {
  UrlParams p;
  std::size_t start = (!query.empty() && query[0] == '?') ? 1 : 0;
  while (start < query.size()) {
    std::size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    const std::string pair = query.substr(start, end - start);
    const std::size_t eq = pair.find('=');
    if (!pair.empty())
      p.values_[decode(pair.substr(0, eq))] =
          eq == std::string::npos ? "" : decode(pair.substr(eq + 1));
    start = end + 1;
  }
  return p;
}

std::optional<std::string> UrlParams::text(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

double UrlParams::number(const std::string& key, double fallback, double lo, double hi) const {
  auto t = text(key);
  if (!t || t->empty()) return fallback;
  char* end = nullptr;
  const double v = std::strtod(t->c_str(), &end);
  if (end != t->c_str() + t->size() || !std::isfinite(v) || v < lo || v > hi) return fallback;
  return v;
}

bool UrlParams::flag(const std::string& key) const {
  auto t = text(key);
  return t && (*t == "1" || *t == "true" || *t == "yes" || *t == "on");
}

void UrlParams::set(const std::string& key, std::string value) {
  values_[key] = std::move(value);
}

void UrlParams::set(const std::string& key, double value) {
  char buf[32];
  for (int digits = 6; digits <= 17; ++digits) {  // 6 digits suffice for slider values
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  values_[key] = buf;
}

void UrlParams::set_flag(const std::string& key, bool on) {
  if (on)
    values_[key] = "1";
  else
    values_.erase(key);
}

void UrlParams::erase(const std::string& key) {
  values_.erase(key);
}

std::string UrlParams::query() const {
  std::string out;
  for (const auto& [key, value] : values_) {
    if (!out.empty()) out += '&';
    out += encode(key);
    if (!value.empty()) out += '=' + encode(value);
  }
  return out;
}

}  // namespace vigil::web
