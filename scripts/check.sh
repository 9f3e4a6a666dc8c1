#!/usr/bin/env bash
# The fast inner loop: builds the native code in build-check/ and runs the core's unit tests, the
# agent's unit tests and the command-line tests, then checks the formatting, lints the JavaScript
# (ESLint, eslint.config.mjs) and runs clang-tidy (.clang-tidy) on the C++ files changed since the
# branch left main (or, without a main branch, since the last commit). No root, no Emscripten, no
# browser, no agents on the network: a couple of minutes on two cores, less with ccache. The
# whole suite (browsers, agents, sanitizers, fuzzing) is scripts/test.sh.
#   scripts/check.sh [--jobs N] [--all]     --all: clang-tidy on every C++ file, not the changed
# Needs what scripts/setup.sh installs: the native build's packages (cmake, g++, libwebsockets,
# OpenSSL, nlohmann-json, doctest), clang-format 14, clang-tidy 14 and tests/node_modules.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$here/scripts/lib/compiler_cache.sh"
jobs=$(nproc 2>/dev/null || echo 2)
tidy_all=0
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
    --all)
      tidy_all=1
      shift
      ;;
    -h | --help)
      sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "[check] unknown argument '$1' (usage: scripts/check.sh [--jobs N] [--all])" >&2
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

echo "[check] every public declaration of the installed headers documented" >&2
python3 "$here/scripts/check_api_docs.py" --root "$here" --baseline "$here/scripts/api_docs_baseline.json"

echo "[check] JavaScript (ESLint)" >&2
eslint="$here/tests/node_modules/.bin/eslint"
[[ -x $eslint ]] || {
  echo "[check] $eslint is missing: scripts/setup.sh installs it (npm ci in tests/)" >&2
  exit 1
}
(cd "$here" && "$eslint" --max-warnings 0 'assets/*.js' 'assets/*.mjs' 'scripts/*.mjs' 'tests/**/*.mjs')

echo "[check] C++ static analysis (clang-tidy)" >&2
command -v clang-tidy >/dev/null || {
  echo "[check] clang-tidy is missing: scripts/setup.sh installs it (as root)" >&2
  exit 1
}
# Our sources in the compile commands (not Dear ImGui's, not files the build generates).
mapfile -t sources < <(node -e 'for (const c of require(process.argv[1])) console.log(c.file)' \
  "$build/compile_commands.json" | grep -F "$here/" | grep -v -e "$here/build" -e /third_party/ | sort -u)
if ((tidy_all)); then
  tidy_files=("${sources[@]}")
else
  # Changed since the branch left main; a changed header brings in the sources that include it.
  base=$(cd "$here" && git merge-base HEAD main 2>/dev/null || git rev-parse HEAD~1 2>/dev/null || true)
  # (git diff against a commit compares it with the work tree: uncommitted edits count too.)
  mapfile -t changed < <(cd "$here" && git diff --name-only "${base:-HEAD}" -- | grep -E '\.(cpp|hpp|h)$' || true)
  tidy_files=()
  for f in "${changed[@]}"; do
    [[ -f $here/$f ]] || continue
    case $f in
      *.cpp) printf '%s\n' "${sources[@]}" | grep -qxF "$here/$f" && tidy_files+=("$here/$f") ;;
      *) mapfile -t -O "${#tidy_files[@]}" tidy_files < <(grep -lF "$(basename "$f")" "${sources[@]}" || true) ;;
    esac
  done
  mapfile -t tidy_files < <(printf '%s\n' "${tidy_files[@]}" | grep . | sort -u)
fi
echo "[check] clang-tidy on ${#tidy_files[@]} of ${#sources[@]} files" >&2
if ((${#tidy_files[@]})); then
  printf '%s\n' "${tidy_files[@]}" |
    xargs -P "$jobs" -n 4 clang-tidy -p "$build" --quiet >"$build/clang-tidy.log" 2>&1 || {
    grep -E 'error:|warning:' -A3 "$build/clang-tidy.log" >&2 || cat "$build/clang-tidy.log" >&2
    echo "[check] clang-tidy found problems (above; all of it in $build/clang-tidy.log)" >&2
    exit 1
  }
fi
echo "[check] all passed" >&2
