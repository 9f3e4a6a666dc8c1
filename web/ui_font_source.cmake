# Writes the C++ source that compiles the UI font subset into the app: its bytes and the glyph
# ranges ImGui should rasterise (the same codepoints the subset was cut to).
# Run with -DTTF=<subset.ttf> -DRANGES=<hex codepoint or range,...> -DOUT=<file.cpp>.
file(READ "${TTF}" hex HEX)
string(LENGTH "${hex}" hex_length)
if(hex_length EQUAL 0)
  message(FATAL_ERROR "${TTF} is empty")
endif()
# 24 bytes a line, each as 0xNN.
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REPEAT "0x[0-9a-f][0-9a-f]," 24 line_of_bytes)  # CMake's regex has no {n}
string(REGEX REPLACE "(${line_of_bytes})" "\\1\n  " bytes "${bytes}")

set(ranges "")
string(REPLACE "," ";" range_list "${RANGES}")
foreach(range IN LISTS range_list)
  if(range MATCHES "^([0-9A-Fa-f]+)-([0-9A-Fa-f]+)$")
    string(APPEND ranges "0x${CMAKE_MATCH_1}, 0x${CMAKE_MATCH_2},\n  ")
  elseif(range MATCHES "^[0-9A-Fa-f]+$")
    string(APPEND ranges "0x${range}, 0x${range},\n  ")
  else()
    message(FATAL_ERROR "bad codepoint range '${range}'")
  endif()
endforeach()

get_filename_component(ttf_name "${TTF}" NAME)
file(WRITE "${OUT}.tmp" "// Generated from ${ttf_name} by web/ui_font_source.cmake; do not edit.
#include <imgui.h>

#include <cstddef>

namespace vigil::web::ui_font_data {

extern const unsigned char kTtf[] = {
  ${bytes}
};
extern const std::size_t kTtfSize = sizeof kTtf;

// Pairs of first and last codepoint, ended by 0, as ImFontConfig::GlyphRanges wants them.
extern const ImWchar kGlyphRanges[] = {
  ${ranges}0,
};

}  // namespace vigil::web::ui_font_data
")
file(RENAME "${OUT}.tmp" "${OUT}")
