// The live view over TLS in Chromium: an agent started with --tls-cert/--tls-key serves the web
// app over https, and the page's live demo reaches the agent with wss:// (a page loaded over https
// may not open ws://). live.html does the same for agents given in its query. The certificate is
// self-signed and made for this run; the browser is told to accept it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { check, freePort, launchBrowser, openPage, parseArgs, waitForFrames } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-tls-e2e-'));
const certFile = path.join(dir, 'cert.pem');
const keyFile = path.join(dir, 'key.pem');
const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
                                   '-days', '1', '-subj', '/CN=localhost',
                                   '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
                                   '-keyout', keyFile, '-out', certFile], { encoding: 'utf8', timeout: 20000 });
if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);

const httpPort = await freePort();
const agent = spawn(args.vigil, ['agent', '--name', 'secure', '--bind', `127.0.0.1:${await freePort()}`,
                                 '--http', `127.0.0.1:${httpPort}`, '--profile', 'local', '--web', args.web,
                                 '--tls-cert', certFile, '--tls-key', keyFile], { stdio: ['ignore', 'pipe', 'pipe'] });
let log = '';
agent.stdout.on('data', (c) => { log += c; });
agent.stderr.on('data', (c) => { log += c; });
const stopAgent = () => { if (agent.exitCode === null) agent.kill('SIGKILL'); };
process.on('exit', stopAgent);

const browser = await launchBrowser(['--ignore-certificate-errors']);
try {
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the agent did not start: ${log}`)), 20000);
    const look = () => {
      const m = log.match(/live view (https:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1].replace(/,$/, '')); }
    };
    agent.stdout.on('data', look);
    look();
    agent.once('exit', (code) => reject(new Error(`the agent exited ${code}: ${log}`)));
  });
  check(url === `https://127.0.0.1:${httpPort}/`, `the agent serves its live view at ${url}`);

  const { page, errors } = await openPage(browser);
  const sockets = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  await page.goto(`${url}?demo=live`);
  await waitForFrames(page, 2);
  await page.waitForFunction(() => {
    const s = window.vigil.state();
    return s.agents.length === 1 && s.agents[0].status === 'connected' && s.agents[0].messages > 0;
  }, null, { timeout: 20000, polling: 200 });
  check(true, 'the web app loaded over https shows the agent connected');
  check(sockets.length > 0 && sockets.every((u) => u === `wss://127.0.0.1:${httpPort}/ws`),
        `its WebSocket is wss:// (${sockets.join(', ')})`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);

  const live = await browser.newPage();
  const liveSockets = [];
  live.on('websocket', (ws) => liveSockets.push(ws.url()));
  await live.goto(`${url}live.html?agents=127.0.0.1:${httpPort}`);
  await live.waitForFunction((name) => {
    const table = document.getElementById('matrix');
    return table && table.textContent.includes(name) && !table.textContent.includes('disconnected');
  }, `127.0.0.1:${httpPort}`, { timeout: 20000, polling: 200 });
  check(liveSockets.length > 0 && liveSockets.every((u) => u.startsWith('wss://')),
        `live.html over https connects with wss:// too (${liveSockets.join(', ')})`);
} finally {
  await browser.close();
  stopAgent();
}
