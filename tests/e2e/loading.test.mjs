// Delivery: on a slow link the app shows real download progress until its first frame; copied
// to a plain static file server (python's http.server here), every page works with no console
// error.
import { spawn } from 'node:child_process';
import { check, freePort, launchBrowser, openPage, parseArgs, startServer } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const kSlowLink = { bitsPerSecond: 1.6e6, latencyMs: 150 };  // a poor mobile connection

// python3 -m http.server on a free loopback port, resolved once it answers.
async function staticServer(dir) {
  const port = await freePort();
  const child = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir],
                      { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; ++i) {
    try {
      if ((await fetch(url)).ok) return { url, stop: () => child.kill('SIGTERM') };
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGTERM');
  throw new Error('python3 -m http.server did not start');
}

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  // 1. A slow link: the bar moves with the bytes, then the app draws.
  const { page, errors } = await openPage(browser, { width: 412, height: 860 });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false, latency: kSlowLink.latencyMs,
    downloadThroughput: kSlowLink.bitsPerSecond / 8, uploadThroughput: kSlowLink.bitsPerSecond / 8,
  });
  const start = Date.now();
  await page.goto(`${server.url}index.html?demo=phi&embed=1`, { waitUntil: 'commit' });
  await page.waitForFunction(() => /Loading vigil… [\d,]+ KB of [\d,]+ KB/.test(document.getElementById('status')?.textContent || ''),
                             null, { timeout: 30000, polling: 20 });
  const midway = await page.evaluate(() => ({
    text: document.getElementById('status').textContent,
    width: parseFloat(document.getElementById('progress').style.width),
  }));
  check(midway.width > 0 && midway.width < 100, `while downloading: "${midway.text}" (${midway.width.toFixed(0)}% of the bar)`);
  await page.waitForFunction(() => window.vigil && window.vigil.state() && window.vigil.frames() >= 1,
                             null, { timeout: 90000, polling: 50 });
  const firstFrame = (Date.now() - start) / 1000;
  const total = await page.evaluate(() => Number(document.documentElement.dataset.wasmBytes));
  check(Number.isFinite(total) && total > 100000, `the page knows the wasm's size (${total} bytes) before the server tells`);
  console.log(`first frame after ${firstFrame.toFixed(1)} s at ${kSlowLink.bitsPerSecond / 1e6} Mbit/s`);
  check(errors.length === 0, `no console errors while loading (${errors.join(' | ')})`);
  await page.close();

  // 2. build/web on a plain static host: the app, a demo, the explainer, the embed example.
  const plain = await staticServer(args.web);
  try {
    for (const path of ['index.html', 'index.html?demo=live', 'explainer.html', 'embed-example.html']) {
      const { page: p, errors: errs } = await openPage(browser, { width: 1280, height: 900 });
      await p.goto(`${plain.url}${path}`);
      if (path.startsWith('index')) {
        await p.waitForFunction(() => window.vigil && window.vigil.state() && window.vigil.frames() >= 3,
                                null, { timeout: 60000, polling: 100 });
        const demo = await p.evaluate(() => window.vigilDemo);
        if (path.includes('live'))
          check(demo && Array.isArray(demo.agents) && demo.agents.length === 0, 'the live demo learns that no agents are near');
      } else if (path === 'explainer.html') {
        await p.waitForFunction(() => window.explainer && window.explainer.ready, null, { timeout: 30000 });
        const first = await p.$('iframe[data-src]');
        await first.scrollIntoViewIfNeeded();  // demos out of view do not draw
        const frame = await first.contentFrame();
        await frame.waitForFunction(() => window.vigil && window.vigil.state() && window.vigil.frames() >= 3,
                                    null, { timeout: 60000, polling: 100 });
        const report = await p.evaluate(() => window.explainer);
        check(report.errors.length === 0, 'the explainer found all its numbers on the static host');
      } else {
        for (const handle of await p.$$('iframe')) {
          const frame = await handle.contentFrame();
          await frame.waitForFunction(() => window.vigil && window.vigil.state() && window.vigil.frames() >= 3,
                                      null, { timeout: 60000, polling: 100 });
        }
      }
      check(errs.length === 0, `static host, ${path}: no console errors (${errs.join(' | ')})`);
      await p.close();
    }
  } finally {
    plain.stop();
  }
} finally {
  await browser.close();
  server.stop();
}
