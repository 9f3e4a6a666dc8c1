#!/usr/bin/env bash
# `vigil lab detectors --trace` and `vigil tune` on heartbeat trace files: outputs, formats,
# bad files and exit codes.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
dir=$(mktemp -d)
trap 'rm -rf "$dir" "$out" "$err"' EXIT

# 300 heartbeats a second apart (epoch milliseconds), with a 2.5 s and a 5 s gap after the warm-up.
awk 'BEGIN { t = 1764664200000; print "time_ms,sender";
  for (i = 0; i < 300; i++) { t += (i == 150 ? 2500 : (i == 220 ? 5000 : 1000)); printf "%.3f,node-b\n", t } }' \
  >"$dir/one.csv"
# The same heartbeats in seconds, as plain text and as a JSON array.
awk -F, 'NR > 1 { printf "%.3f\n", $1 / 1000 }' "$dir/one.csv" >"$dir/one.txt"
awk -F, 'BEGIN { printf "[" } NR > 1 { printf "%s%s", (NR > 2 ? "," : ""), $1 } END { print "]" }' \
  "$dir/one.csv" >"$dir/one.json"
# Two senders interleaved.
awk -F, 'NR == 1 { print; next } { print; printf "%.3f,node-c\n", $1 + 300 }' "$dir/one.csv" >"$dir/two.csv"
printf 'time_ms,sender\n1000,a\nsoon,a\n' >"$dir/bad.csv"
printf '100\n200\n' >"$dir/short.txt"

# lab detectors --trace: exact mistakes on the known gaps, in every input format.
run 0 lab detectors --trace "$dir/one.csv" && expect_in "$out" "timeout-3s" && expect_in "$out" "phi-8-pause"
run 0 lab detectors --trace "$dir/one.csv" --format json &&
  json_check "j.detectors.find(r => r.detector === 'timeout-3s').mistakes === 1 && j.detectors.find(r => r.detector === 'timeout-10s').mistakes === 0 && j.detectors.find(r => r.detector === 'timeout-3s').detection_mean_ms === 3000"
run 0 lab detectors --trace "$dir/one.txt" --format json &&
  json_check "j.detectors.find(r => r.detector === 'timeout-3s').mistakes === 1 && j.senders[0].interval_ms === 1000"
run 0 lab detectors --trace "$dir/one.json" --unit ms --format json &&
  json_check "j.detectors.length === 8 && j.detectors.find(r => r.detector === 'timeout-3s').max_mistake_ms === 2000"
run 0 lab detectors --trace "$dir/one.csv" --format csv && expect_in "$out" "sender,detector,mistakes,mistakes_per_hour"
# Deterministic, and the seed moves the crash points.
run 0 lab detectors --trace "$dir/one.csv" --format csv --seed 4 && cp "$out" "$dir/a"
run 0 lab detectors --trace "$dir/one.csv" --format csv --seed 4 && expect_in "$dir/a" "$(sed -n 5p "$out")"
# Several senders: each replayed, or one picked.
run 0 lab detectors --trace "$dir/two.csv" --format json &&
  json_check "j.detectors.length === 16 && j.senders.length === 2"
run 0 lab detectors --trace "$dir/two.csv" --sender node-c --format json &&
  json_check "j.detectors.length === 8 && j.detectors.every(r => r.sender === 'node-c')"
# Errors.
run 2 lab detectors --trace "$dir/nothere.csv" && expect_in "$err" "cannot read trace '$dir/nothere.csv': No such file or directory"
run 2 lab detectors --trace "$dir/bad.csv" && expect_in "$err" "bad.csv: line 3: 'soon' is not a number or an ISO-8601 time"
run 2 lab detectors --trace "$dir/short.txt" && expect_in "$err" "the trace has 2 heartbeats; at least 102 are needed"
run 2 lab detectors --trace "$dir/two.csv" --sender node-x && expect_in "$err" "no sender 'node-x' in the trace (senders: node-b, node-c)"
run 2 lab detectors --trace "$dir/one.csv" --unit min && expect_in "$err" "--unit must be one of"
run 2 lab detectors --trace "$dir/one.csv" --runs 2 && expect_in "$err" "--runs describes the simulated stream"
run 2 lab detectors --unit ms && expect_in "$err" "--unit needs --trace FILE"
run 2 lab detectors --trace "$dir/one.csv" --crashes 0 && expect_in "$err" "--crashes must be between 1 and 1000000"
# --phi-threshold: one more phi (normal tail) row; a standard threshold is not repeated.
run 0 lab detectors --trace "$dir/one.csv" --phi-threshold 3.5 --format json &&
  json_check "j.detectors.length === 9 && j.detectors.at(-1).detector === 'phi-3.5' && j.detectors.at(-1).mistakes >= j.detectors.find(r => r.detector === 'phi-8').mistakes && j.detectors.at(-1).detection_mean_ms < j.detectors.find(r => r.detector === 'phi-8').detection_mean_ms"
run 0 lab detectors --trace "$dir/one.csv" --phi-threshold 8 --format json && json_check "j.detectors.length === 8"
run 0 lab detectors --trace "$dir/one.csv" --phi-threshold 1000 --format json &&
  json_check "j.detectors.at(-1).detector === 'phi-1000' && j.detectors.at(-1).mistakes === 0"
run 2 lab detectors --trace "$dir/one.csv" --phi-threshold 0.5 && expect_in "$err" "--phi-threshold must be between 1 and"
run 2 lab detectors --trace "$dir/one.csv" --phi-threshold high && expect_in "$err" "--phi-threshold"
run 2 lab detectors --phi-threshold 4 && expect_in "$err" "--phi-threshold needs --trace FILE"

# tune: the timeout family's exact choice on the known gaps, the frontier, memberlist terms.
run 0 --help && expect_in "$out" "tune"
run 0 tune --help && expect_in "$out" "--max-mistakes-per-hour" && expect_in "$out" "--csv"
run 0 tune --trace "$dir/one.csv" --max-mistakes-per-hour 0 --confidence 0 && expect_in "$out" "SuspicionMult" &&
  expect_in "$out" "phi-exponential" && expect_in "$out" "ProbeInterval"
# 199 scored gaps of ~1 s: a budget of 0 keeps the 5 s gap silent, 20/hour (one mistake) does not.
run 0 tune --trace "$dir/one.csv" --max-mistakes-per-hour 0 --confidence 0 --format json &&
  json_check "j.best.find(r => r.family === 'timeout').setting === 5000 && j.best.find(r => r.family === 'timeout').detection_mean_ms === 5000 && j.memberlist.find(r => r.setting === 'SuspicionMult').value === 5 && j.memberlist.find(r => r.setting === 'ProbeInterval').value === 1000"
run 0 tune --trace "$dir/one.csv" --max-mistakes-per-hour 20 --nodes 1000 --confidence 0 --format json &&
  json_check "j.best.find(r => r.family === 'timeout').setting === 2500 && j.best.find(r => r.family === 'timeout').mistakes === 1 && j.memberlist.find(r => r.setting === 'SuspicionMult').value === 1"
run 0 tune --trace "$dir/one.txt" --max-mistakes-per-hour 0 --confidence 0 --csv "$dir/frontier.csv" &&
  expect_in "$dir/frontier.csv" "family,budget_per_hour,setting,mistakes,mistakes_per_hour" &&
  expect_in "$dir/frontier.csv" "timeout,0.0,5000.000,0,0.00"
run 0 tune --trace "$dir/two.csv" --sender node-c --max-mistakes-per-hour 1 --format csv && expect_in "$out" "family,parameter,setting"
# At the default 95 % confidence, 0.057 scored hours cannot show 20 mistakes/hour (3 / 20 = 0.15 h
# are needed even for a setting that never errs): no recommendation, and the note says why.
run 0 tune --trace "$dir/one.csv" --max-mistakes-per-hour 20 &&
  expect_in "$out" "at 95.0 % confidence (no count is low enough over 0.057 scored hours)" &&
  expect_in "$out" "This trace is too short for the budget: 0.057 scored hours, 0.150 needed."
# 1000/hour over 0.057 h is a Poisson mean of 57: at 95 % about 44 mistakes pass, so the
# timeout family reaches its floor and the JSON says how many were allowed.
run 0 tune --trace "$dir/one.csv" --max-mistakes-per-hour 1000 --format json &&
  json_check "j.confidence === 0.95 && j.allowed_mistakes >= 42 && j.allowed_mistakes <= 46 && j.best.find(r => r.family === 'timeout').mistakes <= j.allowed_mistakes"
run 2 tune --trace "$dir/one.csv" --max-mistakes-per-hour 1 --confidence 1 && expect_in "$err" "--confidence must be in [0, 0.999], got 1"
run 1 tune --trace "$dir/nothere.csv" --max-mistakes-per-hour 1 && expect_in "$err" "vigil tune: cannot read trace"
run 2 tune --trace "$dir/bad.csv" --max-mistakes-per-hour 1 && expect_in "$err" "line 3: 'soon' is not a number"
run 2 tune --trace "$dir/short.txt" --max-mistakes-per-hour 1 && expect_in "$err" "the trace has 2 heartbeats"
run 2 tune --trace "$dir/two.csv" --max-mistakes-per-hour 1 && expect_in "$err" "the trace has 2 senders (node-b, node-c): choose one with --sender"
run 2 tune --trace "$dir/one.csv" && expect_in "$err" "missing required option --max-mistakes-per-hour"
run 2 tune --max-mistakes-per-hour 1 && expect_in "$err" "missing required option --trace FILE"
run 2 tune --trace "$dir/one.csv" --max-mistakes-per-hour -3 && expect_in "$err" "--max-mistakes-per-hour must be a number >= 0"
run 2 tune --trace "$dir/one.csv" --max-mistakes-per-hour lots && expect_in "$err" "--max-mistakes-per-hour expects a number"
run 2 tune --trace "$dir/one.csv" --max-mistakes-per-hour 1 --format xml && expect_in "$err" "--format must be one of"
run 2 tune --trace "$dir/one.csv" --max-mistakes-per-hour 1 extra && expect_in "$err" "unexpected argument 'extra'"

finish
