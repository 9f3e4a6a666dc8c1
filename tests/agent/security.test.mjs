// Gossip encryption and cluster labels between real agents on loopback: strangers without the key
// cannot join or be joined, cannot inject suspect/dead messages, keys rotate without a split, and
// labels keep clusters that share a network apart. Every "nothing happened" is checked only after a
// counter shows the attempt arrived and was refused, or after a control that would have been
// preceded by it has happened.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expandCompressed } from './compressed.mjs';
import { Viewer, check, freePort, getJson, httpGet, parseArgs, waitFor } from './harness.mjs';
import { kDead, kSuspect, ping, str, uint } from './memberlist_messages.mjs';

const args = parseArgs(process.argv.slice(2));
const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-security-'));
const tokenFile = path.join(dir, 'token');
writeFileSync(tokenFile, 'security-test-token\n');

// Fixed keys (as `serf keygen` prints them: base64 of 32 random bytes; k2 is AES-128).
const keyOf = (size, first) => Buffer.from(Array.from({ length: size }, (_, i) => (first + 7 * i) & 0xff));
const k1 = keyOf(32, 11);
const k2 = keyOf(16, 101);
const b64 = (k) => k.toString('base64');
function keyringFile(name, keys) {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(keys.map(b64)));
  return file;
}

const agents = [];
function stopAll() {
  for (const a of agents) if (a.alive) a.child.kill('SIGKILL');
}
const bail = (err) => {
  console.error(err && err.stack ? err.stack : err);
  for (const a of agents) if (a.log) console.error(`--- ${a.name} ---\n${a.log.slice(-2000)}`);
  stopAll();
  process.exit(1);
};
process.on('uncaughtException', bail);
process.on('unhandledRejection', bail);

// Starts an agent; `key` (one key) or `ring` (a keyring file), `label`, `join` (an agent).
async function start(name, { key, ring, label, join } = {}) {
  const port = await freePort();
  const httpPort = await freePort();
  const argv = ['agent', '--name', name, '--bind', `127.0.0.1:${port}`, '--http', `127.0.0.1:${httpPort}`,
                '--profile', 'local', '--token-file', tokenFile, '--web', 'none'];
  if (key) argv.push('--encrypt-key', b64(key));
  if (ring) argv.push('--keyring-file', keyringFile(name, ring));
  if (label) argv.push('--label', label);
  if (join) argv.push('--join', `127.0.0.1:${join.port}`);
  const child = spawn(args.vigil, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const agent = { name, port, httpPort, child, log: '', alive: true, startedAt: Date.now() };
  child.stdout.on('data', (c) => { agent.log += c; });
  child.stderr.on('data', (c) => { agent.log += c; });
  child.on('exit', () => { agent.alive = false; });
  agents.push(agent);
  await waitFor(async () => {
    if (!agent.alive) throw new Error(`${name} exited: ${agent.log}`);
    try { return (await httpGet(httpPort, '/v1/self', 500)).status === 200; } catch { return false; }
  }, 10000, `${name} to serve /v1/self`, 20);
  return agent;
}

function stop(...list) {
  for (const a of list) if (a.alive) a.child.kill('SIGKILL');
}

// The agent's peers (/v1/members lists the agent itself too).
async function view(agent) {
  const list = await getJson(agent.httpPort, '/v1/members');
  return Object.fromEntries(list.filter((m) => m.name !== agent.name).map((m) => [m.name, m]));
}
const self = (agent) => getJson(agent.httpPort, '/v1/self');

// Every observer lists every other agent of `group` alive (and nothing else when `exactly`).
async function seeEachOther(group, exactly = true) {
  for (const observer of group) {
    const v = await view(observer);
    for (const other of group)
      if (other !== observer && (!v[other.name] || v[other.name].state !== 'alive')) return false;
    if (exactly && Object.keys(v).length !== group.length - 1) return false;
  }
  return true;
}

async function metrics(agent) {
  const text = (await httpGet(agent.httpPort, '/metrics')).body;
  const out = {};
  for (const m of text.matchAll(/^(vigil_\w+) (\d+)$/gm)) out[m[1]] = Number(m[2]);
  return out;
}

// --- memberlist datagrams, built by hand (msgpack maps with memberlist's field names) -------------
// suspect (3) and dead (5): {Incarnation, Node, From}, as tests/wire/golden_vectors.hpp.
const accusation = (type, incarnation, node, from) =>
  Buffer.concat([Buffer.from([type, 0x83]), str('Incarnation'), uint(incarnation), str('Node'), str(node),
                 str('From'), str(from)]);
const suspectMsg = (inc, node, from) => accusation(kSuspect, inc, node, from);
const deadMsg = (inc, node, from) => accusation(kDead, inc, node, from);
// memberlist's encryptPayload, version 1: [1][12-byte nonce][ciphertext][16-byte tag], label as aad.
function seal(key, plain, label = '') {
  const nonce = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv(`aes-${key.length * 8}-gcm`, key, nonce);
  if (label) cipher.setAAD(Buffer.from(label));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from([1]), nonce, body, cipher.getAuthTag()]);
}
function open(key, sealed, label = '') {
  const decipher = crypto.createDecipheriv(`aes-${key.length * 8}-gcm`, key, sealed.subarray(1, 13));
  if (label) decipher.setAAD(Buffer.from(label));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(13, sealed.length - 16)), decipher.final()]);
}
const labelled = (label, bytes) =>
  Buffer.concat([Buffer.from([244, Buffer.byteLength(label)]), Buffer.from(label), bytes]);

const socket = dgram.createSocket('udp4');
await new Promise((r) => socket.bind(0, '127.0.0.1', r));
const replies = [];
socket.on('message', (m) => replies.push(m));
const send = (agent, bytes) => new Promise((r) => socket.send(bytes, agent.port, '127.0.0.1', r));

// --- bad keys and labels: a clear message naming the flag, exit code 2, never a crash ---------------
writeFileSync(path.join(dir, 'short.json'), JSON.stringify([b64(k1), 'AAAA']));
writeFileSync(path.join(dir, 'object.json'), '{"keys": []}');
const badCommandLines = [
  [['--encrypt-key', 'AAECAwQFBgcICQ=='], /--encrypt-key: the key decodes to 10 bytes; it must be 16, 24 or 32/],
  [['--encrypt-key', 'not base64!'], /--encrypt-key: not base64/],
  [['--keyring-file', path.join(dir, 'missing.json')], /--keyring-file: cannot read/],
  [['--keyring-file', path.join(dir, 'short.json')], /--keyring-file: .*entry 2: the key decodes to 3 bytes/],
  [['--keyring-file', path.join(dir, 'object.json')], /--keyring-file: .*not a JSON array/],
  [['--label', 'x'.repeat(256)], /--label: at most 255 bytes/],
];
for (const [extra, message] of badCommandLines) {
  const r = spawnSync(args.vigil, ['agent', '--name', 'bad', '--bind', '127.0.0.1:7946', '--web', 'none', ...extra],
                      { encoding: 'utf8', timeout: 5000 });
  check(r.status === 2 && message.test(r.stderr), `${extra[0]} ${extra[1].slice(0, 24)}: exit 2, "${r.stderr.trim()}"`);
}

// --- an encrypted cluster -----------------------------------------------------------------------
const e0 = await start('e0', { key: k1 });
const e1 = await start('e1', { key: k1, join: e0 });
const e2 = await start('e2', { key: k1, join: e0 });
const cluster = [e0, e1, e2];
await waitFor(() => seeEachOther(cluster), 20000, 'the encrypted cluster to converge');
check((await self(e0)).encrypted === true, '/v1/self reports the agent as encrypted');

// (a)+(b) A keyless agent and a wrongly keyed one join through e0, together with a keyed control.
const before = await metrics(e0);
let t0 = Date.now();
const [keyless, wrongKey, keyed] = await Promise.all([
  start('keyless', { join: e0 }), start('wrong-key', { ring: [k2], join: e0 }), start('keyed', { key: k1, join: e0 })]);
await waitFor(() => seeEachOther([...cluster, keyed], false), 20000, 'the keyed control to be seen by everyone', 20);
const encryptedJoinMs = Date.now() - t0;
check(true, `a keyed agent joined the encrypted cluster (${encryptedJoinMs} ms from spawn to every view)`);
await waitFor(async () => (await metrics(e0)).vigil_streams_rejected_total - before.vigil_streams_rejected_total >= 2,
              10000, 'e0 to refuse the two keyless join streams');
check(true, 'e0 refused and counted both join streams that did not decrypt (vigil_streams_rejected_total)');
for (const stranger of [keyless, wrongKey]) {
  check(Object.keys(await view(stranger)).length === 0, `${stranger.name} sees no member of the encrypted cluster`);
  for (const member of [...cluster, keyed])
    check(!(stranger.name in (await view(member))), `${member.name} does not list ${stranger.name}`);
}

// (b) Nor can a keyless agent be joined: a keyed agent's join is refused by it.
const keylessBefore = await metrics(keyless);
const joiner = await start('keyed-joiner', { key: k1, join: keyless });
await waitFor(async () => (await metrics(keyless)).vigil_streams_rejected_total > keylessBefore.vigil_streams_rejected_total,
              10000, 'the keyless agent to refuse the encrypted join');
check(Object.keys(await view(keyless)).length === 0 && Object.keys(await view(joiner)).length === 0,
      'a keyless agent and a keyed agent that tries to join it do not list each other');
stop(joiner);

// (c) Injection: suspect/dead accusations about e1, in plaintext and under another key, sent to every
// member. Incarnations far above e1's make any effect unmistakable: e1 would refute above them.
const victim = e1;
const base = (await self(victim)).incarnation;
const accusations = [suspectMsg(base + 1000, victim.name, e0.name), deadMsg(base + 2000, victim.name, e2.name)];
const forged = [...accusations, ...accusations.map((m) => seal(k2, m))];
const targets = [...cluster, keyed];
const counts = new Map();
for (const t of targets) counts.set(t, await metrics(t));
for (const t of targets) for (const bytes of forged) await send(t, bytes);
for (const t of targets) {
  const was = counts.get(t);
  await waitFor(async () => {
    const now = await metrics(t);
    return now.vigil_datagrams_decrypt_failed_total - was.vigil_datagrams_decrypt_failed_total === forged.length;
  }, 10000, `${t.name} to count the forged datagrams`, 20);
  const now = await metrics(t);
  check(now.vigil_datagrams_rejected_total - was.vigil_datagrams_rejected_total === forged.length &&
        now.vigil_datagrams_decrypt_failed_total - was.vigil_datagrams_decrypt_failed_total === forged.length,
        `${t.name} dropped and counted all ${forged.length} forged datagrams (decrypt failed)`);
}
for (const t of targets) {
  const v = await view(t);
  if (t !== victim)
    check(v[victim.name].state === 'alive' && v[victim.name].incarnation < base + 1000,
          `${t.name} still has ${victim.name} alive at its own incarnation`);
}
const victimSelf = await self(victim);
check(victimSelf.incarnation < base + 1000, `${victim.name} never refuted a forged accusation (its incarnation stayed below them)`);

// The WebSocket's stats carry the same counters.
const viewer = new Viewer(e0);
await viewer.open;
const stats = await viewer.next((m) => m.type === 'stats', 5000, 'a stats message');
check(stats.counters.datagrams_decrypt_failed >= forged.length && 'streams_rejected' in stats.counters &&
      'datagrams_label_mismatch' in stats.counters, 'WebSocket stats expose the rejection counters');
viewer.close();

// Control: the very same accusation sealed with the cluster's key is obeyed, so only the key kept
// the forgeries out. e1 refutes above the forged incarnation.
await send(e0, seal(k1, accusations[0]));
await waitFor(async () => (await self(victim)).incarnation > base + 1000, 10000, `${victim.name} to refute the keyed accusation`);
check(true, `the same suspect message sealed with the key is accepted (${victim.name} refuted it)`);
stop(keyed);

// (d) Key rotation without a split, one step at a time: install k2, make it primary, drop k1.
const steps = [
  { name: 'install', seed: [k1], joiner: [k1, k2] },
  { name: 'switch', seed: [k1, k2], joiner: [k2, k1] },
  { name: 'retire', seed: [k2, k1], joiner: [k2] },
];
for (const step of steps) {
  const a = await start(`${step.name}-a`, { ring: step.seed });
  const b = await start(`${step.name}-b`, { ring: step.joiner, join: a });
  await waitFor(() => seeEachOther([a, b]), 15000, `the ${step.name} pair to converge`);
  // Probes flow both ways and every datagram opens: each side's sealing is readable by the other.
  const [ma, mb] = [await metrics(a), await metrics(b)];
  await waitFor(async () => (await metrics(a)).vigil_probes_total >= ma.vigil_probes_total + 3 &&
                            (await metrics(b)).vigil_probes_total >= mb.vigil_probes_total + 3,
                10000, `three more probes each in the ${step.name} pair`);
  const [na, nb] = [await metrics(a), await metrics(b)];
  check(na.vigil_datagrams_rejected_total === 0 && nb.vigil_datagrams_rejected_total === 0 &&
        na.vigil_streams_rejected_total === 0 && nb.vigil_streams_rejected_total === 0 && (await seeEachOther([a, b])),
        `rotation step ${step.name}: ${JSON.stringify(step.seed.map((k) => k === k1 ? 'k1' : 'k2'))} and ` +
        `${JSON.stringify(step.joiner.map((k) => k === k1 ? 'k1' : 'k2'))} interoperate, no datagram dropped`);
  stop(a, b);
}

// (e) Labels: clusters sharing the loopback network stay apart; the same label works. The blue
// cluster is also encrypted, so the label is checked as associated data too.
const blue0 = await start('blue-0', { label: 'blue', key: k1 });
t0 = Date.now();
const blue1 = await start('blue-1', { label: 'blue', key: k1, join: blue0 });
await waitFor(() => seeEachOther([blue0, blue1]), 15000, 'the blue cluster to converge', 20);
const labelJoinMs = Date.now() - t0;
check(true, `same label: blue-1 joined blue-0 (${labelJoinMs} ms)`);
const red0 = await start('red-0', { label: 'red', key: k1 });
const blueBefore = await metrics(blue0);
const redBefore = await metrics(red0);
const [red1, plain] = await Promise.all([start('red-1', { label: 'red', key: k1, join: blue0 }),
                                         start('unlabelled', { key: k1, join: blue0 })]);
const blue2 = await start('blue-2', { label: 'blue', key: k1, join: red0 });
await waitFor(async () => (await metrics(blue0)).vigil_streams_rejected_total - blueBefore.vigil_streams_rejected_total >= 2 &&
                          (await metrics(red0)).vigil_streams_rejected_total - redBefore.vigil_streams_rejected_total >= 1,
              10000, 'both clusters to refuse the foreign joins');
for (const [a, b] of [[blue0, red1], [blue0, plain], [red0, blue2]]) {
  check(!(b.name in (await view(a))) && !(a.name in (await view(b))), `${a.name} and ${b.name} do not see each other`);
}
check(Object.keys(await view(red0)).length === 0, 'red-0 sees nobody from the blue cluster');
// Datagrams with another label, or none, are dropped before decryption and counted as such; a
// blue one sealed with the key is answered (an ack, labelled blue, sealed with "blue" as aad).
const mid = await metrics(blue0);
await send(blue0, labelled('red', seal(k1, ping(7, blue0.name), 'red')));
await send(blue0, seal(k1, ping(8, blue0.name)));
await send(blue0, labelled('blue', seal(k1, ping(9, blue0.name))));  // label not in the aad
await waitFor(async () => (await metrics(blue0)).vigil_datagrams_rejected_total - mid.vigil_datagrams_rejected_total === 3,
              5000, 'blue-0 to count the three foreign datagrams', 20);
const after = await metrics(blue0);
check(after.vigil_datagrams_label_mismatch_total - mid.vigil_datagrams_label_mismatch_total === 2 &&
      after.vigil_datagrams_decrypt_failed_total - mid.vigil_datagrams_decrypt_failed_total === 1,
      'a red and an unlabelled datagram count as label mismatches; a relabelled one fails to decrypt');
await send(blue0, labelled('blue', seal(k1, ping(10, blue0.name), 'blue')));
const ack = await waitFor(() => replies.find((r) => r[0] === 244), 5000, 'an ack to the blue ping', 20);
// Compressed when gossip rides along and makes it long enough (compression is on by default).
const ackSealed = open(k1, ack.subarray(2 + 4), 'blue');
const ackBody = expandCompressed(ackSealed);
check(ack.subarray(2, 6).toString() === 'blue' && ackBody.includes(Buffer.from([0x02])) &&
      ackBody.includes(Buffer.concat([str('SeqNo'), uint(10)])),
      `a blue ping sealed with the key is acked: labelled blue, sealed with the label as aad ` +
      `(${ackSealed === ackBody ? 'plain' : 'compressed'}, ${ackBody.length} bytes)`);

// Bytes per datagram: the encrypted agents' average against a plaintext pair's.
const p0 = await start('plain-0');
t0 = Date.now();
const p1 = await start('plain-1', { join: p0 });
await waitFor(() => seeEachOther([p0, p1]), 15000, 'the plaintext pair to converge', 20);
const plainJoinMs = Date.now() - t0;
await waitFor(async () => (await metrics(p0)).vigil_probes_total >= 5, 10000, 'five probes in the plaintext pair');
const perDatagram = (m) => m.vigil_bytes_sent_total / m.vigil_datagrams_sent_total;
const mp = await metrics(p0);
const mb = await metrics(blue1);
console.log(`# join time, spawn to every view: encrypted ${encryptedJoinMs} ms (3 members), ` +
            `encrypted+labelled ${labelJoinMs} ms, plaintext ${plainJoinMs} ms`);
console.log(`# mean bytes per datagram: plaintext ${perDatagram(mp).toFixed(1)}, ` +
            `encrypted with label "blue" ${perDatagram(mb).toFixed(1)} (fixed overhead 29 + 6)`);

// Last: the strangers of (a) still see nobody, after everything above.
for (const stranger of [keyless, wrongKey])
  check(Object.keys(await view(stranger)).length === 0, `${stranger.name} still sees nobody`);
for (const member of cluster)
  check(!('keyless' in (await view(member))) && !('wrong-key' in (await view(member))),
        `${member.name} never listed the strangers`);

socket.close();
stopAll();
