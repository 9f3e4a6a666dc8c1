#!/usr/bin/env bash
# The reference tables the documentation is generated from: `vigil lab params` prints one row per
# model parameter of each experiment (as many as its --help shows with a range), `vigil help
# agent|members|trace|serve|tune|lab X` one row per option of that command's --help, and `vigil help metrics` one
# row per metric family, in every format, with errors for what does not exist.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# expect_eq NAME A B: two counts agree.
expect_eq() {
  if [[ "$2" == "$3" ]]; then
    echo "ok -   $1: $2"
  else
    echo "not ok -   $1: $2 against $3"
    failures=$((failures + 1))
  fi
}

# Rows of a Markdown table whose first cell is code (`--x` or `vigil_x`).
rows() { grep -c '^| `' "$out"; }

# Every experiment with parameters: one Markdown row per option whose --help gives a range.
total=0
for experiment in phi fencing gossip membership heartbeats swim swim-probe \
  "retry chain" "retry hysteresis" "retry fleet" "retry server"; do
  # shellcheck disable=SC2086  # "retry chain" is two words on purpose
  run 0 lab $experiment --help || continue
  ranged=$(grep -cE ' in [[(]' "$out")
  total=$((total + ranged))
  # shellcheck disable=SC2086
  run 0 lab params --format markdown $experiment && expect_eq "lab $experiment rows" "$(rows)" "$ranged"
done
run 0 lab params --format markdown && expect_in "$out" '#### `vigil lab retry server`' &&
  expect_eq "all experiments' rows" "$(rows)" "$total"
run 0 lab params --format json &&
  json_check "j.length === $total && j.every((r) => r.flag && r.range && r.help && r.min <= r.default_value && r.default_value <= r.max)" &&
  json_check "j.find((r) => r.command === 'gossip' && r.flag === 'nodes').url_key === 'n'" &&
  json_check "j.filter((r) => r.command === 'swim-probe' && r.default === 'required').length === 1"
run 0 lab params phi && expect_in "$out" "range (0, 86400000] ms, default required, URL key mean"
run 0 lab params --format markdown retry chain && expect_in "$out" '| `--depth` | 5 | [1, 64] | services in the chain, N |'
run 2 lab params nosuch && expect_in "$err" "no experiment 'nosuch'"
run 2 lab params retry && expect_in "$err" "no experiment 'retry'"
run 2 lab params --format xml && expect_in "$err" "--format must be one of text|markdown|json"
run 0 lab --help && expect_in "$out" "params"

# Options: one row per option of the command's own --help.
run 0 agent --help && agent_options=$(grep -c '^  --' "$out")
run 0 help agent --format markdown && expect_eq "agent options" "$(rows)" "$agent_options" &&
  expect_in "$out" '| `--name VALUE` | required |' && expect_in "$out" '| `--quiet` |'
run 0 help agent --format json && json_check "j.length === $agent_options && j.some((o) => o.option === '--join')"
run 0 help agent && expect_in "$out" "--retry-interval VALUE"
for command in tune members trace serve; do
  run 0 "$command" --help && options=$(grep -c '^  --' "$out")
  run 0 help "$command" --format markdown && expect_eq "$command options" "$(rows)" "$options" &&
    expect_in "$out" '| `--help` |  | show this help |'
done
run 0 lab retry fleet --help && fleet_options=$(grep -c '^  --' "$out")
run 0 help lab retry fleet --format markdown && expect_eq "lab retry fleet options" "$(rows)" "$fleet_options" &&
  expect_in "$out" 'none\|fixed\|exponential'

# Metrics: the agent's families, each with a type and a meaning.
run 0 help metrics --format json &&
  json_check "j.length > 80 && j.every((m) => /^vigil_/.test(m.name) && ['counter', 'gauge'].includes(m.type) && m.help)" &&
  json_check "j.filter((m) => m.type === 'counter').every((m) => m.name.endsWith('_total'))" &&
  json_check "j.find((m) => m.name === 'vigil_members').labels[0] === 'state'" &&
  json_check "j.find((m) => m.name === 'vigil_messages_sent_total').labels[0] === 'type'" &&
  metrics=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$out', 'utf8')).length)")
run 0 help metrics --format markdown && expect_eq "metric rows" "$(rows)" "$metrics" &&
  expect_in "$out" '| `vigil_http_connections_refused_total` | counter |'
run 0 help metrics && expect_in "$out" "vigil_members{state} (gauge)"

run 2 help nosuch && expect_in "$err" "no reference for 'nosuch'"
run 2 help lab nosuch && expect_in "$err" "no reference for 'lab nosuch'"
run 2 help agent --format xml && expect_in "$err" "--format must be one of"
run 0 help --help && expect_in "$out" "usage: vigil help"
run 0 help && expect_in "$out" "usage: vigil <command>"

finish
