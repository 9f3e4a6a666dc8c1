// Shared pieces of the browser tests: a vigil web server on a free loopback port, Debian's
// Chromium driven by playwright-core, console-error collection and screenshot checks.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { freePort } from '../agent/harness.mjs';

// --key value pairs; `required` keys must be present. An --artifacts directory is created.
export function parseArgs(argv, required = ['vigil', 'web', 'artifacts']) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) throw new Error(`bad argument ${argv[i]}`);
    args[argv[i].slice(2)] = argv[i + 1];
  }
  for (const key of required)
    if (!args[key]) throw new Error(`missing --${key}`);
  if (args.artifacts) mkdirSync(args.artifacts, { recursive: true });
  return args;
}

// Ports outside the kernel's ephemeral range, as the agent tests take them.
export { freePort };

// Starts `vigil serve` and resolves once it prints its URL.
export async function startServer(vigil, webDir) {
  const port = await freePort();
  const child = spawn(vigil, ['serve', '--http', `127.0.0.1:${port}`, '--web', webDir],
                      { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`vigil serve did not start: ${out}`)), 10000);
    const onData = (chunk) => {
      out += chunk;
      const m = out.match(/at (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => { out += chunk; });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`vigil serve exited ${code}: ${out}`)); });
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

const chromiumFlags = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
];

export async function launchBrowser(extraArgs = []) {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: [...chromiumFlags, ...extraArgs] });
}

// A page that records console errors and uncaught exceptions.
export async function openPage(browser, viewport = { width: 1400, height: 900 }) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  page.on('pageerror', (err) => errors.push(String(err.stack || err)));
  return { page, errors };
}

// Waits until window.vigil.state() exists and has drawn `frames` frames.
export async function waitForFrames(page, frames = 3, timeout = 30000) {
  await page.waitForFunction((n) => {
    const s = window.vigil && window.vigil.state();
    return s && s.frame >= n;
  }, frames, { timeout, polling: 100 });
}

// Has the page draw `n` more frames, asking for each one: a demo at rest draws only for 400 ms
// after an input, which a loaded machine may spend on a single frame.
export async function drawFrames(page, n = 3, timeout = 30000) {
  for (let i = 0; i < n; ++i) {
    const drawn = await page.evaluate(() => window.vigil.frames());
    await page.evaluate(() => window.vigil.wake());
    await page.waitForFunction((k) => window.vigil.frames() > k, drawn, { timeout, polling: 20 });
  }
}

// Saves a screenshot and measures it in the browser: how many distinct colours and what share
// of pixels differ from the most common one. A blank or single-colour page scores near zero.
export async function screenshotStats(browser, page, file) {
  return pngStats(browser, await page.screenshot({ path: file }));
}

// The same measure for any PNG, e.g. an element's screenshot.
export async function pngStats(browser, png) {
  const { width, height, data } = await decodePng(browser, png);
  const counts = new Map();
  for (let i = 0; i < data.length; i += 4) {
    const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  const top = Math.max(...counts.values());
  const pixels = data.length / 4;
  return { colors: counts.size, nonBackground: 1 - top / pixels, width, height };
}

// A PNG's pixels as RGBA bytes, row by row, decoded by the browser (no image library needed).
export async function decodePng(browser, png) {
  const probe = await browser.newPage();
  try {
    const { width, height, rgba } = await probe.evaluate(async (b64) => {
      const img = new Image();
      img.src = 'data:image/png;base64,' + b64;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width; c.height = img.height;
      const ctx = c.getContext('2d');
      ctx.drawImage(img, 0, 0);
      const bytes = ctx.getImageData(0, 0, c.width, c.height).data;
      let binary = '';
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return { width: c.width, height: c.height, rgba: btoa(binary) };
    }, png.toString('base64'));
    return { width, height, data: Buffer.from(rgba, 'base64') };
  } finally {
    await probe.close();
  }
}

export function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
  console.log(`ok - ${message}`);
}

export function artifact(args, name) {
  return path.join(args.artifacts, name);
}

// `vigil demo --nodes N` on a free port, serving `web`: resolves once it prints the URL to open,
// with stop() (also run at exit). Fails with the demo's output if it exits or stays silent 20 s.
export async function startDemo(vigil, web, nodes = 3) {
  const port = await freePort();
  const child = spawn(vigil, ['demo', '--nodes', String(nodes), '--http-port', String(port), '--web', web],
                      { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => { out += c; });
  child.stderr.on('data', (c) => { out += c; });
  const stop = () => { if (child.exitCode === null) child.kill('SIGINT'); };
  process.on('exit', stop);
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`vigil demo did not start: ${out}`)), 20000);
    const look = () => {
      const m = out.match(/open (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    child.stdout.on('data', look);
    look();
    child.once('exit', (code) => reject(new Error(`vigil demo exited ${code}: ${out}`)));
  });
  return { url, stop, child, output: () => out };
}

// Waits until the live view on `page` follows `count` agents, each connected and seeing every
// other as alive (60 s at most).
export async function waitForLiveAgents(page, count) {
  await page.waitForFunction((n) => {
    const s = window.vigil.state();
    return s.agents.length === n && s.agents.every((a) => a.status === 'connected' &&
      Object.keys(a.members).length === n - 1 && Object.values(a.members).every((m) => m === 'alive'));
  }, count, { timeout: 60000, polling: 200 });
}
