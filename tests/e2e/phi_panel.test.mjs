// The phi panel in headless Chromium: it renders, and what it computes equals the native CLI.
import { execFileSync } from 'node:child_process';
import { artifact, check, launchBrowser, openPage, parseArgs, screenshotStats, startServer,
         waitForFrames } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));

function cliPhi(state) {
  const out = execFileSync(args.vigil, [
    'lab', 'phi', '--mean', String(state.mean), '--std', String(state.std),
    '--silence', String(state.silence), '--pause', String(state.pause),
    '--model', state.model, '--format', 'json'], { encoding: 'utf8' });
  return JSON.parse(out).phi;
}

function samePhi(a, b) {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
}

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  // 1. The textbook example (mean 1000 ms, std 50, silence 1200 ms), given through the URL.
  const { page, errors } = await openPage(browser);
  const started = Date.now();
  await page.goto(`${server.url}?mean=1000&std=50&silence=1200&jitter=0&loss=0`);
  await waitForFrames(page, 2);
  let s = await page.evaluate(() => window.vigil.state());
  console.log(`first frame drawn ${s.app_perf.first_frame_at_ms.toFixed(0)} ms after navigation ` +
              `(${Date.now() - started} ms until the test saw two frames)`);
  check(s.app_perf.first_frame_at_ms > 0, 'the app records when its first frame was drawn');
  check(s.demo === 'phi', 'the phi demo is active');
  check(s.mean === 1000 && s.std === 50 && s.silence === 1200, 'URL parameters reach the panel');
  check(s.phi > 4.49 && s.phi < 4.51, `phi(1200; 1000, 50) = ${s.phi} is in (4.49, 4.51)`);
  check(samePhi(s.phi, cliPhi(s)), 'the page and `vigil lab phi` agree on the textbook example');

  // The live stream runs in simulated time: heartbeats arrive and phi is finite between them.
  await page.waitForFunction(() => window.vigil.state().live.received >= 20, null, { timeout: 30000 });
  s = await page.evaluate(() => window.vigil.state());
  check(s.live.sim_ms >= 1900, `the live stream advanced (${s.live.sim_ms} ms simulated)`);
  check(s.live.mean === 100, `without jitter or loss the live fit is exactly the 100 ms cadence`);

  const stats = await screenshotStats(browser, page, artifact(args, 'phi_panel.png'));
  check(stats.colors > 200 && stats.nonBackground > 0.05,
        `screenshot is not blank (${stats.colors} colours, ${(stats.nonBackground * 100).toFixed(1)}% drawn)`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
  await page.close();

  // 2. Following the live fit with the logistic model: whatever the page shows, the CLI agrees.
  const second = await openPage(browser);
  await second.page.goto(`${server.url}?follow=1&model=logistic&pause=30`);
  await waitForFrames(second.page, 2);
  await second.page.waitForFunction(() => window.vigil.state().live.received >= 10, null, { timeout: 30000 });
  for (let i = 0; i < 5; ++i) {
    const t = await second.page.evaluate(() => window.vigil.state());
    check(t.follow && t.model === 'logistic' && t.pause === 30, 'follow mode with the logistic model');
    check(samePhi(t.phi, cliPhi(t)),
          `page phi ${t.phi} = CLI phi for mean ${t.mean.toFixed(2)}, std ${t.std.toFixed(2)}, silence ${t.silence}`);
    await second.page.waitForTimeout(150);
  }
  await screenshotStats(browser, second.page, artifact(args, 'phi_panel_follow.png'));
  check(second.errors.length === 0, `no console errors in follow mode (${second.errors.join(' | ')})`);

  // 3. The explainer's bad network (80 +- 60 ms delay, 15 % loss): phi does not accuse while its
  //    window holds a handful of gaps (the warm-up), so no false alarm in the first seconds.
  const third = await openPage(browser);
  await third.page.goto(`${server.url}?demo=phi&interval=100&delay=80&jitter=60&loss=15`);
  await third.page.waitForFunction(() => window.vigil.state() && window.vigil.state().live.sim_ms >= 3000,
                                   null, { timeout: 60000, polling: 100 });
  const early = await third.page.evaluate(() => window.vigil.state().live);
  const phi8 = early.detectors.find((d) => /> 8/.test(d.name));
  check(phi8 && phi8.false_alarms === 0,
        `no phi > 8 false alarm in the first ${(early.sim_ms / 1000).toFixed(1)} s (${phi8 && phi8.false_alarms}; ${early.received} heartbeats)`);
  check(third.errors.length === 0, `no console errors (${third.errors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
