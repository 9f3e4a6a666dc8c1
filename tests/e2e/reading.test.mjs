// Reading the explainer on a phone costs little: scrolled from top to bottom in a phone profile
// (412 x 860 CSS px, touch, DPR 2), only demos near the viewport are alive, only those on
// screen draw, the page at rest uses almost no CPU, the browser holds little memory, the wasm
// travels compressed once and is revalidated after, and a demo unloaded far up the page comes
// back with the parameters it had.
import { check, parseArgs, startServer } from './harness.mjs';
import { launchMeasuredBrowser, usage } from './browser_usage.mjs';
import { Traffic } from './network_traffic.mjs';

const args = parseArgs(process.argv.slice(2));
const kPhone = { viewport: { width: 412, height: 860 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const kMaxDrawing = 3;          // demos still drawing at the bottom of the page
const kMaxIdleCores = 0.25;     // CPU of the whole browser while nothing moves on screen
const kMaxPssMB = 700;          // memory the browser holds, shared pages split between processes
const kMaxLive = 5;             // demos (WebGL contexts) alive at once
const kMaxFirstVisit = 3e6;     // bytes over the network for one read of the page
const kMaxRepeatVisit = 200e3;  // the same again, with the cache of the first

const server = await startServer(args.vigil, args.web);
const { browser, root } = await launchMeasuredBrowser();

// Scrolls the whole page a screen at a time; every demo that comes into view is waited for until
// its app runs, as a reader would wait for it.
async function readThrough(page) {
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  const screen = kPhone.viewport.height;
  for (let y = 0; y <= height; y += screen) {
    await page.evaluate((top) => window.scrollTo(0, top), y);
    for (const handle of await page.$$('iframe[data-src]')) {
      const box = await handle.boundingBox();
      if (!box || box.y + box.height <= 0 || box.y >= screen) continue;
      await page.waitForFunction((el) => el.src.startsWith('http'), handle, { timeout: 10000 });
      const frame = await handle.contentFrame();
      await frame.waitForFunction(() => window.vigil && window.vigil.state() && window.vigil.frames() >= 3,
                                  null, { timeout: 60000, polling: 100 });
    }
  }
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
}

// Demos whose frame counter moved during `ms` of wall time.
async function drawingDemos(page, ms) {
  const count = () => Promise.all(page.frames().filter((f) => f !== page.mainFrame()).map(
    (f) => f.evaluate(() => (window.vigil && window.vigil.frames ? window.vigil.frames() : null)).catch(() => null)));
  const before = await count();
  await page.waitForTimeout(ms);
  const after = await count();
  return after.filter((n, i) => n !== null && before[i] !== null && n > before[i]).length;
}

try {
  const context = await browser.newContext(kPhone);
  const page = await context.newPage();
  const errors = [], glWarnings = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
    // The software GL stack of a GPU-less machine notes that compositing WebGL in software reads
    // pixels back; that is the test machine, not the page. Any other WebGL warning (lost or
    // evicted contexts) fails.
    else if (m.type() === 'warning' && /WebGL/i.test(m.text()) &&
             !/GL Driver Message \(OpenGL, Performance.*ReadPixels/.test(m.text())) glWarnings.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  const firstVisit = await Traffic.watch(page);

  // 1. First visit, top to bottom.
  await page.goto(`${server.url}explainer.html`);
  await page.waitForFunction(() => window.explainer && window.explainer.ready, null, { timeout: 30000 });
  await readThrough(page);
  const report = await page.evaluate(() => window.explainer);
  check(report.demosLoaded === report.demos, `all ${report.demos} demos ran on the way down`);
  check(report.demosMaxLive <= kMaxLive,
        `at most ${report.demosMaxLive} demos were alive at once (limit ${kMaxLive})`);

  // 2. At rest at the bottom.
  const drawing = await drawingDemos(page, 3000);
  check(drawing <= kMaxDrawing, `${drawing} demos still drawing at the bottom (limit ${kMaxDrawing})`);
  const before = usage(root);
  await page.waitForTimeout(5000);
  const after = usage(root);
  const cores = (after.cpuSeconds - before.cpuSeconds) / 5;
  check(cores <= kMaxIdleCores, `the browser at rest uses ${cores.toFixed(3)} cores (limit ${kMaxIdleCores})`);
  check(after.pssMB <= kMaxPssMB,
        `the browser holds ${after.pssMB.toFixed(0)} MB (PSS; ${after.rssMB.toFixed(0)} MB summing each process's RSS; limit ${kMaxPssMB})`);
  const first = firstVisit.summary();
  const files = [...first.files].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 4)
    .map(([f, { bytes }]) => `${f} ${(bytes / 1024).toFixed(0)} KiB`).join(', ');
  check(first.total <= kMaxFirstVisit,
        `first visit: ${(first.total / 1e6).toFixed(2)} MB (limit 3 MB; ${files})`);

  // 3. Back to the top: the first demo was unloaded far below it, and reloads as it was left
  //    (its own parameters, written back by the app, are in its new address).
  await page.evaluate(() => window.scrollTo(0, 0));
  const firstDemo = await page.$('iframe[data-src]');
  const back = await page.waitForFunction((el) => el.src.startsWith('http') && /[?&]model=normal/.test(el.src),
                                          firstDemo, { timeout: 60000, polling: 100 }).then(() => true, () => false);
  const reloaded = await page.evaluate(() => window.explainer.demoLoads);
  const src = await firstDemo.evaluate((el) => el.src);
  check(back && reloaded > report.demos,
        `the first demo came back (${reloaded} loads for ${report.demos} demos) with the parameters it reported (${src})`);

  // 4. A repeat visit: everything revalidated, nothing downloaded again.
  const repeatVisit = await Traffic.watch(page);
  await page.reload();
  await page.waitForFunction(() => window.explainer && window.explainer.ready, null, { timeout: 30000 });
  await readThrough(page);
  const repeat = repeatVisit.summary();
  check(repeat.total <= kMaxRepeatVisit, `repeat visit: ${(repeat.total / 1024).toFixed(0)} KiB (limit 200 KB)`);

  check(glWarnings.length === 0, `no WebGL context warnings (${glWarnings.slice(0, 3).join(' | ')})`);
  check(errors.length === 0, `no console errors (${errors.slice(0, 3).join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
