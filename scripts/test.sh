#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds everything, runs the unit, CLI, agent and
# browser tests through CTest, the unit, CLI and agent tests again under AddressSanitizer +
# UndefinedBehaviorSanitizer, and the fuzz targets for 60 s each.
#
# Two kinds of work share the machine. The tests of real agents (CTest label `agent`) wait on the
# protocol's timers and check them, so they must get a core the moment they want one. Everything
# else only needs CPU time: the browser and unit tests, the sanitizer and fuzzer builds, the
# fuzzers. That work runs meanwhile at the idle scheduling class (SCHED_IDLE), which the kernel
# gives only the CPU time the agents leave, so the two kinds overlap without the agents ever
# waiting. Where the idle class is not available, or with VIGIL_TEST_SERIAL=1, the same steps run
# one after the other. Logs of the background steps: build/test-logs/.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$here/scripts/lib/compiler_cache.sh"
jobs=$(nproc 2>/dev/null || echo 2)
logs="$here/build/test-logs"

"$here/scripts/setup.sh"
echo "[test] formatting (.clang-format; scripts/format.sh fixes drift)" >&2
"$here/scripts/format.sh" --check
echo "[test] JavaScript lint (eslint.config.mjs)" >&2
(cd "$here" && tests/node_modules/.bin/eslint --max-warnings 0 'assets/*.js' 'assets/*.mjs' 'scripts/*.mjs' 'tests/**/*.mjs')

"$here/scripts/build.sh"
rm -rf "$logs" && mkdir -p "$logs"
started=$SECONDS
say() { printf '[test] %4d s  %s\n' $((SECONDS - started)) "$*" >&2; }

# -O1 with line tables only: the sanitizers' reports keep file:line, and the build takes about a
# third less time than RelWithDebInfo's -O2 -g.
(cd "$here" && cmake --preset asan >/dev/null)  # CMakePresets.json
sanitizers=(env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)

if [[ ${VIGIL_TEST_SERIAL:-0} != 1 ]] && chrt --idle 0 true 2>/dev/null; then
  idle=(chrt --idle 0)
else
  idle=()
fi

# Each step's exit status, by name; the suite fails at the end if any step did.
declare -A status
run_step() {  # NAME LOG COMMAND... : runs it and keeps its status; its output goes to LOG (- : here)
  local name=$1 log=$2
  shift 2
  local s=0
  if [[ $log == - ]]; then
    "$@" || s=$?
  else
    "$@" >"$log" 2>&1 || s=$?
  fi
  echo "$s" >"$logs/$name.status"
}
step_failed() { [[ $(cat "$logs/$1.status" 2>/dev/null || echo 1) != 0 ]]; }

# The sanitized unit and CLI tests only need CPU time: at the idle class, beside the browser
# tests. The sanitized agents run one test at a time and in the foreground: a sanitized agent is
# several times slower, and two clusters of them side by side can miss the protocol's own
# deadlines (a kill -9 detected past its bound) through nothing but CPU.
asan_units() {
  "${idle[@]}" "${sanitizers[@]}" ctest --test-dir "$here/build-asan" -LE agent --output-on-failure -j"$jobs"
}
asan_agents() {
  "${sanitizers[@]}" ctest --test-dir "$here/build-asan" -L agent --output-on-failure -j1
}

# The CPU-bound steps, in order: the sanitizer build (the foreground needs it next), the sanitized
# units, the browser, unit and CLI tests, then the fuzzer build and the fuzzers.
background() {
  run_step asan-build "$logs/asan-build.log" "${idle[@]}" cmake --build "$here/build-asan" -j"$jobs"
  step_failed asan-build || run_step asan-units "$logs/asan-units.log" asan_units
  run_step browser "$logs/browser.log" "${idle[@]}" \
    ctest --test-dir "$here/build" -LE agent --output-on-failure -j"$jobs"
  run_step fuzz "$logs/fuzz.log" "${idle[@]}" "$here/scripts/fuzz.sh" --time 60
}

if ((${#idle[@]})); then
  say "agent tests in the foreground; sanitizer build, browser and unit tests, fuzzers at the idle class"
  # A process group of its own (job control on while it starts), so that an interrupted run
  # stops it too: a script's background jobs ignore Ctrl-C otherwise.
  set -m
  background &
  background_pid=$!
  set +m
  trap 'kill -- -"$background_pid" 2>/dev/null || true' EXIT
  say "agent tests (native build)"
  run_step agents - ctest --test-dir "$here/build" -L agent --output-on-failure -j"$jobs"
  say "waiting for the sanitizer build"
  while [[ ! -f $logs/asan-build.status ]]; do
    kill -0 "$background_pid" 2>/dev/null || break
    sleep 2
  done
else
  say "one step at a time"
  run_step browser - ctest --test-dir "$here/build" -LE agent --output-on-failure -j"$jobs"
  run_step agents - ctest --test-dir "$here/build" -L agent --output-on-failure -j"$jobs"
  run_step asan-build "$logs/asan-build.log" cmake --build "$here/build-asan" -j"$jobs"
fi

if step_failed asan-build; then
  tail -n 60 "$logs/asan-build.log" >&2
  say "the sanitizer build failed"
else
  say "agent tests under AddressSanitizer + UndefinedBehaviorSanitizer"
  run_step asan-agents - asan_agents
  ((${#idle[@]})) || run_step asan-units - asan_units
fi

if ((${#idle[@]})); then
  say "waiting for the browser tests and the fuzzers"
  wait "$background_pid" || true
  say "unit and CLI tests under the sanitizers:"
  [[ -f $logs/asan-units.log ]] && cat "$logs/asan-units.log"
  say "browser, unit and CLI tests (native build):"
  cat "$logs/browser.log"
else
  run_step fuzz - "$here/scripts/fuzz.sh" --time 60
fi
say "fuzz targets, 60 s each (scripts/fuzz.sh; longer runs: see CONTRIBUTING.md, Fuzzing):"
[[ -f $logs/fuzz.log ]] && grep '^\[fuzz\]' "$logs/fuzz.log" >&2 || true

failed=()
for step in asan-build browser agents asan-units asan-agents fuzz; do
  step_failed "$step" && failed+=("$step")
done
if ((${#failed[@]})); then
  for step in "${failed[@]}"; do
    [[ -f $logs/$step.log ]] && { echo "--- $step (end of its log) ---" >&2; tail -n 80 "$logs/$step.log" >&2; }
  done
  say "FAILED: ${failed[*]} (logs in $logs)"
  exit 1
fi
say "all steps passed"
