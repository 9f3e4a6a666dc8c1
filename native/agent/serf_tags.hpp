#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include <vigil/base/result.hpp>
#include <vigil/swim/address.hpp>
#include <vigil/wire/msgpack.hpp>

namespace vigil::native {

// A member's tags as Serf keeps them in memberlist's node metadata: one magic byte, 0xFF, then a
// MessagePack map of string to string. Encoding vigil's own metadata the same way lets `serf
// members` show it as tags, and lets vigil show the tags of Serf (and Consul) members.
using Tags = std::map<std::string, std::string>;

inline constexpr std::uint8_t kTagMagicByte = 0xFF;
// memberlist refuses node metadata longer than this (MetaMaxSize).
inline constexpr std::size_t kMaxMetaBytes = 512;
// The tag under which a vigil agent advertises the URL of its live view.
inline constexpr std::string_view kViewTag = "vigil-view";

wire::Bytes encode_tags(const Tags& tags);
// Tags from a member's metadata. Empty metadata, metadata without the magic byte (older Serf
// wrote a bare role there) and anything that does not decode all read as no tags: another
// member's metadata is never trusted to be well formed.
Tags decode_tags(std::span<const std::uint8_t> meta);

// The URL other machines reach this agent's live view at: the HTTP host's own URL (its scheme
// and port), with a wildcard host (0.0.0.0, ::) replaced by the protocol's bind address. No
// trailing slash.
std::string advertised_view_url(const std::string& http_url, const swim::Address& bind);
// What --advertise-http accepts: http:// or https://, a host, no spaces or quotes, and short
// enough to leave room in the metadata.
Status check_view_url(const std::string& url);
// This agent's metadata: its live view's URL as a tag, within memberlist's 512 bytes.
Result<wire::Bytes> view_meta(const std::string& view_url);

}  // namespace vigil::native
