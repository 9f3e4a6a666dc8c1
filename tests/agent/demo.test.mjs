// `vigil demo`: starts N agents, serves the web app pointing at them, stops them all on Ctrl-C.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import WebSocket from 'ws';
import { Viewer, check, freePort, getJson, httpGet, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
if (!args.web) throw new Error('missing --web');
const port = await freePort();
const demo = spawn(args.vigil, ['demo', '--nodes', '3', '--http-port', String(port), '--web', args.web],
                   { stdio: ['ignore', 'pipe', 'pipe'] });
let out = '';
demo.stdout.on('data', (c) => { out += c; });
demo.stderr.on('data', (c) => { out += c; });
let exited = false;
demo.on('exit', () => { exited = true; });
process.on('uncaughtException', (e) => { console.error(e.stack, '\n--- demo output ---\n' + out); demo.kill('SIGKILL'); process.exit(1); });

await waitFor(() => out.includes('open http://'), 20000, 'the demo to print its URL');
check(new RegExp(`open http://127\\.0\\.0\\.1:${port}/`).test(out), 'the demo prints the URL of the web app');
check(/token: [0-9a-f]{32}/.test(out), 'the demo prints the token');
check((await httpGet(port, '/')).status === 200 && (await httpGet(port, '/live.html')).status === 200,
      'the web app and the live page are served');
const info = await getJson(port, '/v1/demo');
check(info.agents.length === 3 && info.agents.every((a) => a.running), '/v1/demo lists three running agents');

// The token stays on this machine: a page of another site re-pointing its name at 127.0.0.1
// (DNS rebinding) still names itself in Host, and gets nothing.
const rebound = await new Promise((resolve) => {
  const s = net.connect(port, '127.0.0.1', () =>
    s.write(`GET /v1/demo HTTP/1.1\r\nHost: evil.example:${port}\r\nConnection: close\r\n\r\n`));
  let got = '';
  s.on('data', (d) => { got += d; });
  s.on('close', () => resolve(got));
  s.on('error', () => resolve(got));
});
check(/^HTTP\/1\.1 403/.test(rebound) && !rebound.includes(info.token),
      '/v1/demo asked for under another host name: 403, no token');

// Gossip is encrypted with a key of the demo's own, handed over in a file: no agent's command
// line (which any user may list) holds it.
check(/gossip: encrypted with a fresh key/.test(out), 'the demo says its gossip is encrypted');
const children = readFileSync(`/proc/${demo.pid}/task/${demo.pid}/children`, 'utf8').trim().split(/\s+/);
const commandLines = children.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));
check(commandLines.length === 3 && commandLines.every((argv) => argv.includes('--keyring-file') &&
                                                          !argv.includes('--encrypt-key')),
      'every agent gets the key in a keyring file, not on its command line');
const keyring = commandLines[0][commandLines[0].indexOf('--keyring-file') + 1];
check((statSync(keyring).mode & 0o777) === 0o600, `the keyring file is readable by its owner alone (${keyring})`);
for (const a of info.agents) {
  const self = await getJson(Number(a.http.split(':')[1]), '/v1/self');
  check(self.encrypted === true, `${a.name} encrypts its gossip`);
}

const viewers = info.agents.map((a) => new Viewer({ httpPort: Number(a.http.split(':')[1]) }));
await Promise.all(viewers.map((v) => v.open));
await waitFor(() => viewers.every((v) => {
  const s = [...v.messages].reverse().find((m) => m.type === 'stats' || m.type === 'snapshot');
  return s && s.members.length === 2 && s.members.every((m) => m.state === 'alive');
}), 35000, 'every agent to see the other two alive (bounded by push-pull anti-entropy)');
check(true, 'the demo cluster converges: every agent sees the others alive');
viewers.forEach((v) => v.close());

// The live page is served from the demo's port, another origin than each agent's: every agent
// must let that page in (under either loopback name) and still refuse other sites.
function opens(agentPort, origin) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${agentPort}/ws`, 'vigil.v1', { origin });
    const done = (ok) => { ws.terminate(); resolve(ok); };
    ws.once('message', () => done(true));
    ws.once('unexpected-response', () => done(false));
    ws.once('error', () => done(false));
  });
}
for (const a of info.agents) {
  const p = Number(a.http.split(':')[1]);
  check(await opens(p, `http://127.0.0.1:${port}`) && await opens(p, `http://localhost:${port}`),
        `${a.name} accepts the demo page's origin`);
  check(!(await opens(p, 'http://evil.example')), `${a.name} refuses a foreign origin`);
}

demo.kill('SIGINT');
await waitFor(() => exited, 10000, 'the demo to stop');
check(demo.exitCode === 0, 'Ctrl-C stops the demo cleanly');
for (const a of info.agents) {
  const p = Number(a.http.split(':')[1]);
  const gone = await httpGet(p, '/v1/self', 500).then(() => false, () => true);
  check(gone, `${a.name} was stopped with it`);
}
check(!existsSync(keyring), 'the keyring file is removed when the demo stops');
