// The SWIM demo in headless Chromium: a killed member is suspected, then declared dead by every
// live member's own view; and a 1,000-member cluster runs in the page (its cost is reported).
import { artifact, check, launchBrowser, openPage, parseArgs, screenshotStats, startServer,
         waitForFrames } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  // 1. Eight members, local profile, member 3 killed after three seconds, ten times real speed.
  const { page, errors } = await openPage(browser);
  await page.goto(`${server.url}?demo=swim&n=8&kill=3&speed=10`);
  await waitForFrames(page, 2);
  let s = await page.evaluate(() => window.vigil.state());
  check(s.demo === 'swim' && s.nodes === 8 && s.profile === 'local', 'URL parameters reach the SWIM panel');
  check(s.up[3] === false && s.up.filter(Boolean).length === 7, 'member 3 is down, seven are up');
  check(s.views.every((row, r) => r === 3 || row.every((v, c) => c === r || v !== 'unknown')),
        'before the kill every member had learnt of every other');

  // Every live member's own view must come to hold node 3 dead (the matrix column turns red).
  await page.waitForFunction(() => {
    const st = window.vigil.state();
    return st.views.every((row, r) => !st.up[r] || row[3] === 'dead');
  }, null, { timeout: 60000, polling: 100 });
  s = await page.evaluate(() => window.vigil.state());
  check(true, `all 7 survivors hold node-3 dead after ${(s.sim_ms / 1000).toFixed(1)} simulated s`);
  const others = s.views.flatMap((row, r) => (s.up[r] ? row.filter((v, c) => c !== r && c !== 3) : []));
  check(others.every((v) => v === 'alive'), 'no live member is held anything but alive');
  const log = s.log.join('\n');
  check(/suspects node-3/.test(log), 'the event log shows node-3 suspected');
  check(/declares node-3 dead/.test(log), 'the event log shows node-3 declared dead');
  // The log is newest first: the oldest suspicion of node-3 must sit below its oldest death.
  const oldest = (re) => s.log.reduce((at, line, i) => (re.test(line) ? i : at), -1);
  check(oldest(/suspects node-3/) > oldest(/declares node-3 dead/), 'suspicion came before death');
  const stats = await screenshotStats(browser, page, artifact(args, 'swim_panel.png'));
  check(stats.colors > 100 && stats.nonBackground > 0.05,
        `screenshot is not blank (${stats.colors} colours, ${(stats.nonBackground * 100).toFixed(1)}% drawn)`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
  await page.close();

  // 2. A thousand members on the LAN profile (the native benchmark's scenario, 1% loss): the page
  // keeps drawing the heat-map and the simulation advances. Costs are printed for the README.
  const big = await openPage(browser);
  await big.page.goto(`${server.url}?demo=swim&n=1000&profile=lan&loss=1&speed=2`);
  await waitForFrames(big.page, 2, 60000);
  await big.page.waitForFunction(() => window.vigil.state().app_perf.frames_measured >= 120,
                                 null, { timeout: 120000, polling: 250 });
  s = await big.page.evaluate(() => window.vigil.state());
  check(s.nodes === 1000 && s.sim_ms > 0, `1,000 members simulated for ${s.sim_ms} ms`);
  check(s.views_by_state.alive > 0.99 * 1000 * 999, `nearly every view is alive (${s.views_by_state.alive})`);
  const perf = s.app_perf;
  const rate = s.datagrams / (perf.advance_ms_total / 1000);
  console.log(`1000 nodes: frame cost median ${perf.frame_cost_ms_median.toFixed(1)} ms, ` +
              `p95 ${perf.frame_cost_ms_p95.toFixed(1)} ms; ${s.datagrams} datagrams in ` +
              `${perf.advance_ms_total.toFixed(0)} ms of simulation = ${rate.toFixed(0)} datagrams/s`);
  await screenshotStats(browser, big.page, artifact(args, 'swim_panel_1000.png'));
  check(big.errors.length === 0, `no console errors with 1,000 members (${big.errors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
