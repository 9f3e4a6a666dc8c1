#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "http/accept_encoding.hpp"
#include "http/http_date.hpp"
#include "http/static_files.hpp"
#include "http/static_rules.hpp"

using vigil::native::AcceptEncoding;
using vigil::native::ContentCoding;
using vigil::native::FileStamp;
using vigil::native::StaticFiles;
using vigil::native::StaticReply;
using vigil::native::StaticRequest;
namespace native = vigil::native;

TEST_CASE("Accept-Encoding: q-values in thousandths, q=0 refuses, identity stays acceptable") {
  const auto browser = AcceptEncoding::parse("gzip, deflate, br, zstd");
  CHECK(browser.quality(ContentCoding::br) == 1000);
  CHECK(browser.quality(ContentCoding::gzip) == 1000);
  CHECK(browser.quality(ContentCoding::identity) == AcceptEncoding::kImplicitIdentity);

  const auto weighted = AcceptEncoding::parse(" BR ; Q=0.5 ,gzip;q=0.25,  identity;q=0.125");
  CHECK(weighted.quality(ContentCoding::br) == 500);
  CHECK(weighted.quality(ContentCoding::gzip) == 250);
  CHECK(weighted.quality(ContentCoding::identity) == 125);

  const auto refused = AcceptEncoding::parse("br;q=0, gzip;q=0.000");
  CHECK(refused.quality(ContentCoding::br) == 0);
  CHECK(refused.quality(ContentCoding::gzip) == 0);

  // "*" covers what is not named; x-gzip is gzip.
  const auto wildcard = AcceptEncoding::parse("x-gzip;q=0.3, *;q=0.7");
  CHECK(wildcard.quality(ContentCoding::gzip) == 300);
  CHECK(wildcard.quality(ContentCoding::br) == 700);
  CHECK(wildcard.quality(ContentCoding::identity) == 700);
  CHECK(AcceptEncoding::parse("*;q=0").quality(ContentCoding::identity) == 0);

  // Nothing, or nothing we know: identity only.
  for (const char* header : {"", " , ,", "deflate, zstd", "compress;q=1"}) {
    CAPTURE(header);
    const auto a = AcceptEncoding::parse(header);
    CHECK(a.quality(ContentCoding::br) == 0);
    CHECK(a.quality(ContentCoding::gzip) == 0);
    CHECK(a.choose(true, true) == ContentCoding::identity);
  }
}

TEST_CASE("Accept-Encoding: malformed q-values drop their entry; a refusal is never overridden") {
  for (const char* header : {"br;q=1.5", "br;q=2", "br;q=0.5555", "br;q=.5", "br;q=", "br;q=abc",
                             "br;q=1.001", "br;garbage", "br;q=-1"}) {
    CAPTURE(header);
    CHECK(AcceptEncoding::parse(header).quality(ContentCoding::br) == 0);
  }
  CHECK(AcceptEncoding::parse("br;q=1.000").quality(ContentCoding::br) == 1000);
  CHECK(AcceptEncoding::parse("br;level=5").quality(ContentCoding::br) ==
        1000);  // unknown parameter
  CHECK(AcceptEncoding::parse("br;q=0, br").quality(ContentCoding::br) == 0);
  CHECK(AcceptEncoding::parse("br, br;q=0").quality(ContentCoding::br) == 0);
}

TEST_CASE("the coding chosen: highest quality among those available, ties to br then gzip") {
  const auto both = AcceptEncoding::parse("br, gzip");
  CHECK(both.choose(true, true) == ContentCoding::br);
  CHECK(both.choose(false, true) == ContentCoding::gzip);
  CHECK(both.choose(true, false) == ContentCoding::br);
  CHECK(both.choose(false, false) == ContentCoding::identity);
  CHECK(AcceptEncoding::parse("gzip").choose(true, true) == ContentCoding::gzip);
  CHECK(AcceptEncoding::parse("br;q=0.4, gzip;q=0.8").choose(true, true) == ContentCoding::gzip);
  CHECK(AcceptEncoding::parse("br;q=0, gzip;q=0").choose(true, true) == ContentCoding::identity);
  // The client prefers the uncompressed bytes when it says so.
  CHECK(AcceptEncoding::parse("br;q=0.5, identity").choose(true, true) == ContentCoding::identity);
  // Identity refused and nothing else available: identity all the same.
  CHECK(AcceptEncoding::parse("identity;q=0, br").choose(false, false) == ContentCoding::identity);
  CHECK(AcceptEncoding::parse("identity;q=0, br").choose(true, false) == ContentCoding::br);
}

TEST_CASE("HTTP dates: IMF-fixdate both ways, and the two obsolete forms read") {
  CHECK(native::format_http_date(784111777) == "Sun, 06 Nov 1994 08:49:37 GMT");
  CHECK(native::format_http_date(0) == "Thu, 01 Jan 1970 00:00:00 GMT");
  CHECK(native::format_http_date(951782400) == "Tue, 29 Feb 2000 00:00:00 GMT");
  CHECK(native::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT") == 784111777);
  CHECK(native::parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT") == 784111777);
  CHECK(native::parse_http_date("Sun Nov  6 08:49:37 1994") == 784111777);
  CHECK(native::parse_http_date("Tue, 29 Feb 2000 00:00:00 GMT") == 951782400);
  for (std::int64_t t : {0LL, 1LL, 86399LL, 1700000000LL, 4102444799LL}) {
    CAPTURE(t);
    CHECK(native::parse_http_date(native::format_http_date(t)) == t);
  }
  for (const char* bad : {"", "yesterday", "Sun, 06 Nov 1994 08:49:37",
                          "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT",
                          "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
                          "Sun, 06 Foo 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
                          "Sun, 06 Nov 1994 08:49:37 GMT junk", "Sun Nov  6 08:49:37 94"}) {
    CAPTURE(bad);
    CHECK_FALSE(native::parse_http_date(bad).has_value());
  }
}

TEST_CASE("request paths: index.html for directories, refusal of dot segments and control bytes") {
  CHECK(native::request_path("/") == "index.html");
  CHECK(native::request_path("/vigil.wasm") == "vigil.wasm");
  CHECK(native::request_path("/docs/") == "docs/index.html");
  CHECK(native::request_path("//a//b.css") == "a/b.css");
  CHECK(native::request_path("/a%2e%2e/b") == "a%2e%2e/b");  // not decoded a second time
  for (const char* bad : {"", "index.html", "/..", "/../etc/passwd", "/a/../../b", "/./index.html",
                          "/.git/config", "/a/.hidden", "/a\001b", "/a\x7f"}) {
    CAPTURE(bad);
    CHECK_FALSE(native::request_path(bad).has_value());
  }
  CHECK_FALSE(native::request_path(std::string_view("/a\0b", 4)).has_value());
}

TEST_CASE(
    "a folder's address with its final slash, only for bytes a Location carries as they are") {
  CHECK(native::folder_location("docs") == "/docs/");
  CHECK(native::folder_location("docs/embedding") == "/docs/embedding/");
  CHECK(native::folder_location("a-b_c.d~e/F9") == "/a-b_c.d~e/F9/");
  for (const char* unsafe : {"", "a b", "a%20b", "a?b", "a#b", "caf\xc3\xa9", "a\\b", "a\"b"}) {
    CAPTURE(unsafe);
    CHECK_FALSE(native::folder_location(unsafe).has_value());
  }
}

TEST_CASE("types by extension, and which of them vary with Accept-Encoding") {
  CHECK(native::mime_type("vigil.wasm") == "application/wasm");
  CHECK(native::mime_type("explainer.mjs") == "text/javascript; charset=utf-8");
  CHECK(native::mime_type("vigil.js") == "text/javascript; charset=utf-8");
  CHECK(native::mime_type("a/INDEX.HTML") == "text/html; charset=utf-8");
  CHECK(native::mime_type("explainer-data.json") == "application/json");
  CHECK(native::mime_type("x.css") == "text/css; charset=utf-8");
  CHECK(native::mime_type("x.png") == "image/png");
  CHECK(native::mime_type("x.svg") == "image/svg+xml");
  CHECK(native::mime_type("traces/lan.csv") == "text/csv; charset=utf-8");
  for (const char* unpublished : {"x", "x.sh", "x.wasm.br", "x.html.gz", ".wasm", "a.d/x"}) {
    CAPTURE(unpublished);
    CHECK_FALSE(native::mime_type(unpublished).has_value());
  }
  CHECK(native::compressible("vigil.wasm"));
  CHECK(native::compressible("x.svg"));
  CHECK_FALSE(native::compressible("x.png"));
  CHECK_FALSE(native::compressible("x.woff2"));
}

TEST_CASE("entity tags: strong, quoted, distinct per variant and per version") {
  const FileStamp a{1234, 1'700'000'000'123'456'789};
  const std::string identity = native::entity_tag(a, ContentCoding::identity);
  CHECK(identity.front() == '"');
  CHECK(identity.back() == '"');
  CHECK(identity.substr(0, 3) != "W/\"");
  CHECK(identity != native::entity_tag(a, ContentCoding::gzip));
  CHECK(identity != native::entity_tag(a, ContentCoding::br));
  CHECK(native::entity_tag(a, ContentCoding::gzip) != native::entity_tag(a, ContentCoding::br));
  CHECK(identity != native::entity_tag(FileStamp{1234, a.mtime_ns + 1}, ContentCoding::identity));
  CHECK(identity != native::entity_tag(FileStamp{1235, a.mtime_ns}, ContentCoding::identity));
  CHECK(identity == native::entity_tag(FileStamp{1234, a.mtime_ns}, ContentCoding::identity));
}

TEST_CASE("If-None-Match compares weakly, lists and *; If-Modified-Since needs a valid date") {
  const std::string tag = "\"4d2-abc-br\"";
  CHECK(native::none_match(tag, tag));
  CHECK(native::none_match("W/\"4d2-abc-br\"", tag));
  CHECK(native::none_match("\"x\", " + tag + " , \"y\"", tag));
  CHECK(native::none_match(" * ", tag));
  CHECK_FALSE(native::none_match("\"4d2-abc\"", tag));
  CHECK_FALSE(native::none_match("\"4d2-abc-gzip\", \"other\"", tag));
  CHECK_FALSE(native::none_match("4d2-abc-br", tag));  // unquoted: not the same tag

  CHECK(native::not_modified_since("Sun, 06 Nov 1994 08:49:37 GMT", 784111777));
  CHECK(native::not_modified_since("Sun, 06 Nov 1994 08:49:38 GMT", 784111777));
  CHECK_FALSE(native::not_modified_since("Sun, 06 Nov 1994 08:49:36 GMT", 784111777));
  CHECK_FALSE(native::not_modified_since("not a date", 784111777));
}

TEST_CASE("a sibling older than its source is stale") {
  CHECK(native::sibling_fresh(FileStamp{10, 100}, FileStamp{5, 100}));
  CHECK(native::sibling_fresh(FileStamp{10, 100}, FileStamp{5, 101}));
  CHECK_FALSE(native::sibling_fresh(FileStamp{10, 101}, FileStamp{5, 100}));
  CHECK(FileStamp{0, 1'999'999'999}.mtime_seconds() == 1);
  CHECK(FileStamp{0, -1}.mtime_seconds() == -1);
}

// ----------------------------------------------------------------- against a real directory

namespace {

struct WebDir {
  std::filesystem::path dir;
  WebDir() {
    char templ[] = "/tmp/vigil-static-XXXXXX";
    dir = ::mkdtemp(templ);
  }
  ~WebDir() { std::filesystem::remove_all(dir); }
  void write(const std::string& name, const std::string& content,
             std::int64_t mtime_seconds) const {
    std::ofstream(dir / name, std::ios::binary) << content;
    const timespec times[2] = {{mtime_seconds, 0}, {mtime_seconds, 0}};
    REQUIRE(::utimensat(AT_FDCWD, (dir / name).c_str(), times, 0) == 0);
  }
};

std::string header_of(const StaticReply& r, const std::string& name) {
  for (const auto& [n, v] : r.headers)
    if (n == name) return v;
  return "";
}

StaticRequest get(std::string_view uri, std::string_view accept = "") {
  StaticRequest r;
  r.uri = uri;
  r.accept_encoding = accept;
  return r;
}

}  // namespace

TEST_CASE("StaticFiles picks the variant, follows it with the ETag and answers 304") {
  WebDir web;
  web.write("index.html", "<p>source</p>", 1'000'000);
  web.write("index.html.br", "BR", 1'000'010);
  web.write("index.html.gz", "GZIP", 1'000'010);
  web.write("logo.png", "PNG", 1'000'000);
  const auto files = StaticFiles::open(web.dir.string());
  REQUIRE(files.ok());
  const std::int64_t now = 2'000'000;

  const StaticReply br = files->answer(get("/", "gzip, br"), now);
  CHECK(br.status == 200);
  CHECK(header_of(br, "content-encoding") == "br");
  CHECK(br.length == 2);
  CHECK(static_cast<bool>(br.file));
  CHECK(header_of(br, "vary") == "Accept-Encoding");
  CHECK(header_of(br, "cache-control") == "no-cache");
  CHECK(header_of(br, "last-modified") == native::format_http_date(1'000'000));
  CHECK(br.content_type == "text/html; charset=utf-8");

  const StaticReply gz = files->answer(get("/index.html", "gzip"), now);
  CHECK(header_of(gz, "content-encoding") == "gzip");
  CHECK(gz.length == 4);
  const StaticReply plain = files->answer(get("/index.html"), now);
  CHECK(header_of(plain, "content-encoding").empty());
  CHECK(plain.length == 13);
  CHECK(header_of(plain, "vary") == "Accept-Encoding");
  CHECK(header_of(br, "etag") != header_of(gz, "etag"));
  CHECK(header_of(gz, "etag") != header_of(plain, "etag"));

  // Revalidation: the variant's own tag matches, another variant's does not.
  StaticRequest again = get("/index.html", "br");
  const std::string br_tag = header_of(br, "etag");
  again.if_none_match = br_tag;
  const StaticReply not_modified = files->answer(again, now);
  CHECK(not_modified.status == 304);
  CHECK_FALSE(static_cast<bool>(not_modified.file));
  CHECK(header_of(not_modified, "etag") == br_tag);
  CHECK(header_of(not_modified, "vary") == "Accept-Encoding");
  again.accept_encoding = "gzip";
  CHECK(files->answer(again, now).status == 200);
  // If-Modified-Since only without If-None-Match.
  StaticRequest dated = get("/index.html");
  const std::string last_modified = header_of(plain, "last-modified");
  dated.if_modified_since = last_modified;
  CHECK(files->answer(dated, now).status == 304);
  dated.if_none_match = "\"something-else\"";
  CHECK(files->answer(dated, now).status == 200);
  dated.if_none_match = "";
  const std::string before = native::format_http_date(999'999);
  dated.if_modified_since = before;
  CHECK(files->answer(dated, now).status == 200);

  // HEAD: the same length, no file.
  StaticRequest head = get("/index.html", "br");
  head.method = StaticRequest::Method::head;
  const StaticReply head_reply = files->answer(head, now);
  CHECK(head_reply.status == 200);
  CHECK(head_reply.length == 2);
  CHECK_FALSE(static_cast<bool>(head_reply.file));

  // Not compressible: no Vary, no sibling looked for.
  const StaticReply png = files->answer(get("/logo.png", "br, gzip"), now);
  CHECK(png.status == 200);
  CHECK(header_of(png, "vary").empty());
  CHECK(header_of(png, "content-encoding").empty());
}

TEST_CASE("StaticFiles redirects a folder named without its slash only when it has a page") {
  WebDir web;
  web.write("index.html", "app", 1'000'000);
  std::filesystem::create_directories(web.dir / "docs" / "tuning");
  std::filesystem::create_directories(web.dir / "empty");
  web.write("docs/index.html", "site", 1'000'000);
  web.write("docs/tuning/index.html", "page", 1'000'000);
  WebDir outside;
  outside.write("index.html", "elsewhere", 1'000'000);
  std::filesystem::create_symlink(outside.dir, web.dir / "away");
  const auto files = StaticFiles::open(web.dir.string());
  REQUIRE(files.ok());

  for (const auto& [uri, location] :
       {std::pair{"/docs", "/docs/"}, std::pair{"/docs/tuning", "/docs/tuning/"},
        std::pair{"//docs//tuning", "/docs/tuning/"}}) {
    CAPTURE(uri);
    const StaticReply moved = files->answer(get(uri), 2'000'000);
    CHECK(moved.status == 301);
    CHECK(header_of(moved, "location") == location);
    CHECK(header_of(moved, "cache-control") == "no-cache");
    CHECK_FALSE(static_cast<bool>(moved.file));
    CHECK_FALSE(moved.refused);
  }
  const StaticReply page = files->answer(get("/docs/"), 2'000'000);
  CHECK(page.status == 200);
  CHECK(page.length == 4);

  // No page in it, not a folder, or a folder reached through a link out of the web directory.
  for (const char* uri : {"/empty", "/missing", "/away", "/docs/tuning/index"}) {
    CAPTURE(uri);
    const StaticReply r = files->answer(get(uri), 0);
    CHECK(r.status == 404);
    CHECK(header_of(r, "location").empty());
  }
}

TEST_CASE("StaticFiles never sends a sibling older than its source") {
  WebDir web;
  web.write("index.html", "<p>new</p>", 1'000'100);
  web.write("index.html.gz", "OLD", 1'000'000);  // written before the source changed
  web.write("index.html.br", "NEWBR", 1'000'200);
  const auto files = StaticFiles::open(web.dir.string());
  REQUIRE(files.ok());
  const StaticReply gz = files->answer(get("/index.html", "gzip"), 0);
  CHECK(header_of(gz, "content-encoding").empty());
  CHECK(gz.length == 10);
  CHECK(header_of(gz, "etag") == header_of(files->answer(get("/index.html"), 0), "etag"));
  CHECK(header_of(files->answer(get("/index.html", "br, gzip"), 0), "content-encoding") == "br");
}

TEST_CASE("StaticFiles refuses paths out of the web directory, other methods, and hides the rest") {
  WebDir web;
  web.write("index.html", "x", 1'000'000);
  WebDir outside;
  outside.write("secret.html", "secret", 1'000'000);
  std::filesystem::create_symlink(outside.dir / "secret.html", web.dir / "leak.html");
  std::filesystem::create_symlink(web.dir / "index.html", web.dir / "alias.html");
  std::filesystem::create_symlink(outside.dir, web.dir / "sub");
  const auto files = StaticFiles::open(web.dir.string());
  REQUIRE(files.ok());

  auto status = [&](std::string_view uri) { return files->answer(get(uri), 0); };
  CHECK(status("/leak.html").status == 403);
  CHECK(status("/leak.html").refused);
  CHECK(status("/sub/secret.html").status == 403);
  CHECK(status("/../secret.html").status == 403);
  CHECK(status("/alias.html").status == 200);  // a link that stays inside is fine
  CHECK(status("/missing.html").status == 404);
  CHECK_FALSE(status("/missing.html").refused);
  CHECK(status("/unknown.type").status == 404);
  const StaticReply error = status("/missing.html");
  CHECK(header_of(error, "cache-control") == "no-store");
  CHECK_FALSE(static_cast<bool>(error.file));

  StaticRequest post = get("/index.html");
  post.method = StaticRequest::Method::other;
  const StaticReply refused = files->answer(post, 0);
  CHECK(refused.status == 405);
  CHECK(refused.refused);
  CHECK(header_of(refused, "allow") == "GET, HEAD");

  CHECK_FALSE(StaticFiles::open((web.dir / "index.html").string()).ok());
  CHECK_FALSE(StaticFiles::open((web.dir / "nope").string()).ok());
}
