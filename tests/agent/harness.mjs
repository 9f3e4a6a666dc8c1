// Shared pieces of the multi-process agent tests: agents on loopback ports, HTTP and WebSocket
// clients, and bounded waiting for conditions (never a bare sleep).
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';

export function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) args[argv[i].replace(/^--/, '')] = argv[i + 1];
  if (!args.vigil) throw new Error('missing --vigil');
  return args;
}

export function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
  console.log(`ok - ${message}`);
}

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

// The kernel's range for the local ports of outgoing connections. A port taken from it can be
// free when tested and, a moment later, the source port of some process's connection (a Serf
// agent's stream, a browser's fetch), so an agent told to listen there fails to bind.
// Returns where that range starts.
function ephemeralStart() {
  try {
    const lo = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (lo > 0) return lo;
  } catch { /* not Linux: assume its default */ }
  return 32768;
}

// A port free for both TCP and UDP (agents bind both on their protocol port), from 10000 up to
// the ephemeral range.
export async function freePort() {
  const lo = ephemeralStart();
  if (lo - 10000 < 1000) throw new Error(`the ephemeral port range starts at ${lo}: too few ports below it for tests`);
  for (let attempt = 0; attempt < 200; ++attempt) {
    const port = 10000 + Math.floor(Math.random() * (lo - 10000));
    if (await portFree(port)) return port;
  }
  throw new Error('no free port');
}

// Polls `probe` (sync or async) until it returns a truthy value or `timeoutMs` passes.
export async function waitFor(probe, timeoutMs, what, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export function httpGet(port, urlPath, timeoutMs = 2000) {
  return new Promise((resolve, reject) => {
    // A connection of its own: polls reusing an idle keep-alive connection race the server's
    // closing of it, which is not what these tests are about.
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, timeout: timeoutMs, agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

// One counter or gauge from an agent's /metrics (NaN when it is not there).
export async function metric(agent, name, timeoutMs = 5000) {
  const line = (await httpGet(agent.httpPort, '/metrics', timeoutMs)).body.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? NaN : Number(line.split(' ')[1]);
}

export async function getJson(port, urlPath) {
  const r = await httpGet(port, urlPath);
  return JSON.parse(r.body);
}

export class Cluster {
  // `flags`: more `vigil agent` options for every agent, e.g. ['--probe-interval', '25ms'].
  constructor(vigil, profile = 'local', flags = []) {
    this.vigil = vigil;
    this.profile = profile;
    this.flags = flags;
    this.agents = [];
    this.token = 'test-token-' + Math.random().toString(16).slice(2);
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-agents-'));
    this.tokenFile = path.join(this.dir, 'token');
    writeFileSync(this.tokenFile, this.token + '\n');
  }

  async start(count) {
    for (let i = 0; i < count; ++i) await this.add(`agent-${i}`);
    return this;
  }

  async add(name) {
    const port = await freePort();
    const httpPort = await freePort();
    const args = ['agent', '--name', name, '--bind', `127.0.0.1:${port}`, '--http', `127.0.0.1:${httpPort}`,
                  '--profile', this.profile, '--token-file', this.tokenFile, '--web', 'none', ...this.flags];
    if (this.agents.length > 0) args.push('--join', `127.0.0.1:${this.agents[0].port}`);
    const child = spawn(this.vigil, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const agent = { name, port, httpPort, child, log: '', alive: true };
    child.stdout.on('data', (c) => { agent.log += c; });
    child.stderr.on('data', (c) => { agent.log += c; });
    child.on('exit', () => { agent.alive = false; });
    this.agents.push(agent);
    await waitFor(async () => {
      if (!agent.alive) throw new Error(`${name} exited: ${agent.log}`);
      try { return (await httpGet(httpPort, '/v1/self', 500)).status === 200; } catch { return false; }
    }, 10000, `${name} to serve /v1/self`);
    return agent;
  }

  byName(name) { return this.agents.find((a) => a.name === name); }
  running() { return this.agents.filter((a) => a.alive); }

  async members(agent) {
    const list = await getJson(agent.httpPort, '/v1/members');
    return Object.fromEntries(list.map((m) => [m.name, m]));
  }

  // Every running agent sees every other running agent in `state`.
  async allSee(state, among = this.running()) {
    for (const observer of this.running()) {
      const view = await this.members(observer);
      for (const other of among)
        if (other !== observer && (!view[other.name] || view[other.name].state !== state)) return false;
    }
    return true;
  }

  stop() {
    for (const a of this.agents) if (a.alive) a.child.kill('SIGKILL');
  }
}

// A WebSocket viewer of one agent that records every message.
export class Viewer {
  constructor(agent) {
    this.messages = [];
    this.ws = new WebSocket(`ws://127.0.0.1:${agent.httpPort}/ws`, 'vigil.v1');
    this.ws.on('message', (data) => this.messages.push(JSON.parse(data.toString())));
    this.open = new Promise((resolve, reject) => {
      this.ws.once('open', resolve);
      this.ws.once('error', reject);
    });
  }

  send(obj) { this.ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj)); }

  async next(predicate, timeoutMs, what) {
    return waitFor(() => this.messages.find(predicate), timeoutMs, what, 50);
  }

  close() { this.ws.terminate(); }
}

export function installCleanup(cluster) {
  const bail = (err) => {
    console.error(err && err.stack ? err.stack : err);
    for (const a of cluster.agents) if (a.log) console.error(`--- ${a.name} ---\n${a.log.slice(-3000)}`);
    cluster.stop();
    process.exit(1);
  };
  process.on('uncaughtException', bail);
  process.on('unhandledRejection', bail);
}

// A minimal WebSocket client on a raw socket, like a stuck browser tab: it upgrades with vigil.v1,
// then never reads (it may still write with wsFrame). `closedByAgent` turns true when the agent
// closes it: a FIN read once reading resumes, or a reset, which shows even while paused.
export function stuckViewer(port) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('error', reject);
    s.on('close', () => { s.closedByAgent = true; });
    s.on('connect', () => s.write('GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
                                  `Sec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\n` +
                                  'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: vigil.v1\r\n\r\n'));
    let buffer = Buffer.alloc(0);
    const onData = (d) => {
      buffer = Buffer.concat([buffer, d]);
      if (buffer.indexOf('\r\n\r\n') < 0) return;
      s.off('data', onData);
      if (!buffer.toString('latin1').startsWith('HTTP/1.1 101')) return reject(new Error(buffer.toString()));
      s.pause();  // from now on nothing is read
      resolve(s);
    };
    s.on('data', onData);
  });
}

// One masked client text frame (payloads under 126 bytes).
export function wsFrame(text) {
  const payload = Buffer.from(text);
  const mask = crypto.randomBytes(4);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}
