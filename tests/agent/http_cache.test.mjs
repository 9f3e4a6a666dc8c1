// The web app's files over HTTP: revalidation (ETag, Last-Modified, 304), precompressed variants
// chosen by Accept-Encoding (never a stale one), HEAD, MIME types, refusal of paths out of the web
// directory, and scripts/precompress.sh that writes the variants. `vigil serve` first, then an
// agent's server, which must answer the same way and count its refusals in /metrics.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { check, freePort, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const precompress = fileURLToPath(new URL('../../scripts/precompress.sh', import.meta.url));

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-http-cache-'));
const web = path.join(root, 'web');
fs.mkdirSync(web);
const children = [];
function cleanup() {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  fs.rmSync(root, { recursive: true, force: true });
}
process.on('uncaughtException', (e) => {
  console.error(e.stack);
  for (const c of children) if (c.log) console.error(`--- ${c.spawnargs.slice(1, 2)} ---\n${c.log.slice(-3000)}`);
  cleanup();
  process.exit(1);
});

// ------------------------------------------------------------------------- the web directory

// Text that compresses (repetitive, as real markup is) and binary that does not.
const lines = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join('\n') + '\n';
const sources = {
  'index.html': lines(400, (i) => `<p class="row">row ${i} of the page, with the same words again</p>`),
  'app.js': lines(300, (i) => `export function f${i}(x) { return x * ${i} + 1; }`),
  'explainer.mjs': lines(200, (i) => `import { f${i} } from './app.js'; console.log(f${i}(2));`),
  'data.json': JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ id: i, name: `item ${i}` }))),
  'style.css': lines(200, (i) => `.c${i} { margin: ${i}px; padding: 0; color: #333; }`),
  'pic.svg': `<svg xmlns="http://www.w3.org/2000/svg">${lines(100, (i) => `<rect x="${i}" width="1" height="1"/>`)}</svg>`,
  'stale.html': lines(300, (i) => `<p>first version, line ${i}</p>`),
};
// A .wasm made of repeated instructions and a noisy tail: compressible, like a real module.
const wasm = Buffer.concat([Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]),
                            Buffer.alloc(200000, Buffer.from([0x20, 0x00, 0x41, 0x01, 0x6a])),
                            Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256))]);
const png = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 2654435761) % 251));
for (const [name, text] of Object.entries(sources)) fs.writeFileSync(path.join(web, name), text);
fs.writeFileSync(path.join(web, 'vigil.wasm'), wasm);
fs.writeFileSync(path.join(web, 'logo.png'), png);
fs.mkdirSync(path.join(web, 'docs'));
fs.writeFileSync(path.join(web, 'docs', 'index.html'), sources['index.html']);
fs.mkdirSync(path.join(web, 'docs', 'deep'));
fs.writeFileSync(path.join(web, 'docs', 'deep', 'page.html'), sources['index.html']);
fs.writeFileSync(path.join(web, 'docs', 'trace.csv'), lines(400, (i) => `${i * 100},node-${i % 7}`));
const content = (name) => fs.readFileSync(path.join(web, name));

// Outside the web directory, reachable only through traversal or a symbolic link.
const marker = `TOP-SECRET-${process.pid}-${Date.now()}`;
fs.writeFileSync(path.join(root, 'secret.html'), `<p>${marker}</p>\n`);
fs.writeFileSync(path.join(root, 'secret.txt'), `${marker}\n`);
fs.symlinkSync(path.join(root, 'secret.html'), path.join(web, 'leak.html'));
fs.symlinkSync(root, path.join(web, 'up'));

// ----------------------------------------------------------------------- scripts/precompress.sh

// Its summary line, on stderr.
function runPrecompress() {
  const run = spawnSync('bash', [precompress, web], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`precompress.sh failed: ${run.stderr}`);
  return run.stderr;
}
runPrecompress();
const compressed = ['index.html', 'app.js', 'explainer.mjs', 'data.json', 'style.css', 'pic.svg', 'vigil.wasm', 'stale.html'];
check(compressed.every((n) => fs.existsSync(path.join(web, `${n}.gz`)) && fs.existsSync(path.join(web, `${n}.br`))),
      'precompress.sh writes a .gz and a .br next to every text and WebAssembly file');
check(['docs/index.html', 'docs/trace.csv'].every((n) => fs.existsSync(path.join(web, `${n}.gz`)) &&
                                                          fs.existsSync(path.join(web, `${n}.br`))),
      'it compresses the folders one level down too (the heartbeat traces), CSV included');
check(!fs.existsSync(path.join(web, 'logo.png.gz')) && !fs.existsSync(path.join(web, 'docs', 'deep', 'page.html.gz')) &&
      !fs.existsSync(path.join(root, 'secret.html.gz')),
      'precompress.sh leaves other types, deeper folders and linked folders alone');
check(compressed.every((n) => zlib.gunzipSync(content(`${n}.gz`)).equals(content(n)) &&
                              zlib.brotliDecompressSync(content(`${n}.br`)).equals(content(n))),
      'every variant decompresses to its source, byte for byte');
check(fs.readdirSync(web).every((n) => !n.startsWith('.')), 'no temporary file is left behind');
const gzBefore = content('index.html.gz');
const brMtime = fs.statSync(path.join(web, 'index.html.br')).mtimeMs;
fs.rmSync(path.join(web, 'index.html.gz'));
fs.writeFileSync(path.join(web, 'orphan.js.gz'), 'no source');
fs.writeFileSync(path.join(web, 'archive.tar.gz'), 'not ours');
const rerun = runPrecompress();
check(content('index.html.gz').equals(gzBefore), 'gzip output is reproducible (-n: no name or time inside)');
check(fs.statSync(path.join(web, 'index.html.br')).mtimeMs === brMtime,
      'an up-to-date variant is not rewritten');
check(!fs.existsSync(path.join(web, 'orphan.js.gz')) && fs.existsSync(path.join(web, 'archive.tar.gz')),
      'a variant whose source is gone is deleted; other archives are kept');
check(/: 1 written, 19 up to date, 1 removed/.test(rerun), `the rerun rewrites only what was missing (${rerun.trim()})`);

// The source changes after its variants were written: both are stale from now on.
const staleV2 = lines(300, (i) => `<p>second version, line ${i}</p>`);
fs.writeFileSync(path.join(web, 'stale.html'), staleV2);
const later = new Date(Date.now() + 60000);
fs.utimesSync(path.join(web, 'stale.html'), later, later);

// ------------------------------------------------------------------------------ HTTP helpers

function request(port, method, urlPath, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers, agent: false, timeout: 5000 },
                             (res) => {
                               const parts = [];
                               res.on('data', (c) => parts.push(c));
                               res.on('end', () => resolve({ status: res.statusCode, headers: res.headers,
                                                             body: Buffer.concat(parts) }));
                             });
    req.on('timeout', () => req.destroy(new Error(`timeout: ${method} ${urlPath}`)));
    req.on('error', reject);
    req.end();
  });
}

// The request line exactly as written (no client-side normalisation), and everything the server
// sends until it closes the connection.
function raw(port, requestLine, extra = '') {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const parts = [];
    socket.setTimeout(5000, () => socket.destroy(new Error(`timeout: ${requestLine}`)));
    socket.on('connect', () => socket.write(`${requestLine}\r\nHost: 127.0.0.1\r\nConnection: close\r\n${extra}\r\n`));
    socket.on('data', (c) => parts.push(c));
    socket.on('end', () => {
      const text = Buffer.concat(parts).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(text.split(' ')[1]), head: text.slice(0, split), body: text.slice(split + 4), text });
    });
    socket.on('error', reject);
  });
}

function decode(reply) {
  const coding = reply.headers['content-encoding'];
  if (coding === 'br') return zlib.brotliDecompressSync(reply.body);
  if (coding === 'gzip') return zlib.gunzipSync(reply.body);
  return reply.body;
}

function startServer(argv) {
  const child = spawn(args.vigil, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.log = '';
  child.stdout.on('data', (c) => { child.log += c; });
  child.stderr.on('data', (c) => { child.log += c; });
  children.push(child);
  return child;
}

async function waitServing(child, port, probePath, what) {
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`${what} exited: ${child.log}`);
    try { return (await request(port, 'GET', probePath)).status === 200; } catch { return false; }
  }, 10000, `${what} to answer ${probePath}`);
}

// ------------------------------------------------------------------------------- vigil serve

const port = await freePort();
const serve = startServer(['serve', '--http', `127.0.0.1:${port}`, '--web', web]);
await waitServing(serve, port, '/', 'vigil serve');

const plain = await request(port, 'GET', '/index.html');
check(plain.status === 200 && plain.body.equals(content('index.html')), 'GET /index.html: 200 with the file');
check(/^"[^"]+"$/.test(plain.headers.etag ?? ''), `a strong ETag (${plain.headers.etag})`);
check(new Date(plain.headers['last-modified']).getTime() ===
      Math.floor(fs.statSync(path.join(web, 'index.html')).mtimeMs / 1000) * 1000,
      `Last-Modified is the file's time (${plain.headers['last-modified']})`);
check(plain.headers['cache-control'] === 'no-cache', 'Cache-Control: no-cache (stored, revalidated on use)');
check(plain.headers.vary === 'Accept-Encoding', 'Vary: Accept-Encoding');
// live.html may be opened with ?token=...: no page sends its address to the sites it links to.
check(plain.headers['referrer-policy'] === 'no-referrer', 'a page is sent with Referrer-Policy: no-referrer');
check(plain.headers['content-encoding'] === undefined, 'no Accept-Encoding: the file as it is');
const slash = await request(port, 'GET', '/?demo=phi');
check(slash.status === 200 && slash.body.equals(content('index.html')) && slash.headers.etag === plain.headers.etag,
      '"/" (with a query) is index.html');
check((await request(port, 'GET', '/docs/')).body.equals(content('docs/index.html')), 'a folder with "/" serves its index.html');

const types = {
  '/index.html': 'text/html', '/app.js': 'text/javascript', '/explainer.mjs': 'text/javascript',
  '/data.json': 'application/json', '/style.css': 'text/css', '/pic.svg': 'image/svg+xml',
  '/vigil.wasm': 'application/wasm', '/logo.png': 'image/png',
};
for (const [p, type] of Object.entries(types)) {
  const r = await request(port, 'GET', p, { 'Accept-Encoding': 'br, gzip' });
  check(r.status === 200 && r.headers['content-type'].split(';')[0] === type, `${p} is ${type}`);
}

// Variants: br when accepted, else gzip, else the file; each with its own ETag.
const variants = {};
for (const [accept, expected] of [['br, gzip', 'br'], ['gzip, deflate, br, zstd', 'br'], ['gzip', 'gzip'],
                                  ['x-gzip', 'gzip'], ['br;q=0.4, gzip;q=0.8', 'gzip'], ['', undefined],
                                  ['br;q=0, gzip;q=0', undefined], ['deflate', undefined],
                                  ['*', 'br'], ['*;q=0.5, br;q=0', 'gzip']]) {
  for (const name of ['index.html', 'vigil.wasm', 'data.json']) {
    const r = await request(port, 'GET', `/${name}`, accept === '' ? {} : { 'Accept-Encoding': accept });
    const coding = r.headers['content-encoding'];
    check(r.status === 200 && coding === expected && decode(r).equals(content(name)) &&
          Number(r.headers['content-length']) === r.body.length && r.headers.vary === 'Accept-Encoding',
          `${name}, Accept-Encoding "${accept}": ${expected ?? 'identity'}, decoded equal to the source`);
    variants[`${name} ${coding ?? 'identity'}`] = r.headers.etag;
  }
}
const brReply = await request(port, 'GET', '/vigil.wasm', { 'Accept-Encoding': 'br' });
check(brReply.body.length < wasm.length / 5, `the wasm goes out as ${brReply.body.length} bytes of br for ${wasm.length}`);
for (const name of ['index.html', 'vigil.wasm', 'data.json']) {
  const tags = ['identity', 'gzip', 'br'].map((c) => variants[`${name} ${c}`]);
  check(tags.every(Boolean) && new Set(tags).size === 3, `${name}: a different ETag per variant (${tags.join(' ')})`);
}
const pngReply = await request(port, 'GET', '/logo.png', { 'Accept-Encoding': 'br, gzip' });
check(pngReply.headers['content-encoding'] === undefined && pngReply.headers.vary === undefined &&
      pngReply.body.equals(png), 'an image is sent as it is, without Vary');

// A variant older than its source is never sent: the ETag follows the bytes actually sent.
for (const accept of ['br, gzip', 'gzip', 'br']) {
  const r = await request(port, 'GET', '/stale.html', { 'Accept-Encoding': accept });
  check(r.headers['content-encoding'] === undefined && r.body.toString() === staleV2,
        `stale variants are skipped (Accept-Encoding "${accept}"): the current source is sent`);
  check(r.headers.etag === (await request(port, 'GET', '/stale.html')).headers.etag,
        'and its ETag is the source\'s');
}

// Revalidation.
for (const [accept, coding] of [['br', 'br'], ['gzip', 'gzip'], ['', 'identity']]) {
  const headers = accept ? { 'Accept-Encoding': accept } : {};
  const etag = variants[`index.html ${coding}`];
  const r = await request(port, 'GET', '/index.html', { ...headers, 'If-None-Match': etag });
  check(r.status === 304 && r.body.length === 0 && r.headers.etag === etag && r.headers.vary === 'Accept-Encoding' &&
        r.headers['cache-control'] === 'no-cache', `If-None-Match with the ${coding} ETag: 304, no body`);
}
check((await request(port, 'GET', '/index.html', { 'If-None-Match': `"nope", W/${variants['index.html identity']}` }))
  .status === 304, 'If-None-Match: a list, weak comparison');
{
  // A cache that kept many variants sends them all: a 3.5 KB list (under the 4 KiB lws takes
  // for a request's headers) must still match its last entry.
  const stale = Array.from({ length: 190 }, (_, i) => `"${(i * 7919).toString(16).padStart(8, '0')}-stale"`);
  const list = [...stale, variants['index.html identity']].join(', ');
  check(list.length > 3400 && list.length < 3800, `a ${list.length}-byte If-None-Match list`);
  check((await request(port, 'GET', '/index.html', { 'If-None-Match': list })).status === 304,
        'If-None-Match: a 3.5 KB list matching its last entry: 304');
}
check((await request(port, 'GET', '/index.html', { 'Accept-Encoding': 'gzip', 'If-None-Match': variants['index.html br'] }))
  .status === 200, 'the ETag of another variant does not match: 200');
check((await request(port, 'GET', '/index.html', { 'If-None-Match': '*' })).status === 304, 'If-None-Match: * is 304');
const lastModified = plain.headers['last-modified'];
check((await request(port, 'GET', '/index.html', { 'If-Modified-Since': lastModified })).status === 304,
      'If-Modified-Since equal to Last-Modified: 304');
check((await request(port, 'GET', '/index.html', { 'If-Modified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT' })).status === 200,
      'If-Modified-Since before the change: 200');
check((await request(port, 'GET', '/index.html', { 'If-Modified-Since': 'garbage' })).status === 200,
      'an unreadable If-Modified-Since is ignored');
check((await request(port, 'GET', '/index.html', { 'If-None-Match': '"nope"', 'If-Modified-Since': lastModified }))
  .status === 200, 'If-None-Match wins over If-Modified-Since');
check((await request(port, 'HEAD', '/index.html', { 'If-None-Match': variants['index.html identity'] })).status === 304,
      'HEAD revalidates too');

// HEAD: the GET's headers, no body (read from the socket: an HTTP client would drop one).
for (const [accept, name] of [['', 'index.html'], ['Accept-Encoding: br\r\n', 'vigil.wasm']]) {
  const get = await request(port, 'GET', `/${name}`, accept ? { 'Accept-Encoding': 'br' } : {});
  const head = await raw(port, `HEAD /${name} HTTP/1.1`, accept);
  check(head.status === 200 && head.body === '' &&
        new RegExp(`content-length: ${get.body.length}\\r`, 'i').test(head.head + '\r') &&
        head.head.toLowerCase().includes(`etag: ${get.headers.etag}`.toLowerCase()),
        `HEAD /${name}: the GET's length and ETag, and no body`);
}

// Missing files, dynamic answers.
const missing = await request(port, 'GET', '/missing.html');
check(missing.status === 404 && missing.headers['cache-control'] === 'no-store', 'a missing file: 404, not stored');
check((await request(port, 'GET', '/index.html.br')).status === 404, 'the variants are not published under their own names');
const demo = await request(port, 'GET', '/v1/demo', { 'Accept-Encoding': 'br, gzip' });
check(demo.status === 200 && demo.headers['cache-control'] === 'no-store' && demo.headers.etag === undefined,
      '/v1/demo keeps Cache-Control: no-store');

// Traversal: whatever the spelling, 403 or 404, never a byte of the file outside.
const attempts = ['/../secret.html', '/../../secret.txt', '/..%2fsecret.html', '/%2e%2e/secret.html',
                  '/%2E%2E%2Fsecret.html', '/.%2e/secret.html', '/%252e%252e/secret.html', '//../secret.html',
                  '/docs/../../secret.html', '/..\\secret.html', '/./../secret.html', '/leak.html',
                  '/up/secret.html', '/up/web/../secret.html', '/.hidden', `/${root}/secret.html`,
                  'http://127.0.0.1/../secret.html'];
for (const attempt of attempts) {
  const r = await raw(port, `GET ${attempt} HTTP/1.1`);
  check((r.status === 403 || r.status === 404) && !r.text.includes(marker), `GET ${attempt}: ${r.status}, nothing from outside`);
}
check((await raw(port, 'GET /leak.html HTTP/1.1')).status === 403, 'a symbolic link out of the web directory: 403');
const post = await raw(port, 'POST /index.html HTTP/1.1', 'Content-Length: 3\r\n\r\nabc');
check(post.status === 405 && /allow: GET, HEAD/i.test(post.head), 'POST to a file: 405 with Allow');

// --------------------------------------------------------- an agent's server answers the same way

const agentPort = await freePort();
const agentHttp = await freePort();
const agent = startServer(['agent', '--name', 'web-0', '--bind', `127.0.0.1:${agentPort}`, '--http',
                           `127.0.0.1:${agentHttp}`, '--profile', 'local', '--web', web, '--quiet']);
await waitServing(agent, agentHttp, '/v1/self', 'vigil agent');
const refusedCount = async () => {
  const metrics = await request(agentHttp, 'GET', '/metrics');
  check(metrics.headers['cache-control'] === 'no-store', '/metrics keeps Cache-Control: no-store');
  return Number(/^vigil_http_static_refused_total (\d+)$/m.exec(metrics.body.toString())?.[1]);
};
check(await refusedCount() === 0, 'the agent counts no refusal at first');
const agentBr = await request(agentHttp, 'GET', '/vigil.wasm', { 'Accept-Encoding': 'br, gzip' });
check(agentBr.status === 200 && agentBr.headers['content-encoding'] === 'br' && decode(agentBr).equals(wasm) &&
      agentBr.headers['cache-control'] === 'no-cache' && agentBr.headers.etag === variants['vigil.wasm br'] &&
      agentBr.headers['last-modified'] && agentBr.headers.vary === 'Accept-Encoding',
      'vigil agent --web: the same variant, ETag and headers');
check((await request(agentHttp, 'GET', '/vigil.wasm', { 'Accept-Encoding': 'br', 'If-None-Match': agentBr.headers.etag }))
  .status === 304, 'vigil agent --web: 304 on revalidation');
check((await request(agentHttp, 'GET', '/v1/self')).headers['cache-control'] === 'no-store', '/v1/self keeps no-store');
check((await raw(agentHttp, 'GET /leak.html HTTP/1.1')).status === 403 &&
      (await raw(agentHttp, 'DELETE /index.html HTTP/1.1')).status === 405, 'the agent refuses the same requests');
check(await refusedCount() === 2, 'and counts them in /metrics (vigil_http_static_refused_total 2)');

// ------------------------------------------- an abusive client: many transfers it never reads

// Each file being sent holds a descriptor and a connection: the server sends at most 64 at once
// (the 65th gets 503, counted), and cuts a transfer that makes no progress for 10 s.
const kMaxFileStreams = 64;
const metricValue = async (name) => {
  const body = (await request(agentHttp, 'GET', '/metrics')).body.toString();
  return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(body)?.[1]);
};
fs.writeFileSync(path.join(web, 'big.png'), Buffer.alloc(8 << 20, 7));  // more than socket buffers hold
const stalled = [];
for (let i = 0; i < kMaxFileStreams; ++i) {
  const s = net.connect(agentHttp, '127.0.0.1');
  s.on('error', () => {});
  s.write('GET /big.png HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  s.pause();  // never read: the server's writes back up and stop
  stalled.push(s);
}
await waitFor(async () => (await metricValue('vigil_http_file_streams')) === kMaxFileStreams, 10000,
              `${kMaxFileStreams} transfers under way`, 50);
const busy = await request(agentHttp, 'GET', '/big.png');
check(busy.status === 503 && busy.headers['retry-after'] === '1' && busy.headers['cache-control'] === 'no-store',
      `with ${kMaxFileStreams} files being sent, one more is refused: 503 with Retry-After`);
check(await metricValue('vigil_http_file_streams_busy_total') === 1, 'and counted (vigil_http_file_streams_busy_total 1)');
check((await request(agentHttp, 'GET', '/v1/self')).status === 200, 'the agent still answers its API meanwhile');
const cutStarted = Date.now();
await waitFor(async () => (await metricValue('vigil_http_file_streams')) === 0, 20000,
              'the stalled transfers to be cut', 250);
check(await metricValue('vigil_http_file_streams_cut_total') === kMaxFileStreams,
      `every stalled transfer was cut after ${((Date.now() - cutStarted) / 1000).toFixed(1)} s ` +
      '(vigil_http_file_streams_cut_total 64)');
for (const s of stalled) s.destroy();
const again = await request(agentHttp, 'GET', '/big.png');
check(again.status === 200 && again.body.length === 8 << 20, 'and files are sent again in full');

for (const c of children) c.kill('SIGTERM');
await waitFor(() => children.every((c) => c.exitCode !== null), 10000, 'the servers to stop');
cleanup();
