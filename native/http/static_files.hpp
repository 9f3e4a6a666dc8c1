#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <vigil/base/result.hpp>
#include "http/static_rules.hpp"

namespace vigil::native {

// An open file descriptor, closed when it goes out of scope.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

struct StaticRequest {
  enum class Method { get, head, other };
  Method method = Method::get;
  std::string_view uri;  // the decoded path, without the query string
  std::string_view accept_encoding;
  std::string_view if_none_match;
  std::string_view if_modified_since;
};

// What to answer: the status, headers, and either the file to stream or a short text body.
struct StaticReply {
  int status = 200;
  std::string content_type;                                  // empty for 304
  std::vector<std::pair<std::string, std::string>> headers;  // lower-case names
  // 200: the length of the variant chosen (Content-Length for GET and HEAD alike) and, for GET
  // only, that file open at its start. The descriptor's own stat gave the entity tag, so the
  // tag always describes the bytes that are read.
  UniqueFd file;
  std::uint64_t length = 0;
  std::string body;      // errors only
  bool refused = false;  // turned away (a forbidden path, a method other than GET or HEAD)
};

// What a server answers instead of a file when it is already sending as many as it will (503,
// to be retried in a second).
StaticReply busy_reply(std::int64_t now_unix_seconds);

// The web app's files, with revalidation (ETag, Last-Modified, 304) and precompressed variants:
// `<file>.br`, then `<file>.gz`, as the client accepts, unless older than `<file>`. Files are
// `Cache-Control: no-cache`: their names carry no content hash, so a cache must ask each time,
// and a 304 makes that cheap. Nothing outside the web directory is served, through symbolic
// links included. A folder with a page, named without its final slash, is redirected (301) to
// the address with the slash.
class StaticFiles {
 public:
  // Fails if `web_dir` is not a directory.
  static Result<StaticFiles> open(const std::string& web_dir);

  StaticReply answer(const StaticRequest& request, std::int64_t now_unix_seconds) const;

  const std::string& root() const { return root_; }

 private:
  explicit StaticFiles(std::string root) : root_(std::move(root)) {}
  std::string root_;  // canonical
};

}  // namespace vigil::native
