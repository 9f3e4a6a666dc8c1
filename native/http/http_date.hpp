#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vigil::native {

// HTTP dates (RFC 9110, section 5.6.7), as seconds since the Unix epoch (UTC).

// The preferred form, IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
std::string format_http_date(std::int64_t unix_seconds);

// Any of the three forms a recipient must accept: IMF-fixdate, the obsolete RFC 850 form
// ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime's ("Sun Nov  6 08:49:37 1994"). Nothing for
// anything else, including impossible dates such as 31 Feb.
std::optional<std::int64_t> parse_http_date(std::string_view text);

}  // namespace vigil::native
