# How the optimised web build (Release, MinSizeRel) is kept small without slowing the simulation.
# Included by web/CMakeLists.txt once the targets exist. Each choice was measured with Emscripten
# 3.1.6: bytes of vigil.wasm and vigil.js (raw, gzip -9, brotli -q 11), and the SWIM bench of
# tests/bench built the same way and run under Node, in paired runs against the -O3 build.
# - The UI and Dear ImGui at -Oz: they draw one frame at a time; about 14 % less wasm.
# - Linking at -Oz (Binaryen shrinks the whole module): about 8 % less again, but on its own it
#   slowed the simulation by 5-15 %. With link-time optimisation of the whole app, core included,
#   the simulation runs as fast as the -O3 build: the core is still compiled at -O3 (its functions
#   carry no size attribute, so LLVM optimises them for speed) and LTO inlines across its files.
# - No RTTI in the UI (nothing casts dynamically): about 3 KB.
# Tried and left out: emmalloc (3 KB less gzip, but the simulation, which allocates per datagram,
# ran about a tenth slower) and Closure on vigil.js (Debian's closure-compiler is the 2013 release;
# the 2022 one from npm takes vigil.js from 24.5 to 14.8 KB gzipped, for a Java or native tool in
# the build). -sASSERTIONS=0, -sSUPPORT_LONGJMP=0 and -g0 are already what Release does: setting
# them changes no byte.
set(vigil_web_small "$<CONFIG:Release,MinSizeRel>")
target_compile_options(imgui PRIVATE "$<${vigil_web_small}:-Oz;-flto;-fno-rtti>")
foreach(web_library IN LISTS VIGIL_WEB_LIBRARIES ITEMS vigil_web)
  target_compile_options(${web_library} PRIVATE "$<${vigil_web_small}:-Oz;-flto;-fno-rtti>")
endforeach()
foreach(core_library IN LISTS VIGIL_CORE_LIBRARIES)
  target_compile_options(${core_library} PRIVATE "$<${vigil_web_small}:-flto>")
endforeach()
target_link_options(vigil_web PRIVATE "$<${vigil_web_small}:-Oz;-flto>")
# The font is compiled in (ui_font.cmake) and nothing else reads files: no virtual file system,
# about 50 KB less JavaScript.
target_link_options(vigil_web PRIVATE -sFILESYSTEM=0)
