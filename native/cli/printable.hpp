#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace vigil::cli {

// Text a peer chose (member names, tags, labels, failure reasons, anything a server sent) made
// safe for a terminal or a log line. memberlist takes any bytes as a name, so a stranger's alive
// message can carry a newline (a forged event line after it), an ANSI escape (colours, cursor
// moves, a rewritten title bar) or bytes that are not UTF-8. Those come out visibly escaped:
//   backslash        \\    (so that an escape in the output always means one in the input)
//   \n \r \t         \n \r \t
//   other C0, DEL    \xHH
//   C1 (U+0080-9F)   \uHHHH, as are the bidirectional and line/paragraph separator format
//                    characters (U+061C, U+200E-200F, U+2028-202E, U+2066-2069), which
//                    reorder or break what a terminal or log viewer shows
//   invalid UTF-8    \xHH for each byte that does not start a well-formed sequence
// Everything else, non-ASCII letters included, is written as it is.
std::string printable(std::string_view text);

// A JSON document as text that never throws: nlohmann's dump() escapes control characters
// itself but throws on bytes that are not UTF-8, which a peer's name may hold; here they become
// U+FFFD. For every JSON answer and message built from what peers sent.
std::string json_text(const nlohmann::json& document, int indent = -1);

}  // namespace vigil::cli
