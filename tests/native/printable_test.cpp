#include <doctest/doctest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "cli/printable.hpp"

using vigil::cli::json_text;
using vigil::cli::printable;

namespace {

// Whether `s` is well-formed UTF-8, judged by nlohmann's strict dump rather than by printable's
// own decoder.
bool valid_utf8(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

}  // namespace

TEST_CASE("printable: ordinary names pass unchanged, letters of any script included") {
  for (const char* name : {"node-1", "agent_0.example", "a b (c) [d] #1", "nœud-é", "节点-3",
                           "κόμβος", "\xF0\x9F\x98\x80 4-byte"}) {
    CAPTURE(name);
    CHECK(printable(name) == name);
  }
  CHECK(printable("") == "");
}

TEST_CASE("printable: a forged event line and an ANSI escape are shown, not obeyed") {
  const std::string forged = "x\n[la] 9.999s dead lb #1 (by la)\x1b[31m";
  const std::string shown = printable(forged);
  CHECK(shown == "x\\n[la] 9.999s dead lb #1 (by la)\\x1b[31m");
  CHECK(shown.find('\n') == std::string::npos);
  CHECK(shown.find('\x1b') == std::string::npos);
}

TEST_CASE("printable: C0, DEL and backslash") {
  CHECK(printable("a\rb\tc") == "a\\rb\\tc");
  CHECK(printable(std::string("nul\0here", 8)) == "nul\\x00here");
  CHECK(printable("\x01\x07\x08\x1f") == "\\x01\\x07\\x08\\x1f");
  CHECK(printable("del\x7f") == "del\\x7f");
  // A backslash is doubled, so that an escape in the output always stands for one in the input:
  // a name holding a backslash and an n is not shown as a newline was.
  CHECK(printable("a\\nb") == "a\\\\nb");
  CHECK(printable("a\\nb") != printable("a\nb"));
}

TEST_CASE("printable: C1 controls and format characters that reorder text") {
  CHECK(printable("\xC2\x9B"
                  "31m") == "\\u009b31m");    // CSI, the one-character form of ESC [
  CHECK(printable("\xC2\x85") == "\\u0085");  // NEL
  CHECK(printable("\xC2\x80 \xC2\x9F") == "\\u0080 \\u009f");
  CHECK(printable("\xC2\xA0") == "\xC2\xA0");  // no-break space: shown as it is
  CHECK(printable("abc\xE2\x80\xAE"
                  "fed") == "abc\\u202efed");                        // right-to-left override
  CHECK(printable("\xE2\x80\xA8") == "\\u2028");                     // line separator
  CHECK(printable("\xE2\x81\xA6\xE2\x81\xA9") == "\\u2066\\u2069");  // isolates
  CHECK(printable("\xE2\x80\x8F\xD8\x9C") == "\\u200f\\u061c");
}

TEST_CASE("printable: bytes that are not UTF-8, one escape each") {
  CHECK(printable("x\xFF") == "x\\xff");
  CHECK(printable("\x80") == "\\x80");                                  // a continuation byte alone
  CHECK(printable("\xC0\xAF") == "\\xc0\\xaf");                         // overlong '/'
  CHECK(printable("\xE0\x80\xAF") == "\\xe0\\x80\\xaf");                // overlong, 3 bytes
  CHECK(printable("\xED\xA0\x80") == "\\xed\\xa0\\x80");                // a surrogate
  CHECK(printable("\xF4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");       // above U+10FFFF
  CHECK(printable("\xE2\x82") == "\\xe2\\x82");                         // cut short at the end
  CHECK(printable("\xE2\x82x") == "\\xe2\\x82x");                       // cut short before ASCII
  CHECK(printable("\xC3\xA9\xFF\xC3\xA9") == "\xC3\xA9\\xff\xC3\xA9");  // resynchronises
}

TEST_CASE("printable: whatever the bytes, the output is UTF-8 without a control character") {
  std::mt19937 rng(20240611);
  for (int round = 0; round < 2000; ++round) {
    std::string input(rng() % 40, '\0');
    for (char& c : input) c = static_cast<char>(rng() & 0xFF);
    const std::string out = printable(input);
    CAPTURE(input);
    CHECK(valid_utf8(out));
    bool control = false;
    for (unsigned char c : out) control = control || c < 0x20 || c == 0x7F;
    CHECK_FALSE(control);
    CHECK(out.find("\xC2\x80") == std::string::npos);
  }
}

TEST_CASE("json_text: bytes that are not UTF-8 become U+FFFD instead of throwing") {
  const nlohmann::json j = {{"name", std::string("x\xFF\n")}};
  CHECK_THROWS_AS((void)j.dump(), nlohmann::json::type_error);
  std::string text;
  CHECK_NOTHROW(text = json_text(j));
  CHECK(text == "{\"name\":\"x\xEF\xBF\xBD\\n\"}");
  CHECK(nlohmann::json::parse(text)["name"] == "x\xEF\xBF\xBD\n");
  CHECK(json_text(nlohmann::json::array({1, 2}), 2) == "[\n  1,\n  2\n]");
}
