#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang in build-fuzz, writes their seed corpus
# from the wire codec's golden vectors, runs each target and fails if any of them finds a crash,
# a leak, a hang or an invariant violation. scripts/test.sh runs it for 60 s per target.
#
#   scripts/fuzz.sh [--time SECONDS] [--jobs N] [TARGET...]
#
# Everything it writes stays in build-fuzz/ (or $VIGIL_FUZZ_BUILD): fuzz-corpus/ (the seeds, regenerated each run),
# fuzz-work/ (what the fuzzers found interesting; kept, so that later runs start further),
# fuzz-artifacts/ (crash reproducers: build-fuzz/bin/TARGET FILE replays one) and fuzz-logs/.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$here/scripts/lib/compiler_cache.sh"
build="${VIGIL_FUZZ_BUILD:-$here/build-fuzz}"  # another directory: to keep runs apart
all_targets=(fuzz_datagram fuzz_ws_command fuzz_engine)

usage() {
  echo "usage: scripts/fuzz.sh [--time SECONDS] [--jobs N] [TARGET...]   (targets: ${all_targets[*]})" >&2
  exit 2
}

seconds=60
jobs=1
targets=()
while (($#)); do
  case $1 in
    --time | --jobs)
      [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || {
        echo "[fuzz] $1 needs a positive whole number, got '${2-}'" >&2
        usage
      }
      [[ $1 == --time ]] && seconds=$2 || jobs=$2
      shift 2
      ;;
    -h | --help) usage ;;
    fuzz_*)
      [[ " ${all_targets[*]} " == *" $1 "* ]] || {
        echo "[fuzz] unknown target '$1'" >&2
        usage
      }
      targets+=("$1")
      shift
      ;;
    *)
      echo "[fuzz] unknown argument '$1'" >&2
      usage
      ;;
  esac
done
((${#targets[@]})) || targets=("${all_targets[@]}")

command -v clang++ >/dev/null || {
  echo "[fuzz] clang++ not found: scripts/setup.sh installs it (Debian packages clang and libclang-rt-14-dev)" >&2
  exit 1
}

echo "[fuzz] building the fuzz targets with clang in $build" >&2
(cd "$here" && cmake --preset fuzz -B "$build" >/dev/null)  # CMakePresets.json
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target fuzz_make_corpus "${targets[@]}"

# Stale seeds of an older generator must not linger: the seed directory is rewritten each time.
rm -rf "$build/fuzz-corpus"
"$build/bin/fuzz_make_corpus" "$build/fuzz-corpus" >&2
mkdir -p "$build/fuzz-artifacts" "$build/fuzz-logs"

# Sums one libFuzzer statistic over the logs of a run (one log per job).
stat() { awk -v key="stat::$1:" '$1 == key { s += $2 } END { print s + 0 }' "${@:2}"; }

# Runs one target and writes its summary line to fuzz-logs/TARGET.summary; its exit status is the
# fuzzer's.
run_target() {
  local target=$1 work="$build/fuzz-work/$1" logs="$build/fuzz-logs/$1"
  rm -rf "$logs" && mkdir -p "$work" "$logs"
  echo "[fuzz] $target for ${seconds} s ($jobs job(s))" >&2
  # -timeout: one input taking this long is a hang (the slowest seen are well under a second).
  local args=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=25 -print_final_stats=1
              -artifact_prefix="$build/fuzz-artifacts/$target-" "$work" "$build/fuzz-corpus/$target")
  local status=0
  if ((jobs == 1)); then
    "$build/bin/$target" "${args[@]}" >"$logs/fuzz-0.log" 2>&1 || status=$?
  else
    # libFuzzer's workers write fuzz-<job>.log into the current directory.
    (cd "$logs" && "$build/bin/$target" -jobs="$jobs" -workers="$jobs" "${args[@]}" >"$logs/main.log" 2>&1) ||
      status=$?
  fi
  local worker_logs=("$logs"/fuzz-*.log)
  # A worker's failure shows in its log even when the exit status of a multi-job run does not.
  if grep -qE '^==[0-9]+== ?ERROR|deadly signal' "${worker_logs[@]}"; then ((status)) || status=1; fi
  local execs rate cov corpus
  execs=$(stat number_of_executed_units "${worker_logs[@]}")
  rate=$(stat average_exec_per_sec "${worker_logs[@]}")
  cov=$(grep -hoE 'cov: [0-9]+' "${worker_logs[@]}" | awk '{ if ($2 > m) m = $2 } END { print m + 0 }')
  corpus=$(grep -hoE 'corp: [0-9]+' "${worker_logs[@]}" | awk '{ if ($2 > m) m = $2 } END { print m + 0 }')
  local line="$target: $execs execs ($rate/s), cov $cov, corpus $corpus inputs"
  ((status == 0)) || line+=" — FAILED (exit $status)"
  echo "$line" >"$build/fuzz-logs/$target.summary"
  return "$status"
}

# Single-job targets run side by side, all at once, so that the run takes one period whatever the
# number of targets (on 2 cores three of them still get two thirds of a core each); multi-job runs
# take the machine one after the other.
declare -A pid_of status_of
finish() {
  status_of[$1]=0
  wait "${pid_of[$1]}" || status_of[$1]=$?
}
for target in "${targets[@]}"; do
  run_target "$target" &
  pid_of[$target]=$!
  ((jobs == 1)) || finish "$target"
done
for target in "${targets[@]}"; do
  [[ -v "status_of[$target]" ]] || finish "$target"
done

failed=()
summary=()
for target in "${targets[@]}"; do
  if ((status_of[$target] != 0)); then
    failed+=("$target")
    tail -n 40 "$build/fuzz-logs/$target"/fuzz-*.log >&2
    ls "$build/fuzz-artifacts"/"$target"-* 2>/dev/null | sed 's/^/[fuzz] reproducer: /' >&2 || true
  fi
  summary+=("$(cat "$build/fuzz-logs/$target.summary")")
done

printf '[fuzz] %s\n' "${summary[@]}" >&2
if ((${#failed[@]})); then
  echo "[fuzz] failing targets: ${failed[*]} (replay a reproducer: $build/bin/TARGET FILE)" >&2
  exit 1
fi
