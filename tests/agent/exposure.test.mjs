// What another machine can reach. Two network namespaces joined by a veth pair stand for two
// hosts: `server` runs vigil, `client` is a stranger on the LAN. The token `vigil demo` hands its
// page must never reach the stranger, even when the demo's web app was asked to listen on every
// interface, nor a page of another site that re-points its name to 127.0.0.1 (a Host header not
// naming this machine); a live view bound to loopback must be unreachable from the LAN, and one
// bound to 0.0.0.0 on purpose reachable. Needs root and `ip netns`; skips otherwise.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { check, parseArgs, waitFor } from './harness.mjs';
import { addNamespace, namespaceName, skipUnlessNetns, sh } from './netns.mjs';

const args = parseArgs(process.argv.slice(2));
skipUnlessNetns('the exposure test');

const subnet = `10.232.${1 + Math.floor(Math.random() * 250)}`;
const server = { ns: namespaceName('srv'), ip: `${subnet}.1` };
const client = { ns: namespaceName('cli'), ip: `${subnet}.2` };
const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-exposure-'));
const tokenFile = path.join(dir, 'token');
writeFileSync(tokenFile, 'exposure-test-token\n');
const web = path.join(dir, 'web');
spawnSync('mkdir', ['-p', web]);
writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>exposure</title>\n');

const processes = [];
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));
const bail = (err) => {
  console.error(err && err.stack ? err.stack : err);
  for (const p of processes) console.error(`--- ${p.what} ---\n${p.out.slice(-2000)}`);
  process.exit(1);
};
process.on('uncaughtException', bail);
process.on('unhandledRejection', bail);

addNamespace('srv');
addNamespace('cli');
sh('ip', ['-n', server.ns, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', client.ns]);
for (const h of [server, client]) {
  sh('ip', ['-n', h.ns, 'addr', 'add', `${h.ip}/24`, 'dev', 'eth0']);
  sh('ip', ['-n', h.ns, 'link', 'set', 'eth0', 'up']);
  sh('ip', ['-n', h.ns, 'link', 'set', 'lo', 'up']);
}

function startIn(ns, what, argv) {
  const child = spawn('ip', ['netns', 'exec', ns, args.vigil, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { what, child, out: '', exited: null };
  child.stdout.on('data', (d) => { p.out += d; });
  child.stderr.on('data', (d) => { p.out += d; });
  child.on('exit', (code) => { p.exited = code; });
  processes.push(p);
  return p;
}

// One HTTP GET made from inside namespace `ns` (a process of its own there): the status and
// body, or the connection error's code.
const kGet = `
const [url, host] = process.argv.slice(1);
const headers = host ? { host } : {};
const ctl = AbortSignal.timeout(4000);
try {
  const r = await fetch(url, { headers, signal: ctl });
  console.log(JSON.stringify({ status: r.status, body: await r.text() }));
} catch (e) { console.log(JSON.stringify({ error: e.cause?.code ?? e.name })); }`;
function getFrom(ns, url, host = '') {
  // Node's fetch refuses to set Host itself; a raw request line is needed for a forged one.
  const code = host ? kRawGet : kGet;
  const r = spawnSync('ip', ['netns', 'exec', ns, process.execPath, '--input-type=module', '-e', code, url, host],
                      { encoding: 'utf8', timeout: 10000 });
  if (r.status !== 0) throw new Error(`GET ${url} from ${ns}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
const kRawGet = `
import net from 'node:net';
const [url, host] = process.argv.slice(1);
const u = new URL(url);
const s = net.connect(Number(u.port), u.hostname);
let data = '';
s.on('connect', () => s.write('GET ' + u.pathname + ' HTTP/1.1\\r\\nHost: ' + host + '\\r\\nConnection: close\\r\\n\\r\\n'));
s.on('data', (d) => { data += d; });
s.on('error', (e) => { console.log(JSON.stringify({ error: e.code })); process.exit(0); });
s.on('close', () => {
  const status = Number(data.split(' ')[1]);
  console.log(JSON.stringify({ status, body: data.slice(data.indexOf('\\r\\n\\r\\n') + 4) }));
});`;

// ---------------------------------------------------------------- vigil demo on every interface
const demoPort = 18080;
const demo = startIn(server.ns, 'demo', ['demo', '--nodes', '2', '--http', `0.0.0.0:${demoPort}`, '--web', web]);
await waitFor(() => demo.exited !== null || /open http:/.test(demo.out), 30000, 'the demo to start');
check(demo.exited === null, 'vigil demo runs with --http 0.0.0.0');
const token = demo.out.match(/token: ([0-9a-f]{32})/)[1];

const page = getFrom(client.ns, `http://${server.ip}:${demoPort}/`);
check(page.status === 200, `the web app answers the LAN, as asked (${page.status})`);
const remote = getFrom(client.ns, `http://${server.ip}:${demoPort}/v1/demo`);
check(remote.status === 403 && !remote.body.includes(token),
      `/v1/demo from another address: 403, no token (${remote.status})`);
const local = getFrom(server.ns, `http://127.0.0.1:${demoPort}/v1/demo`);
check(local.status === 200 && JSON.parse(local.body).token === token, '/v1/demo from loopback: 200 with the token');
const named = getFrom(server.ns, `http://127.0.0.1:${demoPort}/v1/demo`, `localhost:${demoPort}`);
check(named.status === 200, `/v1/demo from loopback naming localhost: 200 (${named.status})`);
const rebound = getFrom(server.ns, `http://127.0.0.1:${demoPort}/v1/demo`, `evil.example:${demoPort}`);
check(rebound.status === 403 && !rebound.body.includes(token),
      `/v1/demo from loopback naming another host (DNS rebinding): 403, no token (${rebound.status})`);
const ownAddress = getFrom(server.ns, `http://${server.ip}:${demoPort}/v1/demo`);
check(ownAddress.status === 403, `/v1/demo through the machine's LAN address: 403 (${ownAddress.status})`);

// The demo's agents listen on loopback: from the LAN there is nothing to send a command to.
const agents = JSON.parse(local.body).agents;
check(agents.length === 2, 'the demo runs two agents');
for (const a of agents) {
  const port = a.http.split(':').pop();
  const r = getFrom(client.ns, `http://${server.ip}:${port}/v1/self`);
  check(r.error === 'ECONNREFUSED', `${a.name}'s live view is unreachable from the LAN (${JSON.stringify(r).slice(0, 60)})`);
}
demo.child.kill('SIGTERM');
await waitFor(() => demo.exited !== null, 10000, 'the demo to stop');

// ---------------------------------------------------------------- an agent on loopback, then on purpose everywhere
const agent = startIn(server.ns, 'agent loopback', ['agent', '--name', 'a', '--bind', '127.0.0.1:7946',
                                                    '--http', '127.0.0.1:8081', '--web', 'none', '--quiet']);
await waitFor(() => getFrom(server.ns, 'http://127.0.0.1:8081/v1/self').status === 200, 10000, 'the agent to answer');
const unreachable = getFrom(client.ns, `http://${server.ip}:8081/v1/self`);
check(unreachable.error === 'ECONNREFUSED', `a live view on 127.0.0.1 is unreachable from the LAN (${JSON.stringify(unreachable)})`);
agent.child.kill('SIGTERM');
await waitFor(() => agent.exited !== null, 10000, 'the agent to stop');

const open = startIn(server.ns, 'agent everywhere', ['agent', '--name', 'a', '--bind', `${server.ip}:7946`,
                                                     '--http', '0.0.0.0:8081', '--token-file', tokenFile,
                                                     '--web', 'none', '--quiet']);
await waitFor(() => getFrom(server.ns, 'http://127.0.0.1:8081/v1/self').status === 200, 10000, 'the agent to answer');
const reachable = getFrom(client.ns, `http://${server.ip}:8081/v1/self`);
check(reachable.status === 200, `a live view on 0.0.0.0 answers the LAN, as asked (${reachable.status})`);
open.child.kill('SIGTERM');
await waitFor(() => open.exited !== null, 10000, 'the agent to stop');
console.log('exposure: all checks passed');
