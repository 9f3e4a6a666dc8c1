// What a demo that plays costs the main thread on a phone profile: the canvas's size in device
// pixels, the app's own frame cost (window.vigil.state().app_perf) and the long tasks (over
// 50 ms, PerformanceObserver 'longtask') the browser reports while the demo plays for --seconds.
// Headless Chromium composites the canvas without a GPU, as Lighthouse's runs here do.
//   node tests/bench/page_long_tasks.mjs --vigil build/bin/vigil --web build/web \
//        [--demo phi] [--width 412] [--dpr 1.75] [--seconds 8]
import { launchBrowser, startServer } from '../e2e/harness.mjs';

const args = { demo: 'phi', width: '412', dpr: '1.75', seconds: '8' };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '');
  if (!process.argv[i].startsWith('--') || process.argv[i + 1] === undefined || !(key in args || key === 'vigil' || key === 'web')) {
    console.error('usage: node tests/bench/page_long_tasks.mjs --vigil BIN --web DIR [--demo D] [--width PX] [--dpr R] [--seconds S]');
    process.exit(2);
  }
  args[key] = process.argv[i + 1];
}
if (!args.vigil || !args.web) {
  console.error('--vigil and --web are required');
  process.exit(2);
}

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  const phone = Number(args.width) < 600;
  const context = await browser.newContext({ viewport: { width: Number(args.width), height: 823 },
                                             deviceScaleFactor: Number(args.dpr), isMobile: phone, hasTouch: phone });
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`${server.url}index.html?demo=${encodeURIComponent(args.demo)}`);
  await page.waitForFunction(() => window.vigil?.state()?.frame >= 1, null, { timeout: 30000 });
  const start = await page.evaluate(() => ({ frame: window.vigil.state().frame, tasks: window.longTasks.length }));
  await page.waitForTimeout(Number(args.seconds) * 1000);  // the demo plays for a fixed wall time: what is measured
  const r = await page.evaluate(() => {
    const c = document.querySelector('canvas');
    const s = window.vigil.state();
    return { frame: s.frame, perf: s.app_perf, canvas: [c.width, c.height], tasks: window.longTasks };
  });
  const tasks = r.tasks.slice(start.tasks).map(Math.round).sort((a, b) => a - b);
  const median = tasks.length ? tasks[tasks.length >> 1] : 0;
  console.log(`demo ${args.demo} at ${args.width} CSS px, DPR ${args.dpr}: canvas ${r.canvas[0]} x ${r.canvas[1]} device px`);
  console.log(`over ${args.seconds} s: ${r.frame - start.frame} frames, the app's frame ${r.perf.frame_cost_ms_median.toFixed(1)} ms median, ` +
              `${tasks.length} long tasks (median ${median} ms)`);
} finally {
  await browser.close();
  server.stop();
}
