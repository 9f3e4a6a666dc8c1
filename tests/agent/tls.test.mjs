// The live view over TLS: an agent started with --tls-cert/--tls-key answers HTTPS and wss on its
// one port (HTTP/1.1 only, so browsers' WebSockets take the HTTP/1.1 upgrade), gives nothing to a
// plain-HTTP client, and refuses bad certificate options with a message naming the file.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import WebSocket from 'ws';
import { check, freePort, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-tls-'));
const certFile = path.join(dir, 'cert.pem');
const keyFile = path.join(dir, 'key.pem');
const otherKeyFile = path.join(dir, 'other-key.pem');
const garbageFile = path.join(dir, 'garbage.pem');
const tokenFile = path.join(dir, 'token');
writeFileSync(tokenFile, 'tls-test-token\n');
writeFileSync(garbageFile, 'not a certificate\n');

function openssl(argv) {
  const r = spawnSync('openssl', argv, { encoding: 'utf8', timeout: 20000 });
  if (r.status !== 0) throw new Error(`openssl ${argv.join(' ')} failed: ${r.stderr}`);
}
openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
         '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
         '-keyout', keyFile, '-out', certFile]);
openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', otherKeyFile]);
const ca = readFileSync(certFile);

let agent = null;
const bail = (err) => {
  console.error(err && err.stack ? err.stack : err);
  if (agent) {
    console.error(`--- agent ---\n${agent.log.slice(-3000)}`);
    if (agent.alive) agent.child.kill('SIGKILL');
  }
  process.exit(1);
};
process.on('uncaughtException', bail);
process.on('unhandledRejection', bail);

function httpsGet(port, urlPath, timeoutMs = 3000) {
  return new Promise((resolve, reject) => {
    const req = https.get({ host: '127.0.0.1', port, path: urlPath, ca, timeout: timeoutMs, agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

// --- Bad options: refused before anything listens. A check that wrongly let the agent start
// would leave it running until the timeout kills it, which fails the status check.
async function refused(extra, expectStatus, expectText, what) {
  const argv = ['agent', '--name', 'bad', '--bind', `127.0.0.1:${await freePort()}`,
                '--http', `127.0.0.1:${await freePort()}`, '--token-file', tokenFile, '--web', 'none', ...extra];
  const r = spawnSync(args.vigil, argv, { encoding: 'utf8', timeout: 5000 });
  check(r.status === expectStatus && r.stderr.includes(expectText),
        `${what}: exit ${r.status} (want ${expectStatus}), stderr ${JSON.stringify(r.stderr.trim())}`);
}
await refused(['--tls-cert', certFile], 2, '--tls-cert needs --tls-key', 'a certificate without its key');
await refused(['--tls-key', keyFile], 2, '--tls-key needs --tls-cert', 'a key without its certificate');
await refused(['--tls-cert', path.join(dir, 'missing.pem'), '--tls-key', keyFile], 1,
              `cannot read the TLS certificate file '${path.join(dir, 'missing.pem')}'`, 'a missing certificate file');
await refused(['--tls-cert', certFile, '--tls-key', path.join(dir, 'nokey.pem')], 1,
              `cannot read the TLS key file '${path.join(dir, 'nokey.pem')}'`, 'a missing key file');
await refused(['--tls-cert', garbageFile, '--tls-key', keyFile], 2, `'${garbageFile}' holds no PEM certificate`,
              'a certificate file that is not PEM');
await refused(['--tls-cert', certFile, '--tls-key', garbageFile], 2, `'${garbageFile}' holds no PEM private key`,
              'a key file that is not PEM');
await refused(['--tls-cert', certFile, '--tls-key', otherKeyFile], 2,
              `the key in '${otherKeyFile}' does not match the certificate in '${certFile}'`, 'a key of another certificate');

// --- A TLS agent.
const httpPort = await freePort();
const child = spawn(args.vigil, ['agent', '--name', 'secure', '--bind', `127.0.0.1:${await freePort()}`,
                                 '--http', `127.0.0.1:${httpPort}`, '--profile', 'local', '--token-file', tokenFile,
                                 '--web', 'none', '--tls-cert', certFile, '--tls-key', keyFile],
                    { stdio: ['ignore', 'pipe', 'pipe'] });
agent = { child, log: '', alive: true };
child.stdout.on('data', (c) => { agent.log += c; });
child.stderr.on('data', (c) => { agent.log += c; });
child.on('exit', () => { agent.alive = false; });
const self = await waitFor(async () => {
  if (!agent.alive) throw new Error(`the agent exited: ${agent.log}`);
  try {
    const r = await httpsGet(httpPort, '/v1/self', 1000);
    return r.status === 200 ? JSON.parse(r.body) : false;
  } catch { return false; }
}, 10000, 'the agent to answer over HTTPS');
check(self.name === 'secure', `GET https://127.0.0.1:${httpPort}/v1/self trusting the test certificate: name ${self.name}`);
// The banner reaches this process through a pipe, possibly after the first answer over HTTPS.
const banner = `live view https://127.0.0.1:${httpPort}/`;
await waitFor(async () => agent.log.includes(banner), 5000, 'the agent to print its live view URL').catch(() => {});
check(agent.log.includes(banner), 'the printed live view URL is https://');

// Offered h2 first, the server still picks HTTP/1.1: browsers then open the WebSocket with the
// HTTP/1.1 upgrade the server answers.
const alpn = await new Promise((resolve, reject) => {
  const s = tls.connect({ host: '127.0.0.1', port: httpPort, ca, servername: 'localhost',
                          ALPNProtocols: ['h2', 'http/1.1'] }, () => { resolve(s.alpnProtocol); s.destroy(); });
  s.on('error', reject);
});
check(alpn === 'http/1.1', `ALPN with h2 offered picks ${alpn}`);

// Plain HTTP to the TLS port: the bytes are not a TLS handshake, nothing of the agent comes back.
const plain = await new Promise((resolve) => {
  const s = net.connect(httpPort, '127.0.0.1', () => s.write(`GET /v1/self HTTP/1.1\r\nHost: 127.0.0.1:${httpPort}\r\n\r\n`));
  let got = '';
  const timer = setTimeout(() => { s.destroy(); resolve({ got, closed: false }); }, 3000);
  s.on('data', (c) => { got += c.toString('latin1'); });
  s.on('close', () => { clearTimeout(timer); resolve({ got, closed: true }); });
  s.on('error', () => {});
});
check(!plain.got.includes('secure') && !plain.got.includes('HTTP/1.1 200'),
      `plain HTTP to the TLS port gets no answer (${plain.got.length} bytes back, ${plain.closed ? 'closed' : 'left open'})`);
check(plain.closed, 'the server closes a plain-HTTP connection to its TLS port');

// wss with the live view's subprotocol: the snapshot arrives.
async function wss(headers = {}) {
  const ws = new WebSocket(`wss://127.0.0.1:${httpPort}/ws`, 'vigil.v1', { ca, headers });
  const messages = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  const opened = await new Promise((resolve) => {
    ws.once('open', () => resolve(true));
    ws.once('error', () => resolve(false));
  });
  return { ws, messages, opened };
}
const viewer = await wss();
check(viewer.opened && viewer.ws.protocol === 'vigil.v1', 'a wss:// client opens /ws with subprotocol vigil.v1');
const snapshot = await waitFor(() => viewer.messages.find((m) => m.type === 'snapshot'), 5000, 'the snapshot over wss');
check(snapshot.self && snapshot.self.name === 'secure', 'the snapshot over wss describes the agent');
viewer.ws.send(JSON.stringify({ type: 'inject', loss: 0, token: 'tls-test-token' }));
await waitFor(() => viewer.messages.find((m) => m.type === 'ok' && m.command === 'inject'), 5000, 'a command over wss');
check(true, 'a command with the token is carried out over wss');
viewer.ws.terminate();

// The agent's own pages are now https:// pages: that origin may open /ws, the http:// one may not.
const own = await wss({ Origin: `https://127.0.0.1:${httpPort}` });
check(own.opened, `a page from https://127.0.0.1:${httpPort} may open wss://`);
own.ws.terminate();
const downgraded = await wss({ Origin: `http://127.0.0.1:${httpPort}` });
check(!downgraded.opened, `a page from http://127.0.0.1:${httpPort} may not`);

const metrics = await httpsGet(httpPort, '/metrics');
check(metrics.status === 200 && /^vigil_auth_failures_total 0$/m.test(metrics.body),
      '/metrics over HTTPS, with the token failure counter');

// 400 connections that never finish (or start) their TLS handshake, more than the agent takes
// at once (256): each new connection closes the one idle the longest, so an HTTPS client is
// still answered at once instead of waiting out the handshake deadline (5 s).
{
  const kHalfOpen = 400;
  // A TLS record header announcing a 512-byte ClientHello, and only its first bytes.
  const hello = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]);
  const held = [];
  for (let i = 0; i < kHalfOpen; ++i) {
    const s = net.connect(httpPort, '127.0.0.1');
    if (i % 2 === 0) s.on('connect', () => s.write(hello));  // half of them: a handshake begun
    s.on('error', () => {});
    held.push(s);
  }
  await waitFor(() => held.every((s) => !s.connecting), 10000, 'the half-open connections to be made');
  const t0 = Date.now();
  const r = await httpsGet(httpPort, '/v1/self', 3000);
  const ms = Date.now() - t0;
  check(r.status === 200 && ms < 2000, `with ${kHalfOpen} half-open TLS connections held, HTTPS answers in ${ms} ms`);
  const m = await httpsGet(httpPort, '/metrics');
  const evicted = Number(/^vigil_http_connections_evicted_total (\d+)$/m.exec(m.body)[1]);
  check(evicted >= kHalfOpen - 256, `idle connections were closed to make room (${evicted})`);
  for (const s of held) s.destroy();
}

child.kill('SIGTERM');
await waitFor(() => !agent.alive, 5000, 'the agent to stop');

// `vigil serve` takes the same flags for the web app alone.
const webDir = path.join(dir, 'web');
mkdirSync(webDir);
writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><title>tls page</title>\n');
const servePort = await freePort();
const serve = spawn(args.vigil, ['serve', '--http', `127.0.0.1:${servePort}`, '--web', webDir,
                                 '--tls-cert', certFile, '--tls-key', keyFile], { stdio: ['ignore', 'pipe', 'pipe'] });
let serveLog = '';
let serveAlive = true;
serve.stdout.on('data', (c) => { serveLog += c; });
serve.stderr.on('data', (c) => { serveLog += c; });
serve.on('exit', () => { serveAlive = false; });
const page = await waitFor(async () => {
  if (!serveAlive) throw new Error(`vigil serve exited: ${serveLog}`);
  try {
    const r = await httpsGet(servePort, '/', 1000);
    return r.status === 200 ? r.body : false;
  } catch { return false; }
}, 10000, 'vigil serve to answer over HTTPS');
check(page.includes('tls page') && serveLog.includes(`https://127.0.0.1:${servePort}/`),
      'vigil serve --tls-cert/--tls-key serves the web app over HTTPS and prints an https:// URL');
serve.kill('SIGTERM');
await waitFor(() => !serveAlive, 5000, 'vigil serve to stop');
console.log('tls: all checks passed');
