#!/usr/bin/env node
// Records a heartbeat trace under chosen faults: N agents on loopback, receive-side loss on the
// observer (agent-0), and the observed peer (agent-1) paused in bursts the way garbage collection
// pauses cluster. After --duration it writes agent-0's trace of agent-1 (GET /v1/trace) with
// comment lines stating the setting, ready for `vigil tune --trace`.
//
//   node scripts/capture_trace.mjs --out trace.csv [--duration 10m] [--loss 0.1] ...
//
// Faults go through the agents' own WebSocket commands (inject, pause), so the trace is what an
// agent records in production when its peer stalls and its network drops datagrams.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import dgram from 'node:dgram';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

const options = {
  vigil: { value: 'VIGIL', text: 'the vigil binary', fallback: path.join(here, '..', 'build', 'bin', 'vigil') },
  out: { value: 'FILE', text: 'where to write the trace (CSV)', fallback: null },
  agents: { value: 'N', text: 'agents on loopback (2..32)', fallback: '2' },
  profile: { value: 'NAME', text: 'the agents\' profile: lan, wan, local or teaching', fallback: 'lan' },
  loss: { value: 'P', text: 'receive-side loss injected at agent-0, in [0, 0.9]', fallback: '0.1' },
  duration: { value: 'D', text: 'how long to record (500ms, 30s, 40m, 1h)', fallback: '10m' },
  'burst-every': { value: 'D', text: 'mean time between pause bursts (0 for no pauses)', fallback: '3m' },
  seed: { value: 'S', text: 'seed of the pause schedule (an integer)', fallback: '1' },
};

function usage() {
  const lines = Object.entries(options).map(([name, o]) =>
    `  --${name} ${o.value}`.padEnd(24) + o.text + (o.fallback === null ? ' (required)' :
      name === 'vigil' ? ' (default: build/bin/vigil)' : ` (default: ${o.fallback})`));
  return 'usage: node scripts/capture_trace.mjs --out FILE [options]\n' +
    'Records agent-0\'s heartbeat trace of agent-1 under injected loss and bursts of pauses.\n\n' +
    `options:\n${lines.join('\n')}\n  --help                show this help\n\n` +
    'Pauses come in bursts of 2 or 3, each 0.8 to 3 s long and 2 to 6 s apart, as stop-the-world\n' +
    'garbage collections cluster; bursts start at --burst-every times a uniform factor in\n' +
    '[0.5, 1.5]. The same seed gives the same schedule.\n';
}

function fail(message) {
  process.stderr.write(`capture_trace: ${message}\n`);
  process.exit(2);
}

function parseDuration(text, flag, allowZero = false) {
  if (allowZero && text === '0') return 0;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (!m) fail(`${flag}: expected a duration such as 500ms, 30s, 40m or 1h, got '${text}'`);
  const ms = Number(m[1]) * { ms: 1, s: 1000, m: 60000, h: 3600000 }[m[2]];
  if (!(ms >= 1) || ms > 86400000) fail(`${flag}: a duration must be between 1ms and 24h, got '${text}'`);
  return Math.round(ms);
}

function parseCommandLine(argv) {
  const given = {};
  for (let i = 0; i < argv.length; ++i) {
    let arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(usage());
      process.exit(0);
    }
    if (!arg.startsWith('--')) fail(`unexpected argument '${arg}' (see --help)`);
    let value;
    const eq = arg.indexOf('=');
    if (eq >= 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    const name = arg.slice(2);
    if (!(name in options)) fail(`unknown option '${arg}' (see --help)`);
    if (value === undefined) {
      if (i + 1 >= argv.length) fail(`${arg} needs a value`);
      value = argv[++i];
    }
    given[name] = value;
  }
  const raw = Object.fromEntries(Object.entries(options).map(([k, o]) => [k, given[k] ?? o.fallback]));
  if (raw.out === null) fail('missing required option --out FILE');
  const agents = Number(raw.agents);
  if (!Number.isInteger(agents) || agents < 2 || agents > 32) fail(`--agents: expected an integer in 2..32, got '${raw.agents}'`);
  if (!['lan', 'wan', 'local', 'teaching'].includes(raw.profile))
    fail(`--profile: expected lan, wan, local or teaching, got '${raw.profile}'`);
  const loss = Number(raw.loss);
  if (raw.loss === '' || !(loss >= 0 && loss <= 0.9)) fail(`--loss: expected a number in [0, 0.9], got '${raw.loss}'`);
  const seed = Number(raw.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) fail(`--seed: expected an integer in 0..4294967295, got '${raw.seed}'`);
  if (!existsSync(raw.vigil)) fail(`--vigil: no file '${raw.vigil}' (build it with scripts/build.sh, or give its path)`);
  const outDir = path.dirname(path.resolve(raw.out));
  if (!existsSync(outDir)) fail(`--out: no directory '${outDir}'`);
  return {
    vigil: raw.vigil, out: raw.out, agents, profile: raw.profile, loss, seed,
    duration: parseDuration(raw.duration, '--duration'),
    burstEvery: parseDuration(raw['burst-every'], '--burst-every', true),
    rawDuration: raw.duration, rawBurstEvery: raw['burst-every'],
  };
}

const opts = parseCommandLine(process.argv.slice(2));

// ------------------------------------------------------------------------------ pause schedule

// mulberry32: small, seedable, the same sequence everywhere.
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Pauses as {at, ms} in ms from the start of recording; every pause ends before the recording.
function pauseSchedule({ seed, burstEvery, duration }) {
  if (burstEvery === 0) return [];
  const random = prng(seed);
  const uniform = (lo, hi) => lo + (hi - lo) * random();
  const pauses = [];
  for (let burst = burstEvery * uniform(0.5, 1.5); burst < duration; burst += burstEvery * uniform(0.5, 1.5)) {
    const count = random() < 0.5 ? 2 : 3;
    let at = burst;
    for (let i = 0; i < count; ++i) {
      const ms = Math.round(uniform(800, 3000));
      if (at + ms > duration - 1000) break;
      pauses.push({ at: Math.round(at), ms });
      at += ms + uniform(2000, 6000);
    }
  }
  return pauses;
}

const schedule = pauseSchedule(opts);

// ------------------------------------------------------------------------------------ agents

async function portFree(port) {
  const tcp = await new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
  if (!tcp) return false;
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    s.once('error', () => resolve(false));
    s.bind(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

const taken = new Set();
async function freePort() {
  for (let attempt = 0; attempt < 200; ++attempt) {
    const port = 20000 + Math.floor(Math.random() * 30000);
    if (!taken.has(port) && await portFree(port)) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no free port on 127.0.0.1');
}

function httpGet(port, urlPath, timeoutMs = 5000) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, timeout: timeoutMs, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${urlPath}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

async function getJson(port, urlPath) {
  const r = await httpGet(port, urlPath);
  if (r.status !== 200) throw new Error(`GET ${urlPath}: HTTP ${r.status}: ${r.body.slice(0, 200)}`);
  return JSON.parse(r.body);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(200);
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-capture-'));
const token = crypto.randomBytes(16).toString('hex');
const tokenFile = path.join(dir, 'token');
writeFileSync(tokenFile, token + '\n', { mode: 0o600 });
const agents = [];

function stopAgents() {
  for (const a of agents) if (a.alive) a.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
process.on('exit', stopAgents);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    process.stderr.write(`capture_trace: ${signal}: stopping the agents, no trace written\n`);
    process.exit(130);
  });
}

async function startAgent(name, seedPort) {
  const port = await freePort();
  const httpPort = await freePort();
  const args = ['agent', '--name', name, '--bind', `127.0.0.1:${port}`, '--http', `127.0.0.1:${httpPort}`,
                '--profile', opts.profile, '--token-file', tokenFile, '--web', 'none', '--quiet'];
  if (seedPort) args.push('--join', `127.0.0.1:${seedPort}`);
  const child = spawn(opts.vigil, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const agent = { name, port, httpPort, child, log: '', alive: true };
  // Only the tail is kept, for the error message if it exits.
  const keep = (c) => { agent.log = (agent.log + c).slice(-4000); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.on('exit', (code, signal) => {
    agent.alive = false;
    agent.exit = signal ?? code;
  });
  agents.push(agent);
  await waitFor(async () => {
    if (!agent.alive) throw new Error(`${name} exited (${agent.exit}):\n${agent.log}`);
    try { return (await httpGet(httpPort, '/v1/self', 500)).status === 200; } catch { return false; }
  }, 15000, `${name} to serve /v1/self`);
  return agent;
}

async function members(agent) {
  const list = await getJson(agent.httpPort, '/v1/members');
  return Object.fromEntries(list.map((m) => [m.name, m.state]));
}

async function allAlive() {
  for (const a of agents) {
    const view = await members(a);
    if (agents.some((b) => b !== a && view[b.name] !== 'alive')) return false;
  }
  return true;
}

// ---------------------------------------------------------------- a minimal WebSocket client

// One command on a connection of its own: upgrade with the vigil.v1 subprotocol, send one masked
// text frame, read frames until the agent's ok or error. Enough for a few commands an hour,
// with no package to install.
function command(agent, body, timeoutMs = 10000) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(agent.httpPort, '127.0.0.1');
    const timer = setTimeout(() => socket.destroy(new Error(`${body.type} to ${agent.name}: no reply within ${timeoutMs} ms`)), timeoutMs);
    const done = (err, value) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err); else resolve(value);
    };
    socket.once('error', (e) => done(e));
    socket.on('connect', () => socket.write(
      `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${agent.httpPort}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
      'Sec-WebSocket-Protocol: vigil.v1\r\n\r\n'));
    let buffer = Buffer.alloc(0);
    let upgraded = false;
    let message = [];
    socket.on('data', (d) => {
      buffer = Buffer.concat([buffer, d]);
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        if (!head.startsWith('HTTP/1.1 101')) return done(new Error(`${agent.name} refused the WebSocket: ${head.split('\r\n')[0]}`));
        upgraded = true;
        buffer = buffer.subarray(end + 4);
        socket.write(frame(JSON.stringify({ ...body, token })));
      }
      for (;;) {
        if (buffer.length < 2) return;
        const opcode = buffer[0] & 0x0f;
        let length = buffer[1] & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (buffer.length < 4) return;
          length = buffer.readUInt16BE(2);
          offset = 4;
        } else if (length === 127) {
          if (buffer.length < 10) return;
          length = Number(buffer.readBigUInt64BE(2));
          offset = 10;
        }
        if (buffer.length < offset + length) return;
        const payload = buffer.subarray(offset, offset + length);
        const fin = (buffer[0] & 0x80) !== 0;
        buffer = buffer.subarray(offset + length);
        if (opcode === 8) return done(new Error(`${agent.name} closed the WebSocket`));
        if (opcode !== 0 && opcode !== 1) continue;  // pings and binary frames: not replies
        message.push(payload);
        if (!fin) continue;
        const reply = JSON.parse(Buffer.concat(message).toString('utf8'));
        message = [];
        if (reply.type === 'ok') return done(null, reply);
        if (reply.type === 'error') return done(new Error(`${body.type} to ${agent.name}: ${reply.code}: ${reply.message}`));
      }
    });
  });
}

function frame(text) {
  const payload = Buffer.from(text);
  if (payload.length > 65535) throw new Error('command too long');
  const mask = crypto.randomBytes(4);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
  const head = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length])
    : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([head, mask, masked]);
}

// --------------------------------------------------------------------------------- recording

function parseTrace(csv) {
  return csv.split('\n').filter((l) => l !== '' && !l.startsWith('#') && l !== 'time_ms,sender');
}

const log = (text) => process.stderr.write(`capture_trace: ${text}\n`);
const minutes = (ms) => (ms / 60000).toFixed(1);

async function main() {
  log(`starting ${opts.agents} agents (${opts.profile} profile) from ${opts.vigil}`);
  await startAgent('agent-0');
  for (let i = 1; i < opts.agents; ++i) await startAgent(`agent-${i}`, agents[0].port);
  await waitFor(allAlive, 60000, 'every agent to see every other alive');
  const [observer, observed] = agents;
  if (opts.loss > 0) await command(observer, { type: 'inject', loss: opts.loss, direction: 'receive' });
  const started = Date.now();
  const startedText = new Date(started).toISOString();
  log(`recording ${opts.rawDuration} from ${startedText}; ${schedule.length} pauses scheduled` +
      (schedule.length ? `, the first at ${minutes(schedule[0].at)} min` : ''));

  let next = 0;
  let paused = 0;
  let pausedMs = 0;
  let nextReport = started + 60000;
  let suspectSightings = 0;
  const notAlive = [];
  for (;;) {
    for (const a of agents) if (!a.alive) throw new Error(`${a.name} exited (${a.exit}):\n${a.log}`);
    const now = Date.now();
    if (now - started >= opts.duration) break;
    if (next < schedule.length && now - started >= schedule[next].at) {
      await command(observed, { type: 'pause', ms: schedule[next].ms });
      ++paused;
      pausedMs += schedule[next].ms;
      ++next;
    }
    if (now >= nextReport) {
      nextReport += 60000;
      const view = await members(observer);
      const trace = await httpGet(observer.httpPort, `/v1/trace?peer=${observed.name}`);
      const rows = trace.status === 200 ? parseTrace(trace.body).length : 0;
      log(`${minutes(now - started)}/${minutes(opts.duration)} min: ${rows} rows, ${paused}/${schedule.length} pauses, ` +
          `${observed.name} ${view[observed.name] ?? 'unknown'} at ${observer.name}`);
    }
    // Suspicions show only while they last: sample the observer's view of its peer often.
    const state = (await members(observer))[observed.name];
    if (state === 'suspect') ++suspectSightings;
    if (state !== 'alive' && state !== 'suspect') notAlive.push(`${minutes(now - started)} min: ${state}`);
    const wake = Math.min(started + opts.duration, next < schedule.length ? started + schedule[next].at : Infinity,
                          nextReport, Date.now() + 500);
    await sleep(Math.max(0, wake - Date.now()));
  }

  const trace = await httpGet(observer.httpPort, `/v1/trace?peer=${observed.name}`);
  if (trace.status !== 200) throw new Error(`GET /v1/trace?peer=${observed.name}: HTTP ${trace.status}: ${trace.body}`);
  // Acks from before the faults began (while the agents joined) are not part of the setting.
  let body = trace.body.split('\n').filter((l) => l === '' || l.startsWith('#') || l === 'time_ms,sender' ||
                                                     Number(l.split(',')[0]) >= started).join('\n');
  if (!body.endsWith('\n')) body += '\n';
  const rows = parseTrace(body).length;
  const finalStates = [];
  for (const a of agents) {
    const view = await members(a);
    for (const b of agents) if (b !== a) finalStates.push(`${a.name} sees ${b.name} ${view[b.name] ?? 'unknown'}`);
  }
  const pauseText = schedule.map((p) => `${(p.at / 1000).toFixed(1)}s+${p.ms}ms`).join(' ');
  const header = [
    `# capture_trace: ${observer.name}'s ack arrivals from ${observed.name}, ${opts.agents} agents on loopback, profile ${opts.profile}`,
    `# recorded ${startedText} for ${opts.rawDuration} (${rows} rows)`,
    `# faults: ${opts.loss * 100} % receive-side loss at ${observer.name}; ` +
      (schedule.length ? `${schedule.length} pauses of ${observed.name} (${(pausedMs / 1000).toFixed(1)} s in all) in bursts ` +
        `of 2-3, 0.8-3 s each, 2-6 s apart, a burst every ${opts.rawBurstEvery} x U[0.5, 1.5], PRNG seed ${opts.seed}`
        : 'no pauses'),
    ...(schedule.length ? [`# pauses (start after recording began + length): ${pauseText}`] : []),
    `# at the end: ${finalStates.join(', ')}; ${observed.name} seen suspect in ${suspectSightings} samples ` +
      `(every 0.5 s); not alive nor suspect: ${notAlive.length ? notAlive.join('; ') : 'never'}`,
  ];
  writeFileSync(opts.out, header.join('\n') + '\n' + body);
  log(`wrote ${rows} rows to ${opts.out}`);
  log(finalStates.join(', '));
  if (notAlive.length || finalStates.some((s) => !s.endsWith(' alive'))) {
    log(`warning: an agent was declared dead or left during the recording: ${notAlive.join('; ')}`);
    return 1;
  }
  return 0;
}

main().then((code) => process.exit(code), (err) => {
  log(err && err.message ? err.message : String(err));
  process.exit(1);
});
