// Clients that ask and never read. A lone agent (no peer, so no probe can fail for the abuse)
// knows 2,500 members with 200-byte names, so that /v1/members is hundreds of kilobytes, and
// serves a 4 MiB file. 150 connections ask for /v1/members and 190 for the file, none reading:
// what they hold must stay within the named budgets — answers the sockets could not take at
// most 16 MiB in all (the rest answered 503), every socket's kernel send buffer fixed at 128 KiB —
// the agent must keep answering others, drop each stalled client (an answer after 5 s, when lws
// gives up flushing it; a file after 10 s without progress), and give the memory back. Without these limits the same clients held ~1 MB of agent memory per unread
// answer and ~1.8 MB of kernel memory per unread download.
//
// `--report-only 1` prints the measurements and keeps going past failed checks.
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import dgram from 'node:dgram';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { check as strictCheck, freePort, httpGet, parseArgs, waitFor } from './harness.mjs';
import { alive } from './memberlist_messages.mjs';
import { metrics as agentMetrics, rssKB } from './process_stats.mjs';

const args = parseArgs(process.argv.slice(2));
const reportOnly = args['report-only'] === '1';
const failures = [];
const check = (condition, message) => {
  if (!reportOnly) return strictCheck(condition, message);
  console.log(`${condition ? 'ok' : 'FAILED'} - ${message}`);
  if (!condition) failures.push(message);
};

const kMiB = 1024 * 1024;
const kAnswerBudget = 16 * kMiB;  // LwsHost::Options::max_answer_bytes
const kStallMs = 10000;           // LwsHost::Options::file_stall_seconds (answers: lws's 5 s)
const kMaxFileStreams = 64;       // LwsHost::Options::max_file_streams
const kRssLimitKb = 64 * 1024;
const kMembers = 2500;

const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-abuse-answers-'));
const web = path.join(dir, 'web');
mkdirSync(web);
writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>answers</title>\n');
writeFileSync(path.join(web, 'big.wasm'), crypto.randomBytes(4 * kMiB));

const port = await freePort();
const httpPort = await freePort();
const child = spawn(args.vigil, ['agent', '--name', 'target', '--bind', `127.0.0.1:${port}`, '--http',
                                 `127.0.0.1:${httpPort}`, '--profile', 'lan', '--web', web, '--quiet'],
                    { stdio: ['ignore', 'pipe', 'pipe'] });
let log = '';
let running = true;
child.stdout.on('data', (c) => { log += c; });
child.stderr.on('data', (c) => { log += c; });
child.on('exit', () => { running = false; });
const sockets = [];
const bail = (err) => {
  console.error(err && err.stack ? err.stack : err);
  console.error(`--- target ---\n${log.slice(-3000)}`);
  child.kill('SIGKILL');
  process.exit(1);
};
process.on('uncaughtException', bail);
process.on('unhandledRejection', bail);
await waitFor(async () => {
  if (!running) throw new Error(`the agent exited: ${log}`);
  try { return (await httpGet(httpPort, '/v1/self', 500)).status === 200; } catch { return false; }
}, 10000, 'the agent to serve /v1/self');

const rssKb = () => rssKB(child.pid);
// Pages of memory the kernel's TCP sockets hold, machine-wide (this network namespace).
const tcpPages = () => Number(/^TCP:.* mem (\d+)/m.exec(readFileSync('/proc/net/sockstat', 'utf8'))[1]);
// Bytes waiting in the send queue of each of the agent's connections on its HTTP port (the
// kernel's own account, `w` in `ss -tm`): what a client that stops reading holds of the kernel.
function sendQueues() {
  const out = execFileSync('ss', ['-tmnH', 'state', 'established', `( sport = :${httpPort} )`], { encoding: 'utf8' });
  return [...out.matchAll(/skmem:\([^)]*\bw(\d+)/g)].map((m) => Number(m[1]));
}
const metrics = () => agentMetrics({ httpPort });

// ------------------------------------------------------------------ members with long names

const udp = dgram.createSocket('udp4');
await new Promise((resolve) => udp.bind(0, '127.0.0.1', resolve));
for (let i = 0; i < kMembers; ++i) {
  const name = `member-${String(i).padStart(5, '0')}-`.padEnd(200, 'x');
  await new Promise((resolve) => udp.send(alive(name, 40000 + i), port, '127.0.0.1', resolve));
}
udp.close();
await waitFor(async () => (await httpGet(httpPort, '/v1/members', 5000)).body.length > 500 * 1024,
              20000, '/v1/members to pass 500 KB');
const answerSize = (await httpGet(httpPort, '/v1/members', 5000)).body.length;
console.log(`measure - /v1/members is ${(answerSize / 1024).toFixed(0)} KiB with ${kMembers} forged members`);

// Raw clients that send one request and never read what comes back.
function silentClient(request) {
  const s = net.connect(httpPort, '127.0.0.1');
  const c = { socket: s, closed: false };
  s.on('connect', () => { s.write(request); s.pause(); });
  s.on('error', () => {});
  s.on('close', () => { c.closed = true; });
  sockets.push(c);
  return c;
}
const get = (p) => `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

async function holding(what, count, request, settle) {
  const before = await metrics();
  const rssBefore = rssKb();
  const pagesBefore = tcpPages();
  let rssPeak = rssBefore;
  let pagesPeak = pagesBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssKb());
    pagesPeak = Math.max(pagesPeak, tcpPages());
  }, 50);
  let queuesPeak = [];
  const queueSampler = setInterval(() => {
    const q = sendQueues();
    if (q.reduce((a, b) => a + b, 0) > queuesPeak.reduce((a, b) => a + b, 0)) queuesPeak = q;
  }, 200);
  const clients = Array.from({ length: count }, () => silentClient(request));
  // An agent without these limits (measured with --report-only) has no counters to wait on: it
  // is given a few seconds instead.
  const since = Date.now();
  await waitFor(async () => await settle() || (reportOnly && Date.now() - since > 3000), 10000,
                `${what}: the answers to be under way`);
  // While they hold on, others are served at once.
  const t0 = Date.now();
  const self = await httpGet(httpPort, '/v1/self', 2000);
  const during = await metrics();
  const answeredIn = Date.now() - t0;
  check(self.status === 200 && answeredIn < 1000, `${what}: /v1/self answers meanwhile (${answeredIn} ms)`);
  // Then every transfer that makes no progress is cut, and idle connections end. (A paused
  // client cannot see the end: the agent's own count of its connections tells.)
  await waitFor(async () => (await metrics()).vigil_http_connections <= before.vigil_http_connections ||
                            (reportOnly && Date.now() - since > kStallMs + 5000),
                kStallMs + 10000, `${what}: every stalled transfer to be cut`)
    .catch((e) => check(false, e.message));
  clearInterval(sampler);
  clearInterval(queueSampler);
  const after = await metrics();
  const delta = (k) => (after[k] ?? 0) - (before[k] ?? 0);
  for (const c of clients) c.socket.destroy();
  console.log(`measure - ${what}: RSS ${(rssBefore / 1024).toFixed(1)} -> peak ${(rssPeak / 1024).toFixed(1)} -> ` +
              `${(rssKb() / 1024).toFixed(1)} MB; kernel TCP memory +${((pagesPeak - pagesBefore) * 4 / 1024).toFixed(1)} MB at the peak`);
  return { delta, during, rssPeak, pagesPeak: pagesPeak - pagesBefore, queuesPeak };
}

// ------------------------------------------------------------------ 1. unread answers

{
  const kClients = 150;
  const r = await holding('150 unread /v1/members', kClients, get('/v1/members'),
                          async () => ((await metrics()).vigil_http_answers_busy_total ?? 0) > 0 ||
                                      ((await metrics()).vigil_http_answer_bytes ?? 0) > 0);
  const held = r.delta('vigil_http_slow_readers_total');
  const busy = r.delta('vigil_http_answers_busy_total');
  console.log(`measure - unread answers: ${held} held for their clients then closed, ${busy} refused with 503, ` +
              `${((r.during.vigil_http_answer_bytes ?? 0) / kMiB).toFixed(1)} MiB held at the sample`);
  check(held + busy === kClients, `every unread answer was either held within the budget or refused (${held} + ${busy})`);
  check(busy > 0 && held <= Math.ceil(kAnswerBudget / answerSize) + 1,
        'answers past the 16 MiB budget were refused with 503');
  check((r.during.vigil_http_answer_bytes ?? 0) <= kAnswerBudget + answerSize,
        `answers waiting for their clients stay within 16 MiB plus one (${r.during.vigil_http_answer_bytes})`);
  check(r.rssPeak <= kRssLimitKb, `agent RSS peak ${(r.rssPeak / 1024).toFixed(1)} MB <= 64 MB`);
  const m = await metrics();
  check(m.vigil_http_answer_bytes === 0, 'no answer bytes are held once the clients are cut');
}

// ------------------------------------------------------------------ 2. unread downloads

{
  const kClients = 190;
  const r = await holding('190 unread downloads of a 4 MiB file', kClients, get('/big.wasm'),
                          async () => ((await metrics()).vigil_http_file_streams ?? 0) === kMaxFileStreams);
  const cut = r.delta('vigil_http_file_streams_cut_total');
  const busy = r.delta('vigil_http_file_streams_busy_total');
  const largest = Math.max(0, ...r.queuesPeak);
  const total = r.queuesPeak.reduce((a, b) => a + b, 0);
  console.log(`measure - unread downloads: ${cut} cut, ${busy} refused with 503; the agent's send queues held ` +
              `${(total / kMiB).toFixed(1)} MiB at the peak, ${(largest / 1024).toFixed(0)} KiB the largest`);
  check(cut === kMaxFileStreams && busy === kClients - kMaxFileStreams,
        `64 downloads held and cut, the rest refused (${cut}, ${busy})`);
  // The 128 KiB send buffer, which the kernel doubles for its bookkeeping: 256 KiB at most per
  // connection, where a buffer left to the kernel grows to 4 MiB.
  check(r.queuesPeak.length >= kMaxFileStreams && largest <= 256 * 1024,
        `every stalled download's send queue stays within 256 KiB (largest ${(largest / 1024).toFixed(0)} KiB)`);
}

check(running, 'the agent still runs');
child.kill('SIGTERM');
await waitFor(() => !running, 10000, 'the agent to exit');
if (failures.length) console.log(`report-only: ${failures.length} checks failed`);
process.exit(0);
