#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "http/accept_encoding.hpp"

namespace vigil::native {

// The rules the static-file mount follows, free of files and sockets so that they can be tested:
// which file a URI names, its type, its entity tag and whether a conditional request matches.

// What identifies one version of a file.
struct FileStamp {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;  // since the Unix epoch
  std::int64_t mtime_seconds() const;
};

// The file under the web directory that a request path names, relative ("index.html" for "/"
// and for any path ending in "/"), or nothing when the path must be refused: not absolute, a
// control character, or a segment starting with "." ("..", ".", hidden files). libwebsockets has
// already decoded %xx and folded "/../" by then; this does not decode again, so "%2e%2e" reaches
// here as ".." and is refused, and a second level of encoding stays literal.
std::optional<std::string> request_path(std::string_view uri);

// Where to send a request for a folder named without its final slash ("/docs" for the site at
// "/docs/"), given its request_path: the same path with the slash, whose page's relative links
// then resolve inside the folder. Nothing unless every byte of the path is one that a Location
// header carries as it is (letters, digits, "/", ".", "_", "~", "-").
std::optional<std::string> folder_location(std::string_view relative_path);

// The Content-Type for a file name, by extension (case-insensitive); nothing for types this
// server does not publish.
std::optional<std::string_view> mime_type(std::string_view path);

// Whether the type gains from compression (text, JSON, WebAssembly, SVG): such answers vary
// with Accept-Encoding.
bool compressible(std::string_view path);

// A strong entity tag for the bytes sent: the served file's size and modification time, and the
// coding, so that each variant of a file has its own tag.
std::string entity_tag(const FileStamp& sent, ContentCoding coding);

// Whether If-None-Match lists `etag` (or is "*"), by weak comparison as RFC 9110 requires for
// this header: W/"x" matches "x".
bool none_match(std::string_view if_none_match, std::string_view etag);

// Whether If-Modified-Since is a valid date no earlier than the last modification.
bool not_modified_since(std::string_view if_modified_since, std::int64_t last_modified_seconds);

// A precompressed sibling is current unless its source changed after it was written: an older
// sibling holds old content and must not be sent.
bool sibling_fresh(const FileStamp& source, const FileStamp& sibling);

}  // namespace vigil::native
