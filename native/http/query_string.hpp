#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vigil::native {

// A request target's path: everything before the '?'.
std::string_view target_path(std::string_view target);

// The value of the first `key=...` in the target's query, percent-decoded ('+' stays '+': the
// HTTP host has already turned a form's '+' into a space before encoding the query again).
// Nothing when the key is absent; a malformed escape (not two hex digits) also yields nothing,
// so a caller can answer 400.
std::optional<std::string> query_value(std::string_view target, std::string_view key);

// Percent-encodes every byte but RFC 3986's unreserved ones (letters, digits, "-._~").
std::string percent_encode(std::string_view text);

}  // namespace vigil::native
