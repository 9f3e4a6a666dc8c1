#!/usr/bin/env bash
# The `vigil` command line as a user runs it: outputs, formats, errors and exit codes.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# Help and dispatch.
run 0 --help && expect_in "$out" "lab <experiment>"
run 2 && expect_in "$out" "usage: vigil"
run 2 frobnicate && expect_in "$err" "unknown command 'frobnicate'"
run 0 lab --help && expect_in "$out" "detectors"
run 2 lab nosuch && expect_in "$err" "unknown experiment 'nosuch'"
run 0 lab phi --help && expect_in "$out" "--silence"

# lab phi: the textbook example, every format, and every kind of bad input.
run 0 lab phi --mean 1000 --std 50 --silence 1200 --format json && json_check "j.phi > 4.49 && j.phi < 4.51"
run 0 lab phi --mean 1000 --std 300 --silence 1200 --format json && json_check "j.phi > 0.59 && j.phi < 0.61"
run 0 lab phi --mean 1000 --std 50 --silence 1200 --pause 200 --format json &&
  json_check "Math.abs(j.phi - Math.log10(2)) < 1e-12"
run 0 lab phi --mean=1000 --silence=2302.585 --model exponential --format json && json_check "Math.abs(j.phi - 1) < 1e-4"
run 0 lab phi --mean 1000 --std 50 --silence 1200 && expect_in "$out" "phi: 4.4993"
run 0 lab phi --mean 1000 --std 50 --silence 1200 --format csv && expect_in "$out" "phi,4.499335"
run 2 lab phi --mean 1000 --silence 1200 && expect_in "$err" "missing required option --std"
run 2 lab phi --mean 1000 --std 0 --silence 1200 && expect_in "$err" "--std must be in (0, 86400000] ms, got 0"
run 2 lab phi --mean 1000 --std 50 --silence -5 && expect_in "$err" "silence"
run 2 lab phi --mean abc --std 50 --silence 1200 && expect_in "$err" "--mean expects a number, got 'abc'"
run 2 lab phi --mean 1000 --std 50 --silence 1200 --model weibull && expect_in "$err" "--model must be one of"
run 2 lab phi --mean 1000 --std 50 --silence 1200 --format xml && expect_in "$err" "--format must be one of table|csv|json"
run 2 lab phi --mean 1000 --std 50 --silence 1200 --bogus 1 && expect_in "$err" "unknown option --bogus"
run 2 lab phi --mean && expect_in "$err" "option --mean needs a value"
run 2 lab phi --mean 1000 --std 50 --silence 1200 --seed -1 && expect_in "$err" "--seed must be in"

# lab detectors: the table, its JSON rows, and validation.
run 0 lab detectors --scenario stable --runs 1 --seconds 10 && expect_in "$out" "timeout-300ms"
run 0 lab detectors --format json &&
  json_check "j.length === 20 && j.every(r => 'scenario' in r && 'detector' in r && 'false_alarms_per_min' in r && 'false_suspicion_ms' in r && r.detection_ms > 0)"
run 0 lab detectors --scenario jitter --format json &&
  json_check "j.find(r => r.detector === 'timeout-300ms').false_alarms_per_min >= 3 && j.find(r => r.detector === 'phi-12').false_alarms_per_min === 0"
run 0 lab detectors --scenario pause --format csv && expect_in "$out" "scenario,detector,false_alarms_per_min,false_suspicion_ms,detection_ms"
run 2 lab detectors --scenario lossy && expect_in "$err" "--scenario must be one of"
run 2 lab detectors --runs 0 && expect_in "$err" "--runs must be between 1 and 1000"
run 2 lab detectors --seconds 2.5 && expect_in "$err" "--seconds expects a whole number"

# lab timeouts: a JavaScript simulation's table on mulberry32, exactly, by default.
run 0 lab timeouts && expect_in "$out" "1200                346"
run 0 lab timeouts --format json &&
  json_check "j.timeouts.length === 5 && j.phi.length === 5 && j.timeouts[0].false_alarms_per_hour === 346 && Math.round(j.window_mean_ms) === 1009"
run 2 lab timeouts --gaps 1 && expect_in "$err" "--gaps must be between"

# lab swim-probe, swim, cost: the formulas' figures from the real engine, and validation.
run 0 lab swim-probe --loss 0.2 --indirect 3 --probes 20000 --format json &&
  json_check "j.length === 1 && Math.abs(j[0].formula_pct - 7.409) < 0.001 && Math.abs(j[0].simulated_pct - 7.409) < 0.6"
run 0 lab swim-probe --loss 0.05 --indirect 0 --probes 5000 && expect_in "$out" "formula %"
run 2 lab swim-probe --indirect 3 && expect_in "$err" "missing required option --loss"
run 2 lab swim-probe --loss 1.5 && expect_in "$err" "--loss must be in [0, 1)"
run 0 lab swim --nodes 30 --kill 2 --periods 40 --format json &&
  json_check "j[0].all_dead_periods > 0 && j[0].false_deaths === 0 && j[0].msgs_per_node_per_period >= 2"
run 0 lab swim --nodes 10 --kill 0 --periods 10 --profile teaching --lifeguard off && expect_in "$out" "Lifeguard off"
run 2 lab swim --nodes 10 --kill 10 && expect_in "$err" "--kill must be smaller than --nodes"
run 2 lab swim --profile cloud && expect_in "$err" "--profile must be one of lan|wan|local|teaching"
run 2 lab swim --lifeguard maybe && expect_in "$err" "--lifeguard must be one of on|off"
run 0 lab cost --nodes 10,100 --format json &&
  json_check "j.length === 8 && j[0].msgs_per_s === 90 && j[4].msgs_per_s === 9900 && j.filter(r => r.source === 'simulated').every(r => r.msgs_per_node >= 2)"
run 2 lab cost --nodes 10,x && expect_in "$err" "--nodes expects positive whole numbers separated by commas"

# serve: a missing web app is a runtime failure with a hint, a bad address a usage error.
run 1 serve --web /nonexistent --http 127.0.0.1:18080 && expect_in "$err" "index.html missing"
run 2 serve --http 127.0.0.1:99999 && expect_in "$err" "port must be a number in 1..65535"
run 2 serve --http 'no_such host:80' && expect_in "$err" "host must be an IPv4 address"
# A name is listened on at each of its addresses; one that does not resolve stops the start.
run 1 serve --web /nonexistent --http nowhere.invalid:18080 && expect_in "$err" "index.html missing"
serve_web=$(mktemp -d) && echo '<!doctype html>' >"$serve_web/index.html"
run 1 serve --web "$serve_web" --http nowhere.invalid:18080 && expect_in "$err" "cannot listen on nowhere.invalid:18080"
rm -rf "$serve_web"

# agent: probe timing flags override the profile; bad values are usage errors, checked before
# any socket opens.
run 0 agent --help && expect_in "$out" "--probe-interval" && expect_in "$out" "--probe-timeout" &&
  expect_in "$out" "ProbeInterval"
run 2 agent --name x --probe-interval 5 && expect_in "$err" "--probe-interval: expected a duration such as 500ms"
run 2 agent --name x --probe-timeout 1x && expect_in "$err" "--probe-timeout: unknown unit 'x'"
run 2 agent --name x --probe-interval 0s && expect_in "$err" "--probe-interval: a duration must be between 1ms and 24h"
run 2 agent --name x --probe-interval 200ms --probe-timeout 300ms &&
  expect_in "$err" "probe timeout must be > 0 and at most the probe interval (probe interval 200ms, probe timeout 300ms)"
# The lan profile's timeout (500 ms) exceeds a 50 ms interval: the message says where it came from.
run 2 agent --name x --probe-interval 50ms &&
  expect_in "$err" "(probe interval 50ms, probe timeout 500ms from the lan profile)"
run 2 agent --name x --profile wan --probe-timeout 6s &&
  expect_in "$err" "(probe interval 5s from the wan profile, probe timeout 6s)"

finish
