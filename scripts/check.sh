#!/usr/bin/env bash
# The fast inner loop: builds the native code in build-check/ and runs the core's unit tests, the
# agent's unit tests and the command-line tests, then checks the formatting. No root, no
# Emscripten, no browser, no agents on the network: a couple of minutes on two cores, less with
# ccache. The whole suite (browsers, agents, sanitizers, fuzzing) is scripts/test.sh.
#   scripts/check.sh [--jobs N]
# Needs what scripts/setup.sh installs for the native build (cmake, g++, libwebsockets, OpenSSL,
# nlohmann-json, doctest) and clang-format 14.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$here/scripts/lib/compiler_cache.sh"
jobs=$(nproc 2>/dev/null || echo 2)
build="${VIGIL_CHECK_BUILD:-$here/build-check}"

while (($#)); do
  case $1 in
    --jobs)
      [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || {
        echo "[check] --jobs needs a positive whole number, got '${2-}'" >&2
        exit 2
      }
      jobs=$2
      shift 2
      ;;
    -h | --help)
      sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "[check] unknown argument '$1' (usage: scripts/check.sh [--jobs N])" >&2
      exit 2
      ;;
  esac
done

echo "[check] build: $build" >&2
mkdir -p "$build"
if ! (cd "$here" && cmake --preset check -B "$build") >"$build/configure.log" 2>&1; then
  cat "$build/configure.log" >&2
  echo "[check] configuring failed: is a dependency missing? scripts/setup.sh installs them (as root)" >&2
  exit 1
fi
cmake --build "$build" -j"$jobs" --target vigil vigil_core_tests vigil_unit_tests

echo "[check] unit and command-line tests" >&2
ctest --test-dir "$build" --output-on-failure -j"$jobs" -R '^(unit|cli|layering)\.'

echo "[check] formatting" >&2
"$here/scripts/format.sh" --check
