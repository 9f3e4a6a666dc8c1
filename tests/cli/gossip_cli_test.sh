#!/usr/bin/env bash
# `vigil lab gossip|membership|heartbeats` as a user runs them: seed figures, formats, errors.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run 0 lab --help && expect_in "$out" "membership"
run 0 lab gossip --help && expect_in "$out" "--table"

# The push table of a JavaScript simulation on mulberry32, exactly, from seed 44.
run 0 lab gossip --table && expect_in "$out" "  100  1          12.2      6.6    11.2        5.5" &&
  expect_in "$out" "10000  3          10.8     13.3     9.7       11.9"
run 0 lab gossip --table --format json &&
  json_check "j.length === 6 && j.map(r => r.rounds.toFixed(1)).join() === '12.2,5.4,17.4,8.4,22.2,10.8'" &&
  json_check "j.map(r => r.msgs_per_node.toFixed(1)).join() === '5.5,5.8,7.4,9.6,8.8,11.9'"
run 0 lab gossip --table --nodes 1000 --fanout 2 --trials 3 --format csv &&
  expect_in "$out" "n,f,rounds,log2_n,theory,msgs_per_node" && expect_in "$out" "1000,2,"

# One configuration: the JSON object, its curve, theory alongside.
run 0 lab gossip --nodes 1000 --fanout 1 --mode pushpull --trials 5 --format json &&
  json_check "j.rounds_mean > 5 && j.rounds_mean < 14 && Math.abs(j.rounds_mean - j.rounds_theory) < 2" &&
  json_check "j.informed_by_round[0] === 1 && j.informed_by_round[j.informed_by_round.length - 1] === 1000" &&
  json_check "j.informed_by_round.every((x, i, a) => i === 0 || x >= a[i - 1])" &&
  json_check "Math.abs(j.messages_per_node - j.rounds_mean) < 1e-9"
run 0 lab gossip --nodes 100 --fanout 2 --trials 20 --format json &&
  json_check "j.rounds_mean > 6 && j.rounds_mean < 9 && j.rounds_pittel > 6.49 && j.rounds_pittel < 6.5"
run 0 lab gossip --nodes 300 --dead 100 --mode pull --format json &&
  json_check "j.informed_by_round[j.informed_by_round.length - 1] === 200 && j.finished_trials === 5"
run 0 lab gossip --nodes 200 --loss 0.9 --max-rounds 4 --format json &&
  json_check "j.rounds_mean === null && j.finished_trials === 0"
run 0 lab gossip --nodes 1 && expect_in "$out" "rounds_mean: 0.0000"
run 0 lab gossip --nodes 500 --format csv && expect_in "$out" "index,informed_by_round,theory_by_round"

run 2 lab gossip --fanout 0 && expect_in "$err" "--fanout must be a whole number in [1, 1000], got 0"
run 2 lab gossip --nodes 0 && expect_in "$err" "--nodes must be a whole number in [1, 10000000], got 0"
run 2 lab gossip --loss 1 && expect_in "$err" "--loss must be in [0, 1)"
run 2 lab gossip --loss -0.5 && expect_in "$err" "--loss must be in [0, 1)"
run 2 lab gossip --nodes 100 --dead 100 && expect_in "$err" "--dead must be smaller than --nodes"
run 2 lab gossip --mode gossip && expect_in "$err" "--mode must be one of push|pull|pushpull"
run 2 lab gossip --trials 0 && expect_in "$err" "--trials must be a whole number in [1, 10000], got 0"
run 2 lab gossip --table --loss 0.1 && expect_in "$err" "drop --loss"
run 2 lab gossip --table --mode pull && expect_in "$err" "push gossip only"
run 2 lab gossip --table --nodes 10,x && expect_in "$err" "--nodes expects positive whole numbers"

# Heartbeat-counter membership: T_fail 3 against 10.
run 0 lab membership --trials 5 --format json &&
  json_check "j.membership.length === 2 && j.membership[0].tfail === 3 && j.membership[1].tfail === 10" &&
  json_check "j.membership[0].false_suspicion_node_rounds > 100000 && j.membership[1].false_suspicion_node_rounds < 10" &&
  json_check "j.membership[1].agree_dead_rounds_mean >= 10 && j.membership[1].detect_rounds_mean >= 10" &&
  json_check "j.messages_per_round === 200 && j.false_by_round_tfail_3.length === 41"
run 0 lab membership --tfail 10 --trials 5 --format json &&
  json_check "j.agree_dead_rounds_mean >= 10 && j.agree_dead_rounds_mean < 22 && j.messages_per_round === 200" &&
  json_check "typeof j.false_suspicion_node_rounds === 'number'"
run 0 lab membership --fanout 3 --tfail 10 --trials 3 --rounds 5 --format json && json_check "j.messages_per_round === 300"
run 0 lab membership --tfail 2,4 --trials 2 --rounds 10 && expect_in "$out" "T_fail  T_cleanup" &&
  expect_in "$out" "false_by_round_tfail_4"
run 2 lab membership --tfail 0 && expect_in "$err" "--tfail expects positive whole numbers"
run 2 lab membership --tfail 10 --tcleanup 5 && expect_in "$err" "--tcleanup must be at least --tfail (10)"
run 2 lab membership --nodes 1 && expect_in "$err" "--nodes must be a whole number in [2, 2000], got 1"
run 2 lab membership --loss 1.5 && expect_in "$err" "--loss must be in [0, 1)"

# All-to-all against gossip, per interval.
run 0 lab heartbeats && expect_in "$out" "9900" && expect_in "$out" "194 = 97 x 2"
run 0 lab heartbeats --nodes 100 --fanout 2 --format json &&
  json_check "j[0].messages === 9900 && j[1].messages === 200 && j[1].entries === 20000"
run 2 lab heartbeats --fanout 100 && expect_in "$err" "--fanout must be between 1 and --nodes - 1"

finish
