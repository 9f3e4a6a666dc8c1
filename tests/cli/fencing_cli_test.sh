#!/usr/bin/env bash
# `vigil lab fencing` as a user runs it: the stale-leader timeline, its outcomes, formats, errors.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run 0 lab --help && expect_in "$out" "fencing"
run 0 lab fencing --help && expect_in "$out" "--participate" && expect_in "$out" "--new-first"

# The stale-leader story: token 41 paused past its lease, 42 writes, the late 41 is rejected.
run 0 lab fencing && expect_in "$out" "old leader's write with token 41 rejected: resource has seen 42" &&
  expect_in "$out" "2750  old leader  write         41  rejected  old-3" &&
  expect_in "$out" "stale_write_rejected: true" && expect_in "$out" "value: 'new-7'"
run 0 lab fencing --format json &&
  json_check "j.stale_write_rejected === true && j.lost_update === false && j.handover === true" &&
  json_check "j.old_token === 41 && j.new_token === 42 && j.highest === 42 && j.accepted === 9 && j.rejected === 1" &&
  json_check "j.timeline.length === 26 && j.timeline[0].actor === 'issuer' && j.timeline[0].highest === null" &&
  json_check "j.timeline.filter(e => e.outcome === 'rejected').map(e => [e.t_ms, e.token, e.value].join()).join() === '2750,41,old-3'" &&
  json_check "j.timeline.every((e, i, a) => i === 0 || e.t_ms >= a[i - 1].t_ms)"
run 0 lab fencing --format csv &&
  expect_in "$out" "t_ms,actor,action,token,outcome,value,highest,stored,stored_token,detail" &&
  expect_in "$out" "2750,old leader,write,41,rejected,old-3,42,new-5,42," &&
  expect_in "$out" "stale_write_rejected,true"

# Fencing off: the late write lands over the new leader's value.
run 0 lab fencing --fencing off --format json &&
  json_check "j.lost_update === true && j.stale_write_rejected === false && j.rejected === 0" &&
  json_check "j.timeline.some(e => e.t_ms === 2750 && e.actor === 'old leader' && e.action === 'write' && e.outcome === 'accepted' && e.stored_token === 41)"
run 0 lab fencing --fencing off && expect_in "$out" "fencing off: old leader's write with token 41 accepted and overwrote the new leader's 'new-5' (lost update)"

# Issued but not yet seen: 42 exists, yet the resource still takes 41 until a write with 42 arrives.
run 0 lab fencing --new-first off --format json &&
  json_check "j.issued_not_seen === true && j.stale_write_rejected === false && j.lost_update === false" &&
  json_check "j.timeline.filter(e => e.action === 'write' && e.token === 42)[0].t_ms === 3000"
# ... unless the resource takes part in the hand-over.
run 0 lab fencing --new-first off --participate on --format json &&
  json_check "j.stale_write_rejected === true && j.timeline.some(e => e.action === 'fence' && e.t_ms === 1750 && e.highest === 42)"
run 0 lab fencing --new-first off --participate on && expect_in "$out" "(fenced by the issuer at the hand-over, 1750 ms)"

# No hand-over when the pause ends within the lease.
run 0 lab fencing --pause 500 --format json &&
  json_check "j.handover === false && j.stale_write === false && j.new_token === 0 && j.handover_at_ms === -1"
run 0 lab fencing --lease 300 --interval 100 --pause 450 --old-writes 0 --token 7 --format json &&
  json_check "j.old_token === 7 && j.new_token === 8 && j.handover_at_ms === 400 && j.stale_write_rejected === true"

run 2 lab fencing --lease 250 && expect_in "$err" "--lease (250 ms) must be longer than --interval (250 ms)"
run 2 lab fencing --interval 0 && expect_in "$err" "--interval must be a whole number in [1, 86400000] ms, got 0"
run 2 lab fencing --pause -1 && expect_in "$err" "--pause must be a whole number in [0, 86400000] ms, got -1"
run 2 lab fencing --pause 3000000 --interval 10 && expect_in "$err" "raise --interval or shorten --pause"
run 2 lab fencing --token 0 && expect_in "$err" "--token must be a whole number in [1, 1e+15], got 0"
run 2 lab fencing --fencing maybe && expect_in "$err" "--fencing must be one of on|off"
run 2 lab fencing --participate yes && expect_in "$err" "--participate must be one of on|off"
run 2 lab fencing --lease 1s && expect_in "$err" "--lease expects a whole number"
run 2 lab fencing --old-writes 5000 && expect_in "$err" "--old-writes must be a whole number in [0, 1000], got 5000"
run 2 lab fencing --leader old && expect_in "$err" "--leader"

finish
