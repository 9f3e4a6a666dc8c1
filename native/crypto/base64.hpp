#pragma once

#include <span>
#include <string>
#include <string_view>

#include <vigil/base/result.hpp>
#include <vigil/wire/messages.hpp>

namespace vigil::native {

// Standard base64 (RFC 4648, '+' and '/', '=' padding required), as Go's
// base64.StdEncoding that Serf uses for keys: no whitespace, no stray characters, no missing or
// misplaced padding (unused bits before the padding are ignored, as Go does).
std::string base64_encode(std::span<const std::uint8_t> bytes);
Result<wire::Bytes> base64_decode(std::string_view text);

}  // namespace vigil::native
