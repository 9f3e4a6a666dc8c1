# Sourced by the build scripts after they set $here. ccache (installed by scripts/setup.sh) keeps
# compiled objects in its own directory (~/.cache/ccache), outside the checkout, so a second run
# of the test command, or a build of another clone on the same machine, compiles only what
# changed. Paths are taken relative to the checkout and the build folder is not hashed, so two
# clones share their entries. CMake reads the launcher when it first configures a build folder.
if command -v ccache >/dev/null && [[ -z ${CMAKE_CXX_COMPILER_LAUNCHER-} ]]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR="$here" CCACHE_NOHASHDIR=1
fi
