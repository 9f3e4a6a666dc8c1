// Bytes a reader downloads for the explainer: `vigil demo` serves DIR, headless Chromium (412x860,
// a phone) opens explainer.html and scrolls to the bottom slowly enough that every embedded demo
// loads, once on a first visit and once more in the same browser context (a repeat visit, with
// the HTTP cache warm). Bytes are what arrived on the wire, headers included (the DevTools
// protocol's Network.loadingFinished encodedDataLength, over the page and its iframes).
//
//   node tests/bench/explainer_transfer.mjs --vigil build/bin/vigil --web build/web [--nodes 1]
//
// Run scripts/precompress.sh DIR first for the compressed variants.
import { spawn } from 'node:child_process';
import { freePort, waitFor } from '../agent/harness.mjs';
import { launchBrowser } from '../e2e/harness.mjs';
import { Traffic } from '../e2e/network_traffic.mjs';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
if (!args.vigil || !args.web) {
  console.error('usage: explainer_transfer.mjs --vigil PATH --web DIR [--nodes N]');
  process.exit(2);
}

const kStepTimeoutMs = 30000;  // per scroll step
const kMaxSteps = 400;

async function startDemo() {
  const port = await freePort();
  const child = spawn(args.vigil, ['demo', '--nodes', args.nodes ?? '1', '--http-port', String(port), '--web', args.web],
                      { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => { out += c; });
  child.stderr.on('data', (c) => { out += c; });
  const url = await new Promise((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`vigil demo printed no URL: ${out}`)), 20000);
    const poll = setInterval(() => {
      const m = /open (http:\/\/\S+)/.exec(out);
      if (m) { clearInterval(poll); clearTimeout(deadline); resolve(m[1]); }
    }, 50);
    child.once('exit', (code) => { clearInterval(poll); clearTimeout(deadline); reject(new Error(`vigil demo exited ${code}: ${out}`)); });
  });
  const stop = () => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGINT');
  });
  return { url: url.endsWith('/') ? url : `${url}/`, stop };
}

// Opens the explainer and scrolls down half a screen at a time, each step waiting until the
// network is quiet, so that every demo near the viewport has loaded before moving on.
async function readThrough(page, traffic, url) {
  await page.goto(`${url}explainer.html`, { waitUntil: 'load' });
  await page.waitForFunction(() => window.explainer && window.explainer.ready, null, { timeout: 30000 });
  await waitFor(() => traffic.quiet(), kStepTimeoutMs, 'the page to load', 50);
  for (let step = 0; step < kMaxSteps; ++step) {
    // 'instant': the page asks for smooth scrolling, which would still be under way.
    const atBottom = await page.evaluate(() => {
      window.scrollBy({ top: Math.round(window.innerHeight / 2), behavior: 'instant' });
      return window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
    });
    const scrolled = Date.now();
    await waitFor(() => traffic.quiet(scrolled), kStepTimeoutMs, `the network to settle at step ${step}`, 50);
    if (atBottom) break;
  }
  return page.evaluate(() => ({ demos: window.explainer.demos, loaded: window.explainer.demosLoaded,
                                loads: window.explainer.demoLoads }));
}

function print(label, demos, summary) {
  const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(`\n${label}: ${kb(summary.total)} (${summary.total} bytes) over ` +
              `${[...summary.files.values()].reduce((a, f) => a + f.requests, 0)} requests; ` +
              `${demos.loaded}/${demos.demos} demos loaded, ${demos.loads} demo loads`);
  const rows = [...summary.files.entries()].sort((a, b) => b[1].bytes - a[1].bytes);
  for (const [file, f] of rows) {
    const statuses = [...f.statuses.entries()].map(([s, n]) => `${n}x ${s}`).join(', ');
    console.log(`  ${file.padEnd(28)} ${kb(f.bytes).padStart(12)}  ${String(f.requests).padStart(3)} req  ` +
                `${statuses}${f.encodings.size ? `  [${[...f.encodings].join(',')}]` : ''}`);
  }
}

const demo = await startDemo();
const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 412, height: 860 } });
  const page = await context.newPage();
  const traffic = await Traffic.watch(page);

  const first = await readThrough(page, traffic, demo.url);
  const firstSummary = traffic.summary();
  if (first.loaded !== first.demos) throw new Error(`only ${first.loaded} of ${first.demos} demos loaded`);
  print('first visit', first, firstSummary);

  traffic.reset();
  await page.goto('about:blank');
  const repeat = await readThrough(page, traffic, demo.url);
  const repeatSummary = traffic.summary();
  if (repeat.loaded !== repeat.demos) throw new Error(`only ${repeat.loaded} of ${repeat.demos} demos loaded`);
  print('repeat visit', repeat, repeatSummary);

  console.log(`\nfirst visit: ${firstSummary.total} bytes; repeat visit: ${repeatSummary.total} bytes`);
} finally {
  await browser.close();
  await demo.stop();
}
