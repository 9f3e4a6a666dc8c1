# The UI font: DejaVu Sans cut down at build time to the characters the panels draw, then compiled
# into the app as bytes (no virtual file system needed to read it). Included by web/CMakeLists.txt;
# sets VIGIL_UI_FONT_SOURCE to the generated C++ file that holds the font and its glyph ranges.
#
# Dear ImGui rasterises with stb_truetype, which reads only cmap, head, hhea, hmtx, loca, glyf and
# maxp: it does not hint and ignores kerning (ImGui 1.86 reads neither kern nor GPOS), so hinting
# programs, layout tables, names and PostScript glyph names are dropped. The whole font is 742 KiB;
# this subset is about 25 KiB.

set(VIGIL_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf" CACHE FILEPATH "TTF the UI font is cut from")
if(NOT EXISTS "${VIGIL_FONT}")
  message(FATAL_ERROR "font ${VIGIL_FONT} missing: install fonts-dejavu-core (scripts/setup.sh)")
endif()
find_program(VIGIL_PYFTSUBSET pyftsubset)
if(NOT VIGIL_PYFTSUBSET)
  message(FATAL_ERROR "pyftsubset not found: the web build subsets its font with Debian's fonttools "
                      "package (apt-get install fonttools, or run scripts/setup.sh)")
endif()

# What the panels draw, as hexadecimal codepoints or ranges. Codepoints the font lacks are simply
# absent from it; ImGui then draws its fallback glyph.
set(vigil_ui_font_codepoints
  0020-007E 00A0-00FF          # printable ASCII, Latin-1 (× among them)
  0370-03FF                    # Greek: φ σ μ λ Δ ...
  2013-2014 2018-2019 201C-201D 2022 2026  # – — ‘ ’ “ ” • …
  2190-2193                    # ← ↑ → ↓
  2212 221E 2248 2264-2265     # − ∞ ≈ ≤ ≥
  25A0 25B6 25CB 25CF          # ■ ▶ ○ ●
  2713 2717)                   # ✓ ✗

list(TRANSFORM vigil_ui_font_codepoints PREPEND "U+" OUTPUT_VARIABLE vigil_ui_font_unicodes)
list(JOIN vigil_ui_font_unicodes "," vigil_ui_font_unicodes)
list(JOIN vigil_ui_font_codepoints "," vigil_ui_font_ranges)

set(vigil_ui_font_ttf "${CMAKE_CURRENT_BINARY_DIR}/ui_font/DejaVuSans-subset.ttf")
set(VIGIL_UI_FONT_SOURCE "${CMAKE_CURRENT_BINARY_DIR}/ui_font/ui_font_data.cpp")

add_custom_command(
  OUTPUT "${vigil_ui_font_ttf}"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/ui_font"
  COMMAND "${VIGIL_PYFTSUBSET}" "${VIGIL_FONT}" "--unicodes=${vigil_ui_font_unicodes}"
          --no-hinting --layout-features=
          --drop-tables+=GDEF,GPOS,GSUB,kern,MATH,FFTM,gasp,name,post,OS/2
          "--output-file=${vigil_ui_font_ttf}"
  DEPENDS "${VIGIL_FONT}" "${CMAKE_CURRENT_LIST_FILE}"
  COMMENT "subsetting ${VIGIL_FONT} for the UI"
  VERBATIM)

add_custom_command(
  OUTPUT "${VIGIL_UI_FONT_SOURCE}"
  COMMAND ${CMAKE_COMMAND} "-DTTF=${vigil_ui_font_ttf}" "-DRANGES=${vigil_ui_font_ranges}"
          "-DOUT=${VIGIL_UI_FONT_SOURCE}" -P "${CMAKE_CURRENT_LIST_DIR}/ui_font_source.cmake"
  DEPENDS "${vigil_ui_font_ttf}" "${CMAKE_CURRENT_LIST_DIR}/ui_font_source.cmake"
  COMMENT "embedding the UI font subset"
  VERBATIM)
