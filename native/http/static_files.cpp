#include "http/static_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "http/http_date.hpp"

namespace vigil::native {

namespace {

namespace fs = std::filesystem;

struct OpenFile {
  UniqueFd fd;
  FileStamp stamp;
};

enum class Lookup { found, missing, outside };

bool inside(const std::string& root, const std::string& path) {
  if (root == "/") return true;
  return path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
         path[root.size()] == '/';
}

// Opens `relative` under `root` if, with every symbolic link resolved, it is a regular file that
// is still under `root`.
Lookup open_beneath(const std::string& root, const std::string& relative, OpenFile& out) {
  std::error_code ec;
  const fs::path real = fs::canonical(fs::path(root) / relative, ec);
  if (ec) return Lookup::missing;
  if (!inside(root, real.native())) return Lookup::outside;
  // No following a link swapped in since, and no blocking on a FIFO.
  UniqueFd fd(::open(real.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd) return Lookup::missing;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return Lookup::missing;
  out.fd = std::move(fd);
  out.stamp.size = static_cast<std::uint64_t>(st.st_size);
  out.stamp.mtime_ns =
      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return Lookup::found;
}

StaticReply error_reply(int status, std::string body, std::int64_t now, bool refused = false) {
  StaticReply r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  r.refused = refused;
  r.headers = {{"cache-control", "no-store"}, {"date", format_http_date(now)}};
  return r;
}

// A folder's page exists at `relative` + "/index.html", inside the web directory.
bool has_folder_page(const std::string& root, const std::string& relative) {
  OpenFile page;
  return open_beneath(root, relative + "/index.html", page) == Lookup::found;
}

StaticReply redirect_reply(std::string location, std::int64_t now) {
  StaticReply r;
  r.status = 301;
  r.content_type = "text/plain; charset=utf-8";
  r.body = "moved to " + location + "\n";
  // no-cache, not cached for good: the folder may become a file when the web directory changes.
  r.headers = {{"location", std::move(location)},
               {"cache-control", "no-cache"},
               {"date", format_http_date(now)}};
  return r;
}

}  // namespace

StaticReply busy_reply(std::int64_t now) {
  StaticReply r = error_reply(503, "too many files being sent; try again\n", now);
  r.headers.emplace_back("retry-after", "1");
  return r;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

Result<StaticFiles> StaticFiles::open(const std::string& web_dir) {
  std::error_code ec;
  const fs::path root = fs::canonical(web_dir, ec);
  if (ec || !fs::is_directory(root, ec)) return Error{"'" + web_dir + "' is not a directory"};
  return StaticFiles(root.native());
}

StaticReply StaticFiles::answer(const StaticRequest& request, std::int64_t now) const {
  using Method = StaticRequest::Method;
  if (request.method == Method::other) {
    StaticReply r = error_reply(405, "only GET and HEAD are served here\n", now, true);
    r.headers.emplace_back("allow", "GET, HEAD");
    return r;
  }
  const auto relative = request_path(request.uri);
  if (!relative) return error_reply(403, "forbidden\n", now, true);
  const auto type = mime_type(*relative);
  if (!type) {
    const auto location = folder_location(*relative);
    if (location && has_folder_page(root_, *relative)) return redirect_reply(*location, now);
    return error_reply(404, "not found\n", now);
  }
  OpenFile source;
  switch (open_beneath(root_, *relative, source)) {
    case Lookup::found:
      break;
    case Lookup::missing:
      return error_reply(404, "not found\n", now);
    case Lookup::outside:
      return error_reply(403, "forbidden\n", now, true);
  }

  const bool varies = compressible(*relative);
  OpenFile br, gz;
  ContentCoding coding = ContentCoding::identity;
  if (varies) {
    const AcceptEncoding accept = AcceptEncoding::parse(request.accept_encoding);
    auto usable = [&](ContentCoding c, const char* suffix, OpenFile& sibling) {
      return accept.quality(c) > 0 &&
             open_beneath(root_, *relative + suffix, sibling) == Lookup::found &&
             sibling_fresh(source.stamp, sibling.stamp);
    };
    const bool has_br = usable(ContentCoding::br, ".br", br);
    const bool has_gz = usable(ContentCoding::gzip, ".gz", gz);
    coding = accept.choose(has_br, has_gz);
  }
  OpenFile& sent = coding == ContentCoding::br ? br : coding == ContentCoding::gzip ? gz : source;

  StaticReply r;
  const std::string etag = entity_tag(sent.stamp, coding);
  // The source's time even for a sibling: it is when the content last changed.
  const std::int64_t last_modified = source.stamp.mtime_seconds();
  r.headers = {{"etag", etag},
               {"last-modified", format_http_date(last_modified)},
               {"cache-control", "no-cache"},
               {"date", format_http_date(now)}};
  if (varies) r.headers.emplace_back("vary", "Accept-Encoding");
  // A page may be opened with the agents' token in its address (live.html?token=...): links to
  // other sites must not carry that address along.
  if (type->rfind("text/html", 0) == 0) r.headers.emplace_back("referrer-policy", "no-referrer");

  // If-Modified-Since counts only without If-None-Match (RFC 9110, section 13.2.2).
  const bool not_modified = !request.if_none_match.empty()
                                ? none_match(request.if_none_match, etag)
                                : !request.if_modified_since.empty() &&
                                      not_modified_since(request.if_modified_since, last_modified);
  if (not_modified) {
    r.status = 304;
    return r;
  }
  if (coding != ContentCoding::identity)
    r.headers.emplace_back("content-encoding", coding_name(coding));
  r.content_type = *type;
  r.length = sent.stamp.size;
  if (request.method == Method::get) r.file = std::move(sent.fd);
  return r;
}

}  // namespace vigil::native
