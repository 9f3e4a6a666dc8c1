#!/usr/bin/env bash
# The whole test suite: builds everything (installing what is missing), runs the unit, CLI and
# browser tests through CTest, then the unit and CLI tests again under ASan + UBSan.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)

"$here/scripts/setup.sh"
echo "[test] formatting (.clang-format; scripts/format.sh fixes drift)" >&2
"$here/scripts/format.sh" --check

"$here/scripts/build.sh"

echo "[test] native + browser tests" >&2
ctest --test-dir "$here/build" --output-on-failure -j"$jobs"

echo "[test] unit and CLI tests under AddressSanitizer + UndefinedBehaviorSanitizer" >&2
# -O1 with line tables only: the sanitizers' reports keep file:line, and the build takes about a
# third less time than RelWithDebInfo's -O2 -g.
cmake -S "$here" -B "$here/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" -DVIGIL_SANITIZE=ON >/dev/null
cmake --build "$here/build-asan" -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$here/build-asan" --output-on-failure -j"$jobs"

echo "[test] fuzz targets, 60 s each (scripts/fuzz.sh; longer runs: see the README's Fuzzing)" >&2
"$here/scripts/fuzz.sh" --time 60
