// Regenerates docs/images/live-serf.png: the live view of a vigil agent that has joined a Serf
// cluster (three `serf agent`s, Debian package serf, and two vigil agents on loopback).
//   node tests/e2e/screenshot_serf.mjs [--vigil build/bin/vigil] [--web build/web] [--out docs/images]
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { freePort, launchBrowser, openPage } from './harness.mjs';

const opts = { vigil: 'build/bin/vigil', web: 'build/web', out: 'docs/images' };
for (let i = 2; i + 1 < process.argv.length; i += 2) opts[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];

const children = [];
const start = (command, argv) => children.push(spawn(command, argv, { stdio: 'ignore' }));
const until = async (probe, what) => {
  for (let i = 0; i < 150; ++i) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
};

try {
  const serfPorts = [];
  for (const name of ['serf-a', 'serf-b', 'serf-c']) {
    const port = await freePort();
    const rpc = await freePort();
    const argv = ['agent', `-node=${name}`, `-bind=127.0.0.1:${port}`, `-rpc-addr=127.0.0.1:${rpc}`, '-profile=lan'];
    if (serfPorts.length) argv.push(`-join=127.0.0.1:${serfPorts[0].port}`);
    start('serf', argv);
    serfPorts.push({ port, rpc });
    await until(async () => execFileSync('serf', ['members', `-rpc-addr=127.0.0.1:${rpc}`]), `${name}`);
  }
  const http = await freePort();
  start(opts.vigil, ['agent', '--name', 'vigil-1', '--bind', `127.0.0.1:${await freePort()}`, '--join',
                     `127.0.0.1:${serfPorts[0].port}`, '--http', `127.0.0.1:${http}`, '--web', opts.web, '--quiet']);
  start(opts.vigil, ['agent', '--name', 'vigil-2', '--bind', `127.0.0.1:${await freePort()}`, '--join',
                     `127.0.0.1:${serfPorts[1].port}`, '--http', `127.0.0.1:${await freePort()}`, '--web', 'none', '--quiet']);
  const browser = await launchBrowser();
  try {
    const { page, errors } = await openPage(browser);
    await page.goto(`http://127.0.0.1:${http}/?demo=live`);
    // Connected, with all three Serf agents and the other vigil agent alive, and a few acks in.
    await page.waitForFunction(() => {
      const s = window.vigil.state();
      const m = s && s.agents[0] && s.agents[0].members;
      return m && ['serf-a', 'serf-b', 'serf-c', 'vigil-2'].every((n) => m[n] === 'alive') && s.agents[0].messages > 30;
    }, null, { timeout: 60000, polling: 200 });
    const file = path.join(opts.out, 'live-serf.png');
    await page.screenshot({ path: file });
    console.log(`${file}${errors.length ? '  console errors: ' + errors.join(' | ') : ''}`);
  } finally {
    await browser.close();
  }
} finally {
  for (const c of children) c.kill('SIGKILL');
}
