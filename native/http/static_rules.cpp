#include "http/static_rules.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <utility>

#include "http/http_date.hpp"

namespace vigil::native {

namespace {

struct TypeEntry {
  const char* extension;
  const char* type;
  bool compressible;
};

// The web app's own types, and the few a page commonly links to.
constexpr std::array<TypeEntry, 21> kTypes = {{
    {".html", "text/html; charset=utf-8", true},
    {".htm", "text/html; charset=utf-8", true},
    {".css", "text/css; charset=utf-8", true},
    {".js", "text/javascript; charset=utf-8", true},
    // Browsers run module scripts only when served as JavaScript.
    {".mjs", "text/javascript; charset=utf-8", true},
    {".json", "application/json", true},
    // Browsers refuse to stream-compile WebAssembly served with any other type.
    {".wasm", "application/wasm", true},
    {".svg", "image/svg+xml", true},
    {".txt", "text/plain; charset=utf-8", true},
    {".csv", "text/csv; charset=utf-8", true},  // heartbeat traces next to the explainer
    {".xml", "application/xml", true},
    {".map", "application/json", true},
    {".png", "image/png", false},
    {".jpg", "image/jpeg", false},
    {".jpeg", "image/jpeg", false},
    {".gif", "image/gif", false},
    {".ico", "image/x-icon", false},
    {".webp", "image/webp", false},
    {".woff", "font/woff", false},
    {".woff2", "font/woff2", false},
    {".ttf", "font/ttf", false},
}};

const TypeEntry* type_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return nullptr;
  std::string ext(name.substr(dot));
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const TypeEntry& e : kTypes)
    if (ext == e.extension) return &e;
  return nullptr;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string_view opaque_part(std::string_view tag) {
  if (tag.substr(0, 2) == "W/") tag.remove_prefix(2);
  return tag;
}

}  // namespace

std::int64_t FileStamp::mtime_seconds() const {
  // Floor, not truncation, for the (unlikely) times before 1970.
  return mtime_ns >= 0 ? mtime_ns / 1'000'000'000 : -((-mtime_ns + 999'999'999) / 1'000'000'000);
}

std::optional<std::string> request_path(std::string_view uri) {
  if (uri.empty() || uri.front() != '/') return std::nullopt;
  std::string path;
  std::string_view rest = uri.substr(1);
  while (!rest.empty()) {
    const std::size_t slash = rest.find('/');
    const std::string_view segment = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
    if (segment.empty()) continue;
    if (segment.front() == '.') return std::nullopt;
    for (unsigned char c : segment)
      if (c < 0x20 || c == 0x7f) return std::nullopt;
    if (!path.empty()) path += '/';
    path += segment;
  }
  // A folder's page: "/" and any path ending in "/" (which an empty path always does).
  if (uri.back() == '/') path += path.empty() ? "index.html" : "/index.html";
  return path;
}

std::optional<std::string> folder_location(std::string_view relative_path) {
  if (relative_path.empty()) return std::nullopt;
  for (unsigned char c : relative_path)
    if (!std::isalnum(c) && c != '/' && c != '.' && c != '_' && c != '~' && c != '-')
      return std::nullopt;
  std::string location = "/";
  location += relative_path;
  return location + '/';
}

std::optional<std::string_view> mime_type(std::string_view path) {
  const TypeEntry* e = type_of(path);
  if (!e) return std::nullopt;
  return std::string_view(e->type);
}

bool compressible(std::string_view path) {
  const TypeEntry* e = type_of(path);
  return e && e->compressible;
}

std::string entity_tag(const FileStamp& sent, ContentCoding coding) {
  char stamp[40];
  std::snprintf(stamp, sizeof stamp, "%llx-%llx", static_cast<unsigned long long>(sent.size),
                static_cast<unsigned long long>(sent.mtime_ns));
  std::string tag = "\"";
  tag += stamp;
  if (coding != ContentCoding::identity) (tag += '-') += coding_name(coding);
  return tag + "\"";
}

bool none_match(std::string_view if_none_match, std::string_view etag) {
  const std::string_view wanted = opaque_part(etag);
  const std::string_view list = trim(if_none_match);
  if (list == "*") return true;
  // Entity tags are quoted and may not contain '"' or ',' inside: splitting on ',' is safe.
  std::string_view rest = list;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view tag = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (!tag.empty() && opaque_part(tag) == wanted) return true;
  }
  return false;
}

bool not_modified_since(std::string_view if_modified_since, std::int64_t last_modified_seconds) {
  const auto since = parse_http_date(trim(if_modified_since));
  return since && last_modified_seconds <= *since;
}

bool sibling_fresh(const FileStamp& source, const FileStamp& sibling) {
  return sibling.mtime_ns >= source.mtime_ns;
}

}  // namespace vigil::native
