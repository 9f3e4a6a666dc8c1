#include "cli/printable.hpp"

#include <cstdint>
#include <cstdio>

namespace vigil::cli {

namespace {

// The length of the well-formed UTF-8 sequence starting at `at` (Unicode 15, table 3-7: no
// overlong forms, no surrogates, nothing above U+10FFFF), or 0.
std::size_t sequence_length(std::string_view s, std::size_t at) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[at + k]); };
  const auto in = [](unsigned char b, unsigned char lo, unsigned char hi) {
    return b >= lo && b <= hi;
  };
  const std::size_t left = s.size() - at;
  const unsigned char b0 = byte(0);
  if (b0 >= 0xC2 && b0 <= 0xDF) return left >= 2 && in(byte(1), 0x80, 0xBF) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (left < 3) return 0;
    const unsigned char lo = b0 == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = b0 == 0xED ? 0x9F : 0xBF;
    return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xBF) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (left < 4) return 0;
    const unsigned char lo = b0 == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = b0 == 0xF4 ? 0x8F : 0xBF;
    return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xBF) && in(byte(3), 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

std::uint32_t code_point(std::string_view s) {
  const auto b = [&](std::size_t k) { return static_cast<std::uint32_t>(s[k]) & 0xFFu; };
  switch (s.size()) {
    case 2:
      return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3:
      return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default:
      return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

// Code points that change how the text around them is shown rather than showing themselves.
bool hidden_control(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

void append_escape(std::string& out, const char* format, unsigned value) {
  char buf[8];
  std::snprintf(buf, sizeof buf, format, value);
  out += buf;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == '\\')
        out += "\\\\";
      else if (c == '\n')
        out += "\\n";
      else if (c == '\r')
        out += "\\r";
      else if (c == '\t')
        out += "\\t";
      else if (c < 0x20 || c == 0x7F)
        append_escape(out, "\\x%02x", c);
      else
        out += static_cast<char>(c);
      ++i;
      continue;
    }
    const std::size_t n = sequence_length(text, i);
    if (n == 0) {
      append_escape(out, "\\x%02x", c);
      ++i;
      continue;
    }
    const std::string_view sequence = text.substr(i, n);
    if (const std::uint32_t cp = code_point(sequence); hidden_control(cp))
      append_escape(out, "\\u%04x", cp);
    else
      out += sequence;
    i += n;
  }
  return out;
}

std::string json_text(const nlohmann::json& document, int indent) {
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace vigil::cli
