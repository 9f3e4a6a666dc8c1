// Names: a second agent claiming a live member's name from another address is refused (it exits 1
// and leaves nothing behind) and both sides report the conflict; an agent killed and restarted at
// its own address rejoins above its old incarnation; `vigil members` lists the agent itself and
// filters by status.
import { spawn, spawnSync } from 'node:child_process';
import { Cluster, check, freePort, getJson, httpGet, installCleanup, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);
const dup = await cluster.add('dup');
const peer = await cluster.add('peer');
await waitFor(() => cluster.allSee('alive'), 30000, 'dup and peer to see each other alive');

async function metrics(agent) {
  const text = (await httpGet(agent.httpPort, '/metrics', 5000)).body;
  const out = {};
  for (const m of text.matchAll(/^(vigil_\w+) (\d+)$/gm)) out[m[1]] = Number(m[2]);
  return out;
}
const self = (agent) => getJson(agent.httpPort, '/v1/self');

// Starts `vigil agent` by hand (the harness's add() expects it to keep running).
function launch(name, port, httpPort, joins) {
  const argv = ['agent', '--name', name, '--bind', `127.0.0.1:${port}`, '--http', `127.0.0.1:${httpPort}`,
                '--profile', 'local', '--token-file', cluster.tokenFile, '--web', 'none'];
  for (const j of joins) argv.push('--join', `127.0.0.1:${j.port}`);
  const child = spawn(args.vigil, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { name, port, httpPort, child, log: '', stderr: '', alive: true, code: null };
  child.stdout.on('data', (c) => { p.log += c; });
  child.stderr.on('data', (c) => { p.log += c; p.stderr += c; });
  child.on('exit', (code) => { p.alive = false; p.code = code; });
  return p;
}

// --- a second `dup` at another address ---------------------------------------------------------
const before = { dup: await metrics(dup), peer: await metrics(peer), dupSelf: await self(dup) };
const newcomer = launch('dup', await freePort(), await freePort(), [dup, peer]);
await waitFor(() => !newcomer.alive, 15000, 'the second dup to exit');
const expected = `vigil agent: the name 'dup' is already used by a live member at 127.0.0.1:${dup.port}; choose another --name`;
check(newcomer.code === 1, `the second dup exited with status 1 (${newcomer.code})`);
check(newcomer.stderr.includes(expected), `it said why: "${expected}"`);
check(/conflicting address for dup: held at 127\.0\.0\.1:\d+ \(alive\), claimed from 127\.0\.0\.1:\d+ \(alive\)/.test(newcomer.log),
      'the newcomer logged the conflict before exiting');
check(!/ (join|left) /.test(newcomer.log), 'the newcomer took in no member and announced no leave');

const conflictsAt = async (agent, was) => (await metrics(agent)).vigil_name_conflicts_total - was.vigil_name_conflicts_total;
await waitFor(async () => (await conflictsAt(dup, before.dup)) >= 1 && (await conflictsAt(peer, before.peer)) >= 1,
              5000, 'the holder and the peer to count the conflict');
check(true, `the holder counted ${await conflictsAt(dup, before.dup)} conflict(s), the peer ${await conflictsAt(peer, before.peer)}`);
// Their log lines come through pipes, possibly after the counters answered over HTTP.
await waitFor(async () => dup.log.includes('conflicting address for dup') &&
                          peer.log.includes('conflicting address for dup'), 5000,
              'the holder and the peer to log the conflict').catch(() => {});
check(new RegExp(`conflicting address for dup: held at 127\\.0\\.0\\.1:${dup.port} \\(alive\\), claimed from 127\\.0\\.0\\.1:${newcomer.port}`).test(dup.log),
      'the holder logged the conflict with both addresses');
check(peer.log.includes('conflicting address for dup'), 'the peer logged it too');
check(dup.log.split('\n').filter((l) => l.includes('conflicting address for dup')).length === 1,
      'once per interval: one line for the name however many claims arrived');

// Nothing of the newcomer stayed behind: the peer still holds dup at its own address, alive, at
// the same incarnation, and no third member appeared.
const view = Object.fromEntries((await getJson(peer.httpPort, '/v1/members')).map((m) => [m.name, m]));
check(view.dup && view.dup.address === `127.0.0.1:${dup.port}` && view.dup.state === 'alive',
      `the peer holds dup alive at 127.0.0.1:${dup.port}`);
check(view.dup.incarnation === before.dupSelf.incarnation && (await self(dup)).incarnation === before.dupSelf.incarnation,
      `dup kept its incarnation (${before.dupSelf.incarnation}): nothing refuted`);
check(Object.keys(view).sort().join(',') === 'dup,peer', `the peer lists exactly dup and peer (${Object.keys(view)})`);

// --- vigil members: the agent itself included, filtered by status ------------------------------
const members = (...extra) => spawnSync(args.vigil, ['members', '--http', `127.0.0.1:${peer.httpPort}`, ...extra],
                                        { encoding: 'utf8' });
const table = members();
check(table.status === 0 && /^peer\s/m.test(table.stdout) && /^dup\s/m.test(table.stdout),
      '`vigil members` lists the agent itself and its peer');
const asJson = (r) => JSON.parse(r.stdout).map((m) => `${m.name}:${m.state}`).sort().join(',');
check(asJson(members('--format', 'json')) === 'dup:alive,peer:alive', '`--format json` has both, itself included');
check(asJson(members('--format', 'json', '--status', 'alive')) === 'dup:alive,peer:alive', '`--status alive` keeps both');
check(asJson(members('--format', 'json', '--status', 'dead,left')) === '', '`--status dead,left` shows none');
check(asJson(members('--format', 'json', '--status', 'suspect', '--status', 'alive')) === 'dup:alive,peer:alive',
      '`--status` may repeat');
const bad = members('--status', 'failed');
check(bad.status === 2 && bad.stderr.includes("'failed' is not one of alive, suspect, dead, left"),
      `a bad --status is a usage error, exit 2 (${bad.status}: ${bad.stderr.trim()})`);

// --- kill -9 and an immediate restart at the same address --------------------------------------
// First make the peer's incarnation rise (a short stop: suspected, then refuted), so the restart
// has an old incarnation above its starting one to outbid.
peer.child.kill('SIGSTOP');
try {
  await waitFor(async () => (await getJson(dup.httpPort, '/v1/members')).find((m) => m.name === 'peer')?.state !== 'alive',
                10000, 'dup to suspect the stopped peer');
} finally {
  peer.child.kill('SIGCONT');
}
const old = await waitFor(async () => {
  const s = await self(peer);
  const seen = (await getJson(dup.httpPort, '/v1/members')).find((m) => m.name === 'peer');
  return s.incarnation > 1 && seen.state === 'alive' && seen.incarnation === s.incarnation && s.incarnation;
}, 15000, 'the peer to refute and be seen alive again');
check(old > 1, `the peer refuted: incarnation ${old}`);

const beforeRestart = await metrics(dup);
peer.child.kill('SIGKILL');
await waitFor(() => !peer.alive, 5000, 'the peer to die');
const restarted = launch('peer', peer.port, await freePort(), [dup]);
cluster.agents.push(restarted);
await waitFor(async () => {
  if (!restarted.alive) throw new Error(`the restarted peer exited: ${restarted.log}`);
  try { return (await httpGet(restarted.httpPort, '/v1/self', 500)).status === 200; } catch { return false; }
}, 10000, 'the restarted peer to serve /v1/self');
const again = await waitFor(async () => {
  const s = await self(restarted);
  const seen = (await getJson(dup.httpPort, '/v1/members')).find((m) => m.name === 'peer');
  return s.incarnation > old && seen.state === 'alive' && seen.incarnation === s.incarnation && s.incarnation;
}, 15000, 'the restarted peer to rejoin above its old incarnation');
check(again > old, `restarted at the same address, the peer rejoined at incarnation ${again} > ${old}`);
check((await metrics(dup)).vigil_name_conflicts_total === beforeRestart.vigil_name_conflicts_total &&
      (await metrics(restarted)).vigil_name_conflicts_total === 0,
      'a restart at the same address is no conflict on either side');
check(restarted.alive, 'the restarted peer keeps running');

cluster.stop();
process.exit(0);
