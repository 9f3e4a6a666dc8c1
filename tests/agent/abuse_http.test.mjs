// Abusive HTTP and WebSocket clients against one agent (with a live peer, so probes run) started
// under a low descriptor limit: pipelined requests, HEAD, upgrades without the vigil.v1
// subprotocol, stalled upgrade headers, a connection flood past the descriptor limit, and viewers
// that never read. Each case checks the answers, the refusal counters in /metrics (by exact
// amounts), the agent's RSS and CPU over the abuse, and that no probe failed.
//
// Scale: 2,000 pipelining connections and 1,000 flooding ones rather than the 10,000 an attacker
// might send. The bounds under test do not grow with the number of connections (each connection
// is answered and closed, or closed at accept past a fixed cap), so a leak or a spin shows at
// this scale already: without these limits the agent kept ~5 MB per 1,000 pipelining
// connections (7.2 -> 18.1 MB for 2,000) and spun on accept() once out of descriptors.
//
// `--report-only 1` prints the measurements and keeps going past failed checks (to measure an
// agent without these limits).
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import WebSocket from 'ws';
import { Cluster, Viewer, check as strictCheck, freePort, getJson, httpGet, installCleanup, parseArgs, stuckViewer, waitFor, wsFrame } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const reportOnly = args['report-only'] === '1';
// `--sanitized 1`: the agent is an ASan build, whose own memory and CPU would be measured, so the
// RSS and CPU bounds are reported, not checked; every other check (and the leak check at exit) holds.
const sanitized = args.sanitized === '1';
// How long a flood client waits for its answer (`--patience-ms`, shorter to measure an agent
// that never answers).
const patienceMs = Number(args['patience-ms'] ?? 8000);
const failures = [];
const check = (condition, message) => {
  if (!reportOnly) return strictCheck(condition, message);
  console.log(`${condition ? 'ok' : 'FAILED'} - ${message}`);
  if (!condition) failures.push(message);
};

const kDescriptors = 256;   // the agent's RLIMIT_NOFILE
const kMaxClients = 36;     // --max-clients
const kRssLimitKb = 64 * 1024;
// Of one core, over each abuse window. The agent's own code (user time) must stay under the first.
// The kernel's share of the same sockets' work swings with the host on a virtual machine (3.1 to
// 22.9 % with the kernel's for identical runs; profiles show it waiting on contended paravirtual
// locks), so user plus kernel time gets only the second bound, which still catches a busy loop
// such as spinning on accept() once out of descriptors.
const kCpuLimit = 0.10;
const kCpuWithKernelLimit = 0.50;
const kHeaderDeadlineMs = 5000;  // LwsHost::Options::header_deadline_seconds
const kRequestsPerConnection = 100;
const kTicksPerSecond = 100;  // USER_HZ on Linux
const kConnectionsPerSecond = 250;  // abusive connections opened a second (requests: 3x that)

const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);

// ------------------------------------------------------------------ the agent under abuse

async function startTarget() {
  const port = await freePort();
  const httpPort = await freePort();
  const argv = [`--nofile=${kDescriptors}:${kDescriptors}`, args.vigil, 'agent', '--name', 'target',
                '--bind', `127.0.0.1:${port}`, '--http', `127.0.0.1:${httpPort}`, '--profile', 'local',
                '--token-file', cluster.tokenFile, '--web', 'none', '--max-clients', String(kMaxClients)];
  const child = spawn('prlimit', argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const agent = { name: 'target', port, httpPort, child, log: '', alive: true };
  child.stdout.on('data', (c) => { agent.log += c; });
  child.stderr.on('data', (c) => { agent.log += c; });
  child.on('exit', (code, signal) => { agent.alive = false; agent.exit = signal ?? code; });
  cluster.agents.push(agent);
  await waitFor(async () => {
    if (!agent.alive) throw new Error(`target exited: ${agent.log}`);
    try { return (await httpGet(httpPort, '/v1/self', 500)).status === 200; } catch { return false; }
  }, 10000, 'the target to serve /v1/self');
  return agent;
}

const target = await startTarget();
const pid = target.child.pid;  // prlimit execs the agent: same process
check(/nofile|vigil/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8')), 'the target runs under prlimit');
const peer = await cluster.add('peer');  // joins through the target
await waitFor(() => cluster.allSee('alive'), 10000, 'target and peer to see each other alive');

function rssKb() {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]);
}
function cpuTicks() {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]), kernel: Number(fields[12]) };  // utime, stime
}
const openDescriptors = () => readdirSync(`/proc/${pid}/fd`).length;

async function metrics() {
  const r = await httpGet(target.httpPort, '/metrics');
  const values = {};
  for (const line of r.body.split('\n')) {
    const m = /^(vigil_[a-z_]+) (\d+)$/.exec(line);
    if (m) values[m[1]] = Number(m[2]);
  }
  return values;
}

// Runs `abuse` and reports the agent's CPU share and its largest RSS meanwhile.
async function measured(name, abuse) {
  const before = await metrics();
  const rssBefore = rssKb();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => { try { rssPeak = Math.max(rssPeak, rssKb()); } catch { /* gone */ } }, 50);
  const t0 = Date.now();
  const ticks0 = cpuTicks();
  const result = await abuse();
  const seconds = (Date.now() - t0) / 1000;
  // CPU time comes in 10 ms ticks: short windows are measured as if they lasted a second.
  const ticks1 = cpuTicks();
  const share = (ticks) => ticks / kTicksPerSecond / Math.max(1, seconds);
  const cpu = share(ticks1.user - ticks0.user);
  const cpuWithKernel = share(ticks1.user + ticks1.kernel - ticks0.user - ticks0.kernel);
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, rssKb());
  console.log(`measure - ${name}: ${seconds.toFixed(1)} s, agent CPU ${(100 * cpu).toFixed(1)} % of a core ` +
              `(${(100 * cpuWithKernel).toFixed(1)} % with the kernel's), ` +
              `RSS ${(rssBefore / 1024).toFixed(1)} -> peak ${(rssPeak / 1024).toFixed(1)} -> ` +
              `${(rssKb() / 1024).toFixed(1)} MB, descriptors ${openDescriptors()}`);
  // An agent that no longer answers (measured with --report-only) has no counters to give.
  const after = await metrics().catch((e) => { if (reportOnly) return {}; throw e; });
  const delta = (k) => (after[k] ?? 0) - (before[k] ?? 0);
  if (!sanitized) check(rssPeak <= kRssLimitKb, `${name}: agent RSS peak ${(rssPeak / 1024).toFixed(1)} MB <= 64 MB`);
  if (!sanitized) check(cpu <= kCpuLimit, `${name}: agent CPU ${(100 * cpu).toFixed(1)} % <= 10 % of a core`);
  if (!sanitized) {
    check(cpuWithKernel <= kCpuWithKernelLimit,
          `${name}: agent CPU with the kernel's ${(100 * cpuWithKernel).toFixed(1)} % <= 50 % of a core`);
  }
  check(delta('vigil_probes_failed_total') === 0, `${name}: no probe failed`);
  return { result, delta, after };
}

// ------------------------------------------------------------------ raw HTTP over net sockets

// Parses complete HTTP/1.1 responses (Content-Length framed) off the front of `buffer`.
// `heads`: how many of the requests were HEAD, in order (their bodies are not sent).
function parseResponses(buffer, isHead = () => false) {
  const responses = [];
  let offset = 0;
  for (;;) {
    const end = buffer.indexOf('\r\n\r\n', offset);
    if (end < 0) break;
    const head = buffer.subarray(offset, end).toString('latin1');
    const [statusLine, ...lines] = head.split('\r\n');
    const headers = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const length = headers['content-length'] === undefined ? 0 : Number(headers['content-length']);
    const bodyLength = isHead(responses.length) ? 0 : length;
    if (buffer.length < end + 4 + bodyLength) break;
    const body = buffer.subarray(end + 4, end + 4 + bodyLength).toString('latin1');
    responses.push({ status: Number(statusLine.split(' ')[1]), statusLine, headers, body });
    offset = end + 4 + bodyLength;
  }
  return { responses, rest: buffer.subarray(offset) };
}

// Sends `payload` on a new connection and collects what comes back until the server closes or
// `until(responses)` holds (then we close). Resolves with the responses, the leftover bytes,
// whether the server closed, and when.
function exchange(port, payload, { until = () => false, timeoutMs = 8000, isHead } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    let done = false;
    const finish = (serverClosed, error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const { responses, rest } = parseResponses(buffer, isHead);
      resolve({ responses, rest, serverClosed, error, ms: Date.now() - started });
    };
    const timer = setTimeout(() => finish(false, 'timeout'), timeoutMs);
    socket.on('connect', () => { if (payload) socket.write(payload); });
    socket.on('data', (d) => {
      buffer = Buffer.concat([buffer, d]);
      if (until(parseResponses(buffer, isHead).responses)) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('error', (e) => finish(true, e.code));
  });
}

const get = (path, extra = '') => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`;
const head = (path) => `HEAD ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
const wsKey = () => crypto.randomBytes(16).toString('base64');
const upgrade = (path, protocol) =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
  `Sec-WebSocket-Key: ${wsKey()}\r\nSec-WebSocket-Version: 13\r\n` +
  (protocol === undefined ? '' : `Sec-WebSocket-Protocol: ${protocol}\r\n`) + '\r\n';

// Runs `count` tasks, at most `parallel` at once and, given `perSecond`, starting no more than
// that many a second: answering requests costs the agent CPU in proportion to their rate, so the
// abuse comes at a fixed rate (well above what a live view asks for) to make its CPU bound mean
// "no spin, no waste" rather than "the client was slow".
async function pool(count, parallel, task, perSecond = Infinity) {
  const results = new Array(count);
  const t0 = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const startAt = t0 + (1000 * i) / perSecond;
      if (startAt > Date.now()) await new Promise((r) => setTimeout(r, startAt - Date.now()));
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  return results;
}

const probesFailedAtStart = (await metrics()).vigil_probes_failed_total;

// One abuse case; with --report-only, a case that cannot finish is reported and the next runs.
const cleanups = [];
async function runCase(name, body) {
  if (args.cases && !args.cases.split(',').includes(name)) return;  // e.g. --cases flood,HEAD
  if (!reportOnly) return body();
  try { await body(); } catch (e) { console.log(`FAILED - ${name}: ${e.message}`); failures.push(name); }
  while (cleanups.length) cleanups.pop()();
}

// ------------------------------------------------------------------ 1. pipelining

await runCase('pipelining', async () => {
  const order = await exchange(target.httpPort, get('/v1/self') + get('/v1/members') + get('/metrics'),
                               { until: (r) => r.length >= 3 });
  check(order.responses.length === 3 && order.responses.every((r) => r.status === 200),
        'three pipelined GETs get three complete 200 answers');
  const [self, members, text] = order.responses.map((r) => r.body);
  check(order.responses.length === 3 && JSON.parse(self).name === 'target' && Array.isArray(JSON.parse(members)) &&
        text.includes('vigil_probes_total'),
        'pipelined answers come in request order, each with its body (/v1/self, /v1/members, /metrics)');

  const kConnections = 2000;
  const { result, delta } = await measured('pipelining 2,000 x 3 /metrics', () =>
    pool(kConnections, 50, () => exchange(target.httpPort, get('/metrics').repeat(3),
                                          { until: (r) => r.length >= 3, timeoutMs: patienceMs }),
         kConnectionsPerSecond));
  const complete = result.filter((x) => x.responses.length === 3 &&
    x.responses.every((r) => r.status === 200 && r.body.length === Number(r.headers['content-length']) &&
                             r.body.endsWith('\n'))).length;
  check(complete === kConnections, `every pipelining connection got its 3 answers in full (${complete}/${kConnections})`);
  check(delta('vigil_http_slow_readers_total') === 0 && delta('vigil_http_request_limit_total') === 0,
        'clients that read are never cut');

  const many = kRequestsPerConnection + 5;
  const { result: limited, delta: d2 } = await measured('105 pipelined requests on one connection', () =>
    exchange(target.httpPort, get('/v1/self').repeat(many)));
  const answers = limited.responses;
  check(answers.length === kRequestsPerConnection && answers.every((r) => r.status === 200 && JSON.parse(r.body).name),
        `${many} pipelined requests: the first ${kRequestsPerConnection} answered in full (${answers.length})`);
  check(answers.at(-1).headers.connection === 'close' && limited.serverClosed && limited.rest.length === 0,
        'the last answer says Connection: close and the server closes, nothing after it');
  check(d2('vigil_http_request_limit_total') === 1, 'vigil_http_request_limit_total +1');
});

// ------------------------------------------------------------------ 2. HEAD

await runCase('HEAD', async () => {
  const { result, delta } = await measured('HEAD on the API', async () => {
    const out = {};
    for (const path of ['/v1/self', '/v1/members', '/metrics', '/v1/nothing']) {
      // HEAD then GET on one connection: the GET's status line must follow the HEAD's headers
      // directly, which it cannot if the HEAD answer carried a body.
      const both = await exchange(target.httpPort, head(path) + get(path),
                                  { until: (r) => r.length >= 2, isHead: (i) => i === 0 });
      out[path] = both;
    }
    return out;
  });
  for (const [path, both] of Object.entries(result)) {
    const [h, g] = both.responses;
    check(h && g && h.status === g.status && h.status === (path === '/v1/nothing' ? 404 : 200),
          `HEAD ${path} answers ${g ? g.status : '?'} like GET`);
    check(h.headers['content-type'] === g.headers['content-type'] && Number(h.headers['content-length']) > 0,
          `HEAD ${path}: Content-Type and Content-Length as for GET`);
    // /v1/self and /metrics change between the two requests; their length may differ slightly.
    const slack = path === '/v1/nothing' ? 0 : 64;
    check(Math.abs(Number(h.headers['content-length']) - g.body.length) <= slack,
          `HEAD ${path}: Content-Length ${h.headers['content-length']} matches GET's body (${g.body.length})`);
  }
  check(delta('vigil_http_methods_refused_total') === 0, 'HEAD is not refused');
});

// ------------------------------------------------------------------ 3. upgrades without vigil.v1

await runCase('upgrades', async () => {
  const kinds = [upgrade('/ws'), upgrade('/ws', 'chat'), upgrade('/ws', 'vigil-http'), upgrade('/ws', 'vigil-raw'),
                 upgrade('/other', 'vigil.v1'), upgrade('/v1/self', 'vigil.v1')];
  const kCount = 1000;
  const { result, delta } = await measured('1,000 upgrades without vigil.v1', () =>
    pool(kCount, 100, (i) => exchange(target.httpPort, kinds[i % kinds.length], { timeoutMs: patienceMs }),
         kConnectionsPerSecond));
  const refused = result.filter((x) => x.serverClosed && x.responses.length === 1 &&
                                       [400, 404].includes(x.responses[0].status)).length;
  const slowest = Math.max(...result.map((x) => x.ms));
  check(refused === kCount, `every upgrade without vigil.v1 (or to another path) is answered 400/404 and closed (${refused}/${kCount})`);
  check(slowest < kHeaderDeadlineMs, `all closed within the deadline (slowest ${slowest} ms)`);
  check(delta('vigil_ws_upgrades_refused_total') === kCount, `vigil_ws_upgrades_refused_total +${kCount} (${delta('vigil_ws_upgrades_refused_total')})`);

  // Upgrades whose headers never end: closed at the header deadline, counted as incomplete.
  const kStalled = 50;
  const partial = upgrade('/ws', 'vigil.v1').slice(0, -2);  // no final empty line
  const { result: stalled, delta: d2 } = await measured('50 stalled upgrade headers', () =>
    pool(kStalled, kStalled, () => exchange(target.httpPort, partial, { timeoutMs: 3 * kHeaderDeadlineMs })));
  const cut = stalled.filter((x) => x.serverClosed && x.responses.length === 0);
  const latest = Math.max(...stalled.map((x) => x.ms));
  check(cut.length === kStalled, `every stalled upgrade is closed by the agent (${cut.length}/${kStalled})`);
  check(latest <= kHeaderDeadlineMs + 2500, `within the header deadline plus a second of timer slack (latest ${latest} ms)`);
  check(d2('vigil_http_incomplete_total') === kStalled, `vigil_http_incomplete_total +${kStalled}`);

  // A viewer past --max-clients is told so.
  const viewers = Array.from({ length: kMaxClients }, () => new Viewer(target));
  await Promise.all(viewers.map((v) => v.open));
  const { result: busy, delta: d3 } = await measured('one viewer too many', () =>
    exchange(target.httpPort, upgrade('/ws', 'vigil.v1')));
  check(busy.responses.length === 1 && busy.responses[0].status === 503 && busy.serverClosed,
        `viewer ${kMaxClients + 1} gets 503 and is closed`);
  check(d3('vigil_ws_viewers_busy_total') === 1, 'vigil_ws_viewers_busy_total +1');
  // Every place is held from one address: a viewer from another address still gets in, in place
  // of that address's oldest viewer, so no one client can keep everyone else out.
  const { result: newcomer, delta: d4 } = await measured('a viewer from another address', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${target.httpPort}/ws`, 'vigil.v1', { localAddress: '127.0.0.2' });
    const opened = await new Promise((resolve) => { ws.once('open', () => resolve(true)); ws.once('error', () => resolve(false)); });
    await waitFor(() => viewers.some((v) => v.ws.readyState === WebSocket.CLOSED), 5000, 'the oldest viewer to be closed');
    return { ws, opened };
  });
  check(newcomer.opened, 'a viewer from 127.0.0.2 opens with every place taken from 127.0.0.1');
  const closed = viewers.map((v, i) => (v.ws.readyState === WebSocket.CLOSED ? i : -1)).filter((i) => i >= 0);
  check(closed.length === 1, `exactly one viewer of 127.0.0.1 was closed for it (viewer ${closed.join(', ')})`);
  check(d4('vigil_ws_viewers_evicted_total') === 1, 'vigil_ws_viewers_evicted_total +1');
  const { result: again } = await measured('one viewer too many, again', () =>
    exchange(target.httpPort, upgrade('/ws', 'vigil.v1')));
  check(again.responses.length === 1 && again.responses[0].status === 503,
        'the crowded address still cannot take one more place (503)');
  newcomer.ws.terminate();
  for (const v of viewers) v.close();
});

// ------------------------------------------------------------------ 4. descriptor flood

await runCase('flood', async () => {
  // More connections than the agent has descriptors, held open by the client: half of them an
  // upgrade without vigil.v1, half silent. Without a cap, accept() fails with EMFILE and lws
  // retries it for ever. With one, each connection past the cap closes the one idle the longest
  // (silent since it connected), so the last ones accepted hold their places until the header
  // deadline, and a real client arriving meanwhile always gets in.
  const kFlood = 1000;
  const sockets = [];
  const closedAt = [];
  let answeredDuringFlood = 0;
  let allClosed = false;
  const kOthers = 5;
  const { delta } = await measured('1,000 held connections past a 256-descriptor limit', async () => {
    const opened = Date.now();
    for (let i = 0; i < kFlood; ++i) {
      const s = net.connect(target.httpPort, '127.0.0.1');
      if (i % 2 === 0) s.on('connect', () => s.write(upgrade('/ws')));
      s.on('data', () => {});
      s.on('error', () => {});
      s.on('close', () => closedAt.push(Date.now() - opened));
      sockets.push(s);
    }
    // Others meanwhile are answered: they make room for themselves as the flood does.
    for (let i = 0; i < kOthers; ++i) {
      try { if ((await httpGet(target.httpPort, '/v1/self', 3000)).status === 200) ++answeredDuringFlood; } catch { /* refused */ }
    }
    allClosed = await waitFor(() => closedAt.length === kFlood, 3 * kHeaderDeadlineMs, 'the flood to be closed')
      .then(() => true, () => false);
  });
  check(allClosed, `the agent closed every flooding connection (${closedAt.length}/${kFlood})`);
  // The abusers go (those the agent did not close themselves).
  for (const s of sockets) s.destroy();
  const refusedAtAccept = delta('vigil_http_connections_refused_total');
  const evicted = delta('vigil_http_connections_evicted_total');
  const upgradesRefused = delta('vigil_ws_upgrades_refused_total');
  console.log(`measure - flood: ${evicted} closed to make room, ${refusedAtAccept} closed at accept, ` +
              `${upgradesRefused} answered 400, last closed after ${Math.max(...closedAt)} ms`);
  const incomplete = delta('vigil_http_incomplete_total');
  console.log(`measure - flood: ${incomplete} cut at the header deadline; ${answeredDuringFlood}/${kOthers} other requests answered during it`);
  check(evicted + refusedAtAccept + upgradesRefused + incomplete === kFlood,
        'every flooding connection was made room for, refused at accept, answered 400, or cut at the header deadline');
  check(upgradesRefused > 0 && incomplete > 0 && evicted > 0, 'the flood reached the connection cap');
  check(answeredDuringFlood === kOthers, `every other request was answered during the flood (${answeredDuringFlood}/${kOthers})`);
  check(!/accept: errno/.test(target.log), 'accept() never failed for want of descriptors');
  const refusalLines = target.log.split('\n').filter((l) => l.includes('over the connection limit')).length;
  check(refusalLines <= 3, `connection refusals logged once per interval (${refusalLines} lines)`);
  const answersAgain = await waitFor(async () => {
    try { return (await httpGet(target.httpPort, '/v1/self', 1000)).status === 200; } catch { return false; }
  }, 5000, 'HTTP to answer after the flood').then(() => true, () => false);
  check(answersAgain, 'HTTP answers after the flood');
});

// ------------------------------------------------------------------ 4b. push-pull stream flood

await runCase('streams', async () => {
  // The agent's own TCP port (push-pull), flooded and held: streams are refused, at the cap on
  // incoming streams (128) or at the descriptor reserve, whichever comes first, while HTTP still
  // finds descriptors, and nothing spins.
  const kStreams = 400;
  const sockets = [];
  let answered = 0;
  const streamRefusals = (m) => (m.vigil_http_connections_refused_total ?? 0) + (m.vigil_streams_refused_total ?? 0);
  const refusedBefore = streamRefusals(await metrics());
  const { delta } = await measured('400 held push-pull connections', async () => {
    for (let i = 0; i < kStreams; ++i) {
      const s = net.connect(target.port, '127.0.0.1');
      s.on('error', () => {});
      sockets.push(s);
    }
    // The listener's backlog is short: some connections get in only as the agent accepts.
    await waitFor(async () => streamRefusals(await metrics()) > refusedBefore, 10000,
                  'streams to reach the stream cap or the descriptor reserve');
    for (let i = 0; i < 5; ++i) {
      try { if ((await httpGet(target.httpPort, '/v1/self', 2000)).status === 200) ++answered; } catch { /* counted */ }
    }
  });
  for (const s of sockets) s.destroy();
  const refused = delta('vigil_http_connections_refused_total') + delta('vigil_streams_refused_total');
  check(refused > 0, `streams past the stream cap or the descriptor reserve were refused (${refused})`);
  check(answered === 5, `HTTP answered during the stream flood (${answered}/5)`);
  check(!/accept: errno/.test(target.log), 'accept() never failed for want of descriptors');
});

// ------------------------------------------------------------------ 5. viewers that never read

await runCase('stuck', async () => {
  const kStuck = 32;
  const stuck = await Promise.all(Array.from({ length: kStuck }, () => stuckViewer(target.httpPort)));
  cleanups.push(() => { for (const s of stuck) s.destroy(); });
  const snapshot = wsFrame(JSON.stringify({ type: 'snapshot' }));
  const overflowsBefore = (await metrics()).vigil_ws_queue_overflows_total ?? 0;
  let allClosed = false;
  const { delta } = await measured('32 viewers that never read, asking for snapshots', async () => {
    // Within the rate limit: a burst of 40, then 20 a second.
    for (const s of stuck) s.write(Buffer.concat(Array(40).fill(snapshot)));
    let rounds = 0;
    allClosed = await waitFor(async () => {
      const m = await metrics();
      if ((m.vigil_ws_queue_overflows_total ?? 0) - overflowsBefore >= kStuck) return true;
      if (rounds++ % 2 === 0) for (const s of stuck) if (!s.destroyed) s.write(Buffer.concat(Array(10).fill(snapshot)));
      return false;
    }, 60000, 'every stuck viewer to be closed over its queue budget', 250).then(() => true, () => false);
  });
  check(allClosed, 'every stuck viewer was closed over its queue budget');
  check(delta('vigil_ws_queue_overflows_total') === kStuck, `vigil_ws_queue_overflows_total +${kStuck}`);
  // Reading now drains what the kernel holds, then the end the agent sent.
  for (const s of stuck) { s.on('data', () => {}); s.on('error', () => {}); s.resume(); }
  const ended = () => stuck.filter((s) => s.closedByAgent).length;
  await waitFor(() => ended() === kStuck, 10000, 'each stuck viewer to see its connection closed');
  check(ended() === kStuck, 'every stuck viewer finds its connection closed');
  const rssAfter = rssKb();
  console.log(`measure - after the stuck viewers left: RSS ${(rssAfter / 1024).toFixed(1)} MB`);
  if (!sanitized) check(rssAfter <= kRssLimitKb, 'RSS stays bounded after the stuck viewers left');
  // A viewer that reads is served as before.
  const v = new Viewer(target);
  await v.open;
  await v.next((m) => m.type === 'snapshot', 5000, 'a snapshot for a reading viewer');
  check(true, 'a reading viewer still gets its snapshot');
  v.close();
});

// ------------------------------------------------------------------ the cluster kept going

const end = await metrics();
check(end.vigil_probes_failed_total === probesFailedAtStart, `no probe failed during the abuse (${end.vigil_probes_failed_total})`);
const view = await getJson(target.httpPort, '/v1/members');
check(view.some((m) => m.name === 'peer' && m.state === 'alive'), 'the peer is still alive in the target\'s view');
check(target.alive && peer.alive, 'both agents still run');
// A clean exit after all this: nothing leaked (a sanitizer build reports leaks at exit).
target.child.kill('SIGTERM');
await waitFor(() => !target.alive, 15000, 'the target to leave and exit');
check(target.exit === 0 && !/Sanitizer|runtime error/.test(target.log),
      `the target exits cleanly (exit ${target.exit}, no sanitizer report)`);
cluster.stop();
if (failures.length) console.log(`report-only: ${failures.length} checks failed`);
process.exit(0);
