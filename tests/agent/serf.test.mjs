// A mixed cluster of real Serf agents (HashiCorp memberlist) and vigil agents on loopback: they
// see each other alive, detect each other's crashes, survive each other's suspicions by
// refutation, and — with gossip encryption — share a cluster only when they share a key.
// Skips (exit 0, with the reason) only when the `serf` program is not installed.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Viewer, check, freePort, getJson, httpGet, metric, parseArgs, waitFor } from './harness.mjs';

const run = promisify(execFile);
const args = parseArgs(process.argv.slice(2));
const serf = args.serf || 'serf';
try {
  execFileSync(serf, ['version'], { stdio: 'ignore' });
} catch {
  console.log(`SKIP: the serf program (Debian package serf) is not installed; "${serf} version" failed`);
  process.exit(0);
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-serf-'));
const tokenFile = path.join(dir, 'token');
writeFileSync(tokenFile, 'serf-test-token\n');
const processes = [];

function spawnLogged(name, kind, command, argv) {
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { name, kind, child, log: '', alive: true };
  child.stdout.on('data', (c) => { p.log += c; });
  child.stderr.on('data', (c) => { p.log += c; });
  child.on('exit', () => { p.alive = false; });
  processes.push(p);
  return p;
}

async function startSerf(name, { join, key, tags = {} } = {}) {
  const port = await freePort();
  const rpcPort = await freePort();
  const argv = ['agent', `-node=${name}`, `-bind=127.0.0.1:${port}`, `-rpc-addr=127.0.0.1:${rpcPort}`,
                '-profile=lan', '-log-level=debug'];
  if (join) argv.push(`-join=127.0.0.1:${join}`);
  if (key) argv.push(`-encrypt=${key}`);
  for (const [k, v] of Object.entries(tags)) argv.push('-tag', `${k}=${v}`);
  const s = spawnLogged(name, 'serf', serf, argv);
  Object.assign(s, { port, rpcPort });
  await waitFor(async () => {
    if (!s.alive) throw new Error(`${name} exited: ${s.log}`);
    return (await serfMembers(s).catch(() => null)) !== null;
  }, 15000, `serf agent ${name} to answer RPC`);
  return s;
}

async function serfMembers(s) {
  const { stdout } = await run(serf, ['members', `-rpc-addr=127.0.0.1:${s.rpcPort}`, '-format=json'],
                               { timeout: 3000 });
  return Object.fromEntries(JSON.parse(stdout).members.map((m) => [m.name, m]));
}

async function startVigil(name, { join, key } = {}) {
  const port = await freePort();
  const httpPort = await freePort();
  const argv = ['agent', '--name', name, '--bind', `127.0.0.1:${port}`, '--http', `127.0.0.1:${httpPort}`,
                '--profile', 'lan', '--token-file', tokenFile, '--web', 'none'];
  if (join) argv.push('--join', `127.0.0.1:${join}`);
  if (key) argv.push('--encrypt-key', key);
  const v = spawnLogged(name, 'vigil', args.vigil, argv);
  Object.assign(v, { port, httpPort });
  await waitFor(async () => {
    if (!v.alive) throw new Error(`${name} exited: ${v.log}`);
    try { return (await httpGet(httpPort, '/v1/self', 500)).status === 200; } catch { return false; }
  }, 10000, `vigil agent ${name} to serve /v1/self`);
  return v;
}

async function vigilMembers(v) {
  const list = await getJson(v.httpPort, '/v1/members');
  return Object.fromEntries(list.map((m) => [m.name, m]));
}

// Serf's statuses are alive / leaving / left / failed; vigil's are alive / suspect / dead / left.
async function viewOf(p) {
  if (p.kind === 'serf') {
    const m = await serfMembers(p);
    return Object.fromEntries(Object.entries(m).map(([n, x]) => [n, x.status === 'failed' ? 'dead' : x.status]));
  }
  const m = await vigilMembers(p);
  return Object.fromEntries(Object.entries(m).map(([n, x]) => [n, x.state]));
}

async function everyoneSees(observers, subjects, state) {
  for (const o of observers) {
    const view = await viewOf(o);
    for (const s of subjects) {
      if (s !== o && view[s.name] !== state) {
        if (process.env.VIGIL_DEBUG) console.error(`${o.name} sees ${s.name} ${view[s.name]}`);
        return false;
      }
    }
  }
  return true;
}

function stopAll() {
  for (const p of processes) if (p.alive) { p.child.kill('SIGCONT'); p.child.kill('SIGKILL'); }
}
const interesting = (log) => log.split('\n').filter((l) => !l.includes('agent.ipc')).join('\n');
const bail = async (err) => {
  console.error(err && err.stack ? err.stack : err);
  for (const p of processes) {
    const view = p.alive ? await viewOf(p).catch((e) => `(no view: ${e.message})`) : '(exited)';
    console.error(`--- ${p.kind} ${p.name}: ${JSON.stringify(view)} ---\n${interesting(p.log).slice(-2500)}`);
  }
  stopAll();
  process.exit(1);
};
process.on('uncaughtException', bail);
process.on('unhandledRejection', bail);

// memberlist's LAN profile, which `serf -profile=lan` and `vigil --profile lan` both use: probe
// every 1 s, suspicion from 4·max(1, log10 N)·1 s to 6 times that. For six members a crash is
// probed within 2N-1 periods, confirmed after at most the longest suspicion, and spread by gossip
// (200 ms rounds) in about a second: the bound every detection below is held to.
const N = 6;
const suspicionMax = 6 * 4 * Math.max(1, Math.log10(N)) * 1000;
const detectionBound = (2 * N - 1) * 1000 + suspicionMax + 2000;

const s0 = await startSerf('serf-0', { tags: { role: 'lab' } });
const s1 = await startSerf('serf-1', { join: s0.port });
const s2 = await startSerf('serf-2', { join: s0.port });
const v0 = await startVigil('vigil-0', { join: s0.port });
const v1 = await startVigil('vigil-1', { join: s1.port });
const v2 = await startVigil('vigil-2', { join: v0.port });
const all = [s0, s1, s2, v0, v1, v2];

let t0 = Date.now();
await waitFor(() => everyoneSees(all, all, 'alive'), 30000, 'all six agents to see each other alive', 250);
check(true, `3 serf + 3 vigil agents converge: every view lists all six alive (${Date.now() - t0} ms)`);

// vigil advertises the versions Serf's version check wants (Vsn [1, 5, 2, 2, 5, 5]; `serf members`
// shows the delegate part, the last three), the same as a Serf agent's own.
const viaSerf = await serfMembers(s0);
check(JSON.stringify(viaSerf['vigil-0'].protocol) === JSON.stringify(viaSerf['serf-1'].protocol) &&
      viaSerf['vigil-0'].protocol.min === 2 && viaSerf['vigil-0'].protocol.max === 5,
      `serf sees vigil's protocol versions as a Serf agent's (${JSON.stringify(viaSerf['vigil-0'].protocol)})`);

// Tags both ways: vigil's metadata is Serf tags, so `serf members` shows where its live view is,
// and vigil decodes a Serf agent's tags (serf-0 runs with -tag role=lab).
check(viaSerf['vigil-0'].tags['vigil-view'] === `http://127.0.0.1:${v0.httpPort}`,
      `serf members shows vigil-0's tag vigil-view=${viaSerf['vigil-0'].tags['vigil-view']}`);
const viaVigil = await vigilMembers(v0);
check(viaVigil['serf-0'].tags.role === 'lab' && viaVigil['serf-0'].view === undefined,
      `vigil's /v1/members shows serf-0's tags ${JSON.stringify(viaVigil['serf-0'].tags)}, and no view`);
check(viaVigil['vigil-1'].view === `http://127.0.0.1:${v1.httpPort}`,
      `and vigil-1's view, learnt through the Serf agents (${viaVigil['vigil-1'].view})`);


// Compression both ways (memberlist's EnableCompression, on in Serf and in vigil's profiles).
// Serf compresses every stream message, so the answer to vigil-0's join through serf-0 came
// compressed; and a Serf agent joining through vigil-0 gets vigil-0's table of six as a
// compressed full state, which must tell it of all six.
check(await metric(v0, 'vigil_compressed_streams_received_total') >= 1,
      `Serf's compressed full state reached vigil-0 (${await metric(v0, 'vigil_compressed_streams_received_total')} ` +
      `compressed stream message(s), ${await metric(v0, 'vigil_compressed_datagrams_received_total')} compressed datagram(s))`);
const sentBefore = await metric(v0, 'vigil_compressed_sent_total');
const s3 = await startSerf('serf-3', { join: v0.port });
const joinedAt = Date.now();
await waitFor(() => everyoneSees([s3], all, 'alive'), 10000, 'serf-3, joined through vigil-0, to list all six alive', 100);
check(true, `a Serf agent joined through vigil-0 lists all six alive after ${Date.now() - joinedAt} ms`);
const sentAfter = await metric(v0, 'vigil_compressed_sent_total');
check(sentAfter > sentBefore, `vigil-0 answered it compressed (compressed messages sent ${sentBefore} -> ${sentAfter})`);
check(!/decompress|compress.*fail/i.test(s3.log + s0.log + s1.log + s2.log), 'no Serf agent failed to decompress');
await run(serf, ['leave', `-rpc-addr=127.0.0.1:${s3.rpcPort}`], { timeout: 5000 });
await waitFor(() => everyoneSees([v0], [s3], 'left'), 10000, 'vigil-0 to see serf-3 leave', 100);

// The live view (the WebSocket snapshot the web app draws) shows the Serf members.
const viewer = new Viewer(v0);
await viewer.open;
const snapshot = await viewer.next((m) => m.type === 'snapshot', 5000, 'a snapshot');
const inSnapshot = new Set(snapshot.members.map((m) => m.name));
check(['serf-0', 'serf-1', 'serf-2'].every((n) => inSnapshot.has(n)),
      "vigil-0's live view (WebSocket snapshot) lists the three Serf members");

// Serf's user events travel as memberlist user messages: vigil carries them up as bytes. Serf
// spreads an event by gossip alone (push-pull carries it later, but as Serf state vigil does not
// read): each Serf agent that has it piggybacks it on 4 packets (retransmit multiplier 4 ·
// ceil(log10 7)), 3 to distinct random peers in one gossip round and 1 in the next. With 5 peers
// each, one Serf agent misses vigil-0 with probability 2/5 · 4/5 = 0.32, all three with about
// 0.033. So one event can fairly miss; four distinct events all missing is about 1e-6.
let userMessage = null;
let eventsSent = 0;
for (let attempt = 0; attempt < 4 && !userMessage; ++attempt) {
  const name = `vigil-deploy-${attempt}`;
  await run(serf, ['event', `-rpc-addr=127.0.0.1:${s1.rpcPort}`, name, 'v42'], { timeout: 3000 });
  ++eventsSent;
  const hex = Buffer.from(name).toString('hex');
  userMessage = await viewer.next((m) => m.type === 'user' && m.hex.includes(hex), 4000, name)
    .catch(() => null);
}
check(userMessage !== null && userMessage.size > 'vigil-deploy-0'.length,
      `a Serf user event reaches vigil-0 as an opaque user message (${userMessage?.size} bytes; ` +
      `${eventsSent} event(s) sent, ${await metric(v0, 'vigil_user_messages_total')} user message(s) received)`);

// TCP fallback, both ways: with vigil-0's datagrams to serf-0 blocked, serf-0's UDP probes of
// vigil-0 get no ack, so serf-0 pings it over TCP (memberlist does, for members advertising
// protocol 3 or later) and vigil-0 acks there; and vigil-0's own UDP probes of serf-0 time out, so
// vigil-0 pings serf-0 over TCP and Serf acks.
const answeredBefore = await metric(v0, 'vigil_stream_pings_answered_total');
const ackedBefore = await metric(v0, 'vigil_stream_pings_acked_total');
viewer.send({ type: 'block', peer: 'serf-0', token: 'serf-test-token' });
await waitFor(async () => (await metric(v0, 'vigil_stream_pings_answered_total')) > answeredBefore &&
                         (await metric(v0, 'vigil_stream_pings_acked_total')) > ackedBefore,
              25000, 'a TCP fallback ping each way', 250);
viewer.send({ type: 'unblock', peer: 'serf-0', token: 'serf-test-token' });
check(true, `with its datagrams to serf-0 blocked, vigil-0 answered ` +
      `${(await metric(v0, 'vigil_stream_pings_answered_total')) - answeredBefore} TCP ping(s) from Serf and had ` +
      `${(await metric(v0, 'vigil_stream_pings_acked_total')) - ackedBefore} of its own acked by Serf`);
check(!interesting(s0.log).includes('Failed fallback ping'), 'serf-0 logged no failed fallback ping');
await waitFor(() => everyoneSees(all, all, 'alive'), 20000, 'everyone alive after the block', 250);

// A Serf agent suspected by vigil refutes: stop it until a vigil agent suspects it.
const sBefore = (await vigilMembers(v0))['serf-1'].incarnation;
s1.child.kill('SIGSTOP');
await viewer.next((m) => m.type === 'event' && m.kind === 'suspect' && m.member === 'serf-1', 15000,
                  'vigil-0 to suspect the stopped Serf agent');
s1.child.kill('SIGCONT');
await waitFor(async () => {
  const m = (await vigilMembers(v0))['serf-1'];
  return m.state === 'alive' && m.incarnation > sBefore;
}, 10000, 'serf-1 to refute');
check(!viewer.messages.some((m) => m.type === 'event' && m.kind === 'dead' && m.member === 'serf-1'),
      `a stopped Serf agent suspected by vigil refutes (incarnation ${sBefore} -> ` +
      `${(await vigilMembers(v0))['serf-1'].incarnation}) and is never declared dead`);

// A vigil agent suspected by Serf refutes, and Serf keeps it alive.
const vBefore = (await getJson(v1.httpPort, '/v1/self')).incarnation;
let serfSawFailed = false;
v1.child.kill('SIGSTOP');
await waitFor(async () => {
  const m = await serfMembers(s0);
  if (m['vigil-1'].status === 'failed') serfSawFailed = true;
  return s0.log.includes('Suspect vigil-1') || s2.log.includes('Suspect vigil-1') ||
         viewer.messages.some((e) => e.type === 'event' && e.kind === 'suspect' && e.member === 'vigil-1');
}, 15000, 'someone to suspect the stopped vigil agent', 200);
v1.child.kill('SIGCONT');
await waitFor(async () => (await getJson(v1.httpPort, '/v1/self')).incarnation > vBefore, 10000,
              'vigil-1 to refute');
for (let i = 0; i < 10; ++i) {
  if ((await serfMembers(s0))['vigil-1'].status === 'failed') serfSawFailed = true;
}
await waitFor(() => everyoneSees(all, [v1], 'alive'), 10000, 'everyone to see vigil-1 alive again', 250);
check(!serfSawFailed, `a stopped vigil agent refutes (incarnation ${vBefore} -> ` +
      `${(await getJson(v1.httpPort, '/v1/self')).incarnation}) and Serf keeps it alive`);
viewer.close();

// kill -9 a Serf agent: every vigil agent marks it dead within memberlist's own bound.
s2.child.kill('SIGKILL');
await waitFor(() => !s2.alive, 3000, 'serf-2 to exit');
t0 = Date.now();
await waitFor(() => everyoneSees([v0, v1, v2], [s2], 'dead'), detectionBound, 'every vigil agent to see serf-2 dead', 250);
check(true, `kill -9 of a Serf agent: every vigil agent marks it dead after ${Date.now() - t0} ms ` +
      `(bound ${detectionBound} ms)`);

// kill -9 a vigil agent: `serf members` shows it failed.
v2.child.kill('SIGKILL');
await waitFor(() => !v2.alive, 3000, 'vigil-2 to exit');
t0 = Date.now();
await waitFor(() => everyoneSees([s0, s1], [v2], 'dead'), detectionBound, 'every Serf agent to list vigil-2 failed', 250);
check(true, `kill -9 of a vigil agent: serf members shows it failed after ${Date.now() - t0} ms ` +
      `(bound ${detectionBound} ms)`);
stopAll();

// Gossip encryption: the same key on both sides makes one cluster; a wrong key keeps vigil out.
if (args['no-encryption'] !== 'yes') {
  const key = randomBytes(16).toString('base64');
  const e0 = await startSerf('serf-enc-0', { key });
  const e1 = await startSerf('serf-enc-1', { join: e0.port, key });
  const ev = await startVigil('vigil-enc', { join: e0.port, key });
  const encrypted = [e0, e1, ev];
  t0 = Date.now();
  await waitFor(() => everyoneSees(encrypted, encrypted, 'alive'), 30000, 'the encrypted cluster to converge', 250);
  check(true, `with serf -encrypt and the same --encrypt-key, vigil joins (${Date.now() - t0} ms)`);

  const wrong = await startVigil('vigil-wrong-key', { join: e0.port, key: randomBytes(16).toString('base64') });
  // Long enough for the join's push-pull and several gossip and probe rounds to have happened.
  const deadline = Date.now() + 8000;
  let joined = false;
  while (Date.now() < deadline && !joined) {
    const inSerf = (await serfMembers(e0))['vigil-wrong-key'];
    const inVigil = (await vigilMembers(wrong))['serf-enc-0'];
    joined = Boolean(inSerf) || Boolean(inVigil && inVigil.state === 'alive');
    await new Promise((r) => setTimeout(r, 250));
  }
  check(!joined, 'with a wrong key vigil cannot join: neither side ever lists the other');
  const refusal = interesting(e0.log).split('\n').find((l) => /decrypt/i.test(l));
  check(Boolean(refusal), `and it is the encryption that refused it (serf: "${refusal && refusal.trim()}")`);
  stopAll();
}
process.exit(0);
