#include "agent/serf_tags.hpp"

#include <algorithm>

namespace vigil::native {

wire::Bytes encode_tags(const Tags& tags) {
  wire::Bytes out{kTagMagicByte};
  wire::msgpack::Writer w(out);
  w.write_map_header(static_cast<std::uint32_t>(tags.size()));
  for (const auto& [key, value] : tags) {
    w.write_string(key);
    w.write_string(value);
  }
  return out;
}

Tags decode_tags(std::span<const std::uint8_t> meta) {
  if (meta.empty() || meta[0] != kTagMagicByte) return {};
  wire::msgpack::Reader r(meta.subspan(1));
  auto entries = r.read_map_header();
  if (!entries) return {};
  Tags tags;
  for (std::uint32_t i = 0; i < *entries; ++i) {
    auto key = r.read_string();
    if (!key) return {};
    auto value = r.read_string();
    if (!value) return {};
    tags[*key] = *value;
  }
  return tags;
}

namespace {

bool wildcard_host(std::string_view host) {
  return host.empty() || host == "0.0.0.0" || host == "::" || host == "[::]";
}

}  // namespace

std::string advertised_view_url(const std::string& http_url, const swim::Address& bind) {
  const std::size_t scheme_end = http_url.find("://");
  if (scheme_end == std::string::npos) return http_url;
  const std::string scheme = http_url.substr(0, scheme_end);
  std::string authority = http_url.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find('/'));
  const std::size_t colon = authority.rfind(':');
  if (colon == std::string::npos) return scheme + "://" + authority;
  const std::string host = authority.substr(0, colon);
  const std::string port = authority.substr(colon + 1);
  if (!wildcard_host(host)) return scheme + "://" + authority;
  const std::string bound = bind.to_string();  // "a.b.c.d:port"
  return scheme + "://" + bound.substr(0, bound.rfind(':')) + ":" + port;
}

Status check_view_url(const std::string& url) {
  const bool http = url.rfind("http://", 0) == 0, https = url.rfind("https://", 0) == 0;
  if (!http && !https) return Error{"'" + url + "' must start with http:// or https://"};
  const std::size_t host_at = http ? 7 : 8;
  if (url.size() <= host_at || url[host_at] == '/' || url[host_at] == ':')
    return Error{"'" + url + "' has no host"};
  const auto bad = [](char c) {
    return c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '\\' || c == 127;
  };
  if (std::any_of(url.begin(), url.end(), bad))
    return Error{"'" + url + "' holds spaces, quotes or control characters"};
  if (url.size() > 256) return Error{"'" + url + "' is longer than 256 characters"};
  return ok_status();
}

Result<wire::Bytes> view_meta(const std::string& view_url) {
  wire::Bytes meta = encode_tags({{std::string(kViewTag), view_url}});
  if (meta.size() > kMaxMetaBytes)
    return Error{"the live view's URL makes the node metadata " + std::to_string(meta.size()) +
                 " bytes, over memberlist's " + std::to_string(kMaxMetaBytes)};
  return meta;
}

}  // namespace vigil::native
