// Every listener binds exactly the address it was given. The kernel's own table of listening
// sockets (/proc/net/tcp and tcp6, matched to the process's descriptors) is read for `vigil
// agent` (plain and TLS), `vigil serve` and `vigil demo` with its agents: each socket must sit on
// the address asked for and nowhere else. An explicit 0.0.0.0 or [::] listens everywhere, a name
// on each of its addresses, and an address that cannot be bound stops the program at start
// (exit 1, naming the address) instead of falling back to every interface.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { check, freePort, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-listen-'));
const web = path.join(dir, 'web');
spawnSync('mkdir', ['-p', web]);
writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>listen</title>\n');
const tokenFile = path.join(dir, 'token');
writeFileSync(tokenFile, 'listen-test-token\n');

const running = [];
const bail = (err) => {
  console.error(err && err.stack ? err.stack : err);
  for (const p of running) {
    console.error(`--- ${p.what} ---\n${p.out.slice(-2000)}`);
    p.child.kill('SIGKILL');
  }
  process.exit(1);
};
process.on('uncaughtException', bail);
process.on('unhandledRejection', bail);

function start(what, argv) {
  const child = spawn(args.vigil, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { what, child, out: '', exited: null };
  child.stdout.on('data', (d) => { p.out += d; });
  child.stderr.on('data', (d) => { p.out += d; });
  child.on('exit', (code) => { p.exited = code; });
  running.push(p);
  return p;
}
async function stop(p) {
  if (p.exited === null) {
    p.child.kill('SIGTERM');
    await waitFor(() => p.exited !== null, 10000, `${p.what} to stop`);
  }
  running.splice(running.indexOf(p), 1);
}

// "a.b.c.d:port" or "[v6]:port" for one row of /proc/net/tcp{,6}.
function decodeAddress(hex, v6) {
  const [addr, port] = hex.split(':');
  const p = parseInt(port, 16);
  if (!v6) {
    const n = addr.match(/../g).reverse().map((b) => parseInt(b, 16));
    return `${n.join('.')}:${p}`;
  }
  // Four 32-bit words, each in host (little-endian) order.
  const bytes = [];
  for (let w = 0; w < 4; ++w) bytes.push(...addr.slice(8 * w, 8 * w + 8).match(/../g).reverse());
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes[i] + bytes[i + 1]);
  // The URL parser writes an IPv6 address in its canonical short form, brackets included.
  return `${new URL(`http://[${groups.join(':')}]/`).hostname}:${p}`;
}

// The TCP sockets `pid` listens on, as the kernel has them bound.
function listening(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = readlinkSync(`/proc/${pid}/fd/${fd}`).match(/^socket:\[(\d+)\]$/);
      if (m) inodes.add(m[1]);
    } catch { /* closed meanwhile */ }
  }
  const out = [];
  for (const [file, v6] of [['/proc/net/tcp', false], ['/proc/net/tcp6', true]]) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue;  // 0A: LISTEN
      if (inodes.has(f[9])) out.push(decodeAddress(f[1], v6));
    }
  }
  return out.sort();
}
const same = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
const ipv6 = readFileSync('/proc/net/if_inet6', 'utf8').split('\n').some((l) => / lo$/.test(l.trim()));

// Waits until `p` listens on `expected` (a program binds before it says so, and its sockets are
// all open once the first answers), then requires exactly those sockets.
async function expectListening(p, expected, what) {
  await waitFor(() => p.exited !== null || expected.every((a) => listening(p.child.pid).includes(a)),
                10000, `${p.what} to listen`);
  check(p.exited === null, `${p.what} is running`);
  const got = listening(p.child.pid);
  check(same(got, expected), `${what}: listens on ${got.join(', ')} (expected ${expected.join(', ')})`);
}

async function expectRefusedAtStart(what, argv, address) {
  const p = start(what, argv);
  await waitFor(() => p.exited !== null, 10000, `${what} to exit`);
  running.splice(running.indexOf(p), 1);
  check(p.exited === 1, `${what}: exits 1 (got ${p.exited})`);
  check(p.out.includes(address), `${what}: the message names ${address} (${p.out.trim().split('\n').pop()})`);
}

// --- vigil agent: the protocol port (TCP for push-pull) and the live view, each where asked.
{
  const proto = await freePort();
  const http = await freePort();
  const p = start('agent', ['agent', '--name', 'a', '--bind', `127.0.0.1:${proto}`, '--http', `127.0.0.1:${http}`,
                            '--web', 'none', '--quiet']);
  await expectListening(p, [`127.0.0.1:${proto}`, `127.0.0.1:${http}`], 'vigil agent on 127.0.0.1');
  await stop(p);
}
if (ipv6) {
  const proto = await freePort();
  const http = await freePort();
  const p = start('agent [::1]', ['agent', '--name', 'a', '--bind', `127.0.0.1:${proto}`, '--http', `[::1]:${http}`,
                                  '--web', 'none', '--quiet']);
  await expectListening(p, [`127.0.0.1:${proto}`, `[::1]:${http}`], 'vigil agent --http [::1]');
  await stop(p);
}
{
  // A name: every address it resolves to, and no other.
  const proto = await freePort();
  const http = await freePort();
  const p = start('agent localhost', ['agent', '--name', 'a', '--bind', `127.0.0.1:${proto}`, '--http',
                                      `localhost:${http}`, '--web', 'none', '--quiet']);
  const expected = [`127.0.0.1:${proto}`, `127.0.0.1:${http}`];
  const resolved = spawnSync('getent', ['ahosts', 'localhost'], { encoding: 'utf8' }).stdout;
  if (ipv6 && /^::1\s/m.test(resolved)) expected.push(`[::1]:${http}`);
  await expectListening(p, expected, 'vigil agent --http localhost');
  await stop(p);
}
{
  // TLS: the same listener, over HTTPS.
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
                                  '-days', '1', '-subj', '/CN=localhost', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl: ${r.stderr}`);
  const proto = await freePort();
  const http = await freePort();
  const p = start('agent tls', ['agent', '--name', 'a', '--bind', `127.0.0.1:${proto}`, '--http', `127.0.0.1:${http}`,
                                '--tls-cert', cert, '--tls-key', key, '--web', 'none', '--quiet']);
  await expectListening(p, [`127.0.0.1:${proto}`, `127.0.0.1:${http}`], 'vigil agent with TLS on 127.0.0.1');
  await stop(p);
}

// --- vigil serve.
{
  const port = await freePort();
  const p = start('serve', ['serve', '--http', `127.0.0.1:${port}`, '--web', web]);
  await expectListening(p, [`127.0.0.1:${port}`], 'vigil serve on 127.0.0.1');
  await stop(p);
}
{
  // Asked for explicitly, every interface.
  const port = await freePort();
  const p = start('serve 0.0.0.0', ['serve', '--http', `0.0.0.0:${port}`, '--web', web]);
  await expectListening(p, [`0.0.0.0:${port}`], 'vigil serve --http 0.0.0.0');
  await stop(p);
}
if (ipv6) {
  const port = await freePort();
  const p = start('serve [::]', ['serve', '--http', `[::]:${port}`, '--web', web]);
  await expectListening(p, [`[::]:${port}`], 'vigil serve --http [::] (IPv6 and, dual-stack, IPv4)');
  await stop(p);
}

// --- vigil demo: the web app's server and each agent's protocol port and live view.
{
  const port = await freePort();
  const p = start('demo', ['demo', '--nodes', '2', '--http-port', String(port), '--web', web]);
  await waitFor(() => p.exited !== null || /open http:/.test(p.out), 20000, 'the demo to start');
  check(p.exited === null, 'vigil demo is running');
  check(same(listening(p.child.pid), [`127.0.0.1:${port}`]), `vigil demo's web app listens on 127.0.0.1:${port} only`);
  const children = readFileSync(`/proc/${p.child.pid}/task/${p.child.pid}/children`, 'utf8').trim().split(/\s+/);
  check(children.length === 2, `two agents run (${children.join(', ')})`);
  for (const pid of children) {
    const got = listening(pid);
    check(got.length === 2 && got.every((a) => a.startsWith('127.0.0.1:')),
          `demo agent ${pid} listens on loopback only (${got.join(', ')})`);
  }
  await stop(p);
}

// --- Addresses that cannot be honoured: an error at start, never every interface instead.
{
  const port = await freePort();
  await expectRefusedAtStart('serve on an address of no interface',
                             ['serve', '--http', `192.0.2.1:${port}`, '--web', web], `192.0.2.1:${port}`);
  const proto = await freePort();
  await expectRefusedAtStart('agent on an address of no interface',
                             ['agent', '--name', 'a', '--bind', `127.0.0.1:${proto}`, '--http', `192.0.2.1:${port}`,
                              '--token-file', tokenFile, '--web', 'none'], `192.0.2.1:${port}`);
  // A port another program holds.
  const holder = net.createServer();
  await new Promise((resolve) => holder.listen(port, '127.0.0.1', resolve));
  await expectRefusedAtStart('serve on a port in use', ['serve', '--http', `127.0.0.1:${port}`, '--web', web],
                             `127.0.0.1:${port}`);
  await expectRefusedAtStart('demo on a port in use', ['demo', '--nodes', '1', '--http-port', String(port), '--web', web],
                             `127.0.0.1:${port}`);
  holder.close();
}
console.log('listen: all checks passed');
