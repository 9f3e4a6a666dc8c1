#!/usr/bin/env bash
# `vigil lab retry ...` as a user runs it: the expected figures, formats, dispatch and errors.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# Dispatch of the two-word names.
run 0 lab --help && expect_in "$out" "retry hysteresis"
run 2 lab retry && expect_in "$err" "expected one of chain|hysteresis|fleet|server"
run 2 lab retry sideways && expect_in "$err" "expected one of chain|hysteresis|fleet|server"
run 0 lab retry chain --help && expect_in "$out" "usage: vigil lab retry chain"
run 2 lab retry chain --fail 0.1 extra && expect_in "$err" "unexpected argument 'extra'"

# retry chain: the closed forms and the --table rows.
run 0 lab retry chain --depth 5 --retries 3 --fail 0.7 --format json &&
  json_check "Math.abs(j.calls_per_request - 2.19) < 1e-12 && Math.abs(j.amplification - Math.pow(2.19, 4)) < 1e-9 && j.worst_case === 81 && Math.abs(j.success - Math.pow(0.657, 5)) < 1e-12"
run 0 lab retry chain --depth 5 --retries 3 --fail 1 --format json &&
  json_check "j.calls_per_request === 3 && j.amplification === 81 && j.success === 0"
run 0 lab retry chain --table && expect_in "$out" "5  3  0.70  2.19          23.00                  81      12.24"
run 0 lab retry chain --table --format json &&
  json_check "j.length === 6 && j[1].amplification.toFixed(2) === '1.54' && j[1].success_pct.toFixed(2) === '97.62'"
run 0 lab retry chain --table --format csv && expect_in "$out" "depth,tries,fail,calls_per_request,amplification,worst_case,success_pct"
run 2 lab retry chain --table --depth 4 && expect_in "$err" "drop --depth"
run 2 lab retry chain --depth 5 && expect_in "$err" "missing required option --fail"
run 2 lab retry chain --fail 1.5 && expect_in "$err" "--fail must be in [0, 1], got 1.5"
run 2 lab retry chain --fail 0.1 --retries 0 && expect_in "$err" "--retries"
run 2 lab retry chain --fail 0.1 --depth -3 && expect_in "$err" "--depth must be a whole number in [1, 64], got -3"

# retry hysteresis: the loop and the equilibria.
run 0 lab retry hysteresis --format json &&
  json_check "j.collapse_load === 950 && j.recovery_load === 325 && j.sweep.length === 101 && j.sweep.filter(r => r.direction === 'up' && r.lambda0 === 925)[0].goodput > 800"
run 0 lab retry hysteresis --gamma 0 --format json &&
  json_check "Math.abs(j.collapse_load - j.recovery_load) <= 25"
run 0 lab retry hysteresis --alpha 0.1 --format json && json_check "j.recovery_load === null"
run 0 lab retry hysteresis --equilibria 600 && expect_in "$out" "unstable"
run 0 lab retry hysteresis --equilibria 600 --format json &&
  json_check "j.count === 3 && j.equilibria.map(e => e.stability).join() === 'stable,unstable,stable'"
run 2 lab retry hysteresis --timeout 10 && expect_in "$err" "--timeout must be above --l0"
run 2 lab retry hysteresis --step 0 && expect_in "$err" "--step must be in (0, 10000000] req/s, got 0"

# retry fleet: synchronised spikes without jitter, a flat storm with it.
run 0 lab retry fleet --strategy exponential --format json &&
  json_check "[1, 3, 7, 15].every(s => j.per_second[s].offered > 3000) && j.per_second[2].offered === 0 && j.peak_rps === 40000"
run 0 lab retry fleet --strategy full-jitter --format json &&
  json_check "j.peak_rps * 3 <= 40000 && j.unfinished === 0 && j.per_second.length === 35"
run 0 lab retry fleet --strategy decorrelated --clients 100 --seconds 10 && expect_in "$out" "decorrelated backoff"
run 2 lab retry fleet --strategy linear && expect_in "$err" "--strategy must be one of none|fixed|exponential|full-jitter|equal-jitter|decorrelated"
run 2 lab retry fleet --cap 0.5 && expect_in "$err" "--cap must be at least --base"

# retry server: stuck without mitigations, recovered with them.
run 0 lab retry server --seconds 40 --format json &&
  json_check "j.recovered === false && j.goodput_after < 0.05 * j.goodput_before && j.throughput_after > 900 && j.series.length === 40"
run 0 lab retry server --seconds 40 --mitigation all --format json &&
  json_check "j.recovered === true && j.goodput_after >= 0.9 * j.goodput_before"
run 0 lab retry server --seconds 40 --mitigation budget,deadline && expect_in "$out" "mitigation budget,deadline"
run 0 lab retry server --seconds 40 --mitigation shed --format csv && expect_in "$out" "recovered,true"
run 2 lab retry server --mitigation hope && expect_in "$err" "--mitigation must be none, all, or a comma list"
run 2 lab retry server --trigger-seconds 100 && expect_in "$err" "--seconds must leave"

# Ranges and defaults come from one table (core/retry/params.hpp): --help shows each parameter's
# range and default, and a value outside the range is refused naming the same range.
# range_of COMMAND FLAG: the range --help prints for --FLAG of `vigil lab retry COMMAND`.
range_of() {
  "$vigil" lab retry "$1" --help | sed -n "s/^  --$2 VALUE.*, in \(.*\) (default: .*/\1/p"
}
refused_with_range() {  # COMMAND FLAG VALUE [more args]
  local command=$1 flag=$2 value=$3 range
  shift 3
  range=$(range_of "$command" "$flag")
  if [[ -z $range ]]; then
    echo "not ok - --help of retry $command shows no range for --$flag"
    failures=$((failures + 1))
    return
  fi
  run 2 lab retry "$command" "$@" --"$flag" "$value" && expect_in "$err" "--$flag must be" &&
    expect_in "$err" "in $range, got $value"
}
refused_with_range chain depth 65 --fail 0.1
refused_with_range chain retries 101 --fail 0.1
refused_with_range hysteresis gamma 101
refused_with_range hysteresis kappa 0
refused_with_range hysteresis lambda-min 0
refused_with_range fleet clients 0
refused_with_range fleet base 0
refused_with_range fleet capacity 20000000
refused_with_range server tries 11
refused_with_range server trigger-capacity 0
refused_with_range server budget-ratio 11
refused_with_range server trigger-at 0.5
run 0 lab retry hysteresis --help &&
  expect_in "$out" "--gamma VALUE         retry amplification (load x 1 + gamma in a storm), in [0, 100] (default: 2)"
expect_in "$out" "--lambda-max VALUE    highest load, in (0, 10000000] req/s (default: 1350)"
run 0 lab retry fleet --help &&
  expect_in "$out" "--clients VALUE       clients that failed at t = 0, in [1, 1000000] (default: 4000)"
expect_in "$out" "--strategy VALUE      none|fixed|exponential|full-jitter|equal-jitter|decorrelated (default: full-jitter)"
run 0 lab retry server --help &&
  expect_in "$out" "--timeout VALUE       client timeout per attempt, in (0, 600000] ms (default: 100)"
expect_in "$out" "--seed VALUE          PRNG seed (mulberry32) (default: 2)"
run 0 lab retry chain --help && expect_in "$out" "--depth VALUE         services in the chain, N, in [1, 64] (default: 5)"
expect_in "$out" "(default: required)"
# Whole-number parameters refuse fractions; the defaults shown are the ones a run uses.
run 2 lab retry fleet --clients 2.5 && expect_in "$err" "--clients"
run 0 lab retry server --seconds 40 --trigger-at 12 --format json &&
  json_check "j.series.length === 40 && j.series[13].goodput < j.series[5].goodput"

finish
