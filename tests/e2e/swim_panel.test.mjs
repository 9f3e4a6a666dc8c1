// The SWIM demo in headless Chromium: a killed member is suspected, then declared dead by every
// live member's own view; a 1,000-member cluster runs in the page (its cost is reported); and in
// a 1,000-member matrix, drawn from a cached picture, a killed member's column shows dead.
import { artifact, check, decodePng, launchBrowser, openPage, parseArgs, screenshotStats, startServer,
         waitForFrames } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  // 1. Eight members, local profile, member 3 killed after three seconds, ten times real speed.
  const { page, errors } = await openPage(browser);
  await page.goto(`${server.url}?demo=swim&n=8&kill=3&speed=10&view=matrix`);
  await waitForFrames(page, 2);
  let s = await page.evaluate(() => window.vigil.state());
  check(s.demo === 'swim' && s.nodes === 8 && s.profile === 'local', 'URL parameters reach the SWIM panel');
  check(s.up[3] === false && s.up.filter(Boolean).length === 7, 'member 3 is down, seven are up');
  check(s.views.every((row, r) => r === 3 || row.every((v, c) => c === r || v !== 'unknown')),
        'before the kill every member had learnt of every other');

  // Every live member's own view must come to hold node 3 dead (the matrix column turns red).
  // The state is taken in the frame where that first holds: 15 simulated seconds later (the
  // local profile's gossip-to-the-dead time) the first to declare it forgets it again, and at
  // ten times real speed that is 1.5 s away, less than a loaded machine may take to poll twice.
  s = await (await page.waitForFunction(() => {
    const st = window.vigil.state();
    return st.views.every((row, r) => !st.up[r] || row[3] === 'dead') && st;
  }, null, { timeout: 60000, polling: 'raf' })).jsonValue();
  check(true, `all 7 survivors hold node-3 dead after ${(s.sim_ms / 1000).toFixed(1)} simulated s`);
  const others = s.views.flatMap((row, r) => (s.up[r] ? row.filter((v, c) => c !== r && c !== 3) : []));
  check(others.every((v) => v === 'alive'), 'no live member is held anything but alive');
  check(s.views_of_selected.dead === 7 && s.matrix.selected_shown_dead === 7,
        `the matrix shows node-3 dead in each survivor's row (${s.matrix.selected_shown_dead} of 7)`);
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
  check(perf.frames_measured >= 120 && perf.frame_cost_ms_median > 0 &&
        perf.frame_cost_ms_p95 >= perf.frame_cost_ms_median, 'the page reports its frame cost');
  // advance() time leaves the panel's construction out, as the native bench leaves its setup out.
  check(s.setup_ms > 0, `the panel was built in ${s.setup_ms.toFixed(0)} ms`);
  const simulated = s.datagrams - s.setup_datagrams;
  const rate = simulated / (perf.advance_ms_total / 1000);
  console.log(`1000 nodes: frame cost median ${perf.frame_cost_ms_median.toFixed(1)} ms, ` +
              `p95 ${perf.frame_cost_ms_p95.toFixed(1)} ms; ${simulated} datagrams in ` +
              `${perf.advance_ms_total.toFixed(0)} ms of simulation = ${rate.toFixed(0)} datagrams/s ` +
              `(built in ${s.setup_ms.toFixed(0)} ms)`);
  await screenshotStats(browser, big.page, artifact(args, 'swim_panel_1000.png'));
  check(big.errors.length === 0, `no console errors with 1,000 members (${big.errors.join(' | ')})`);
  await big.page.close();

  // 3. A thousand members, member 500 killed: its column must turn red for every observer that
  // holds it dead, although each texel of the picture stands for several cells.
  const dead = await openPage(browser);
  const killed = 500;
  await dead.page.goto(`${server.url}?demo=swim&n=1000&profile=lan&kill=${killed}&speed=10`);
  await waitForFrames(dead.page, 2, 60000);
  s = await dead.page.evaluate(() => window.vigil.state());
  check(s.selected === killed && s.up[killed] === false, `member ${killed} is down`);
  check(s.matrix.block_rows > 1 && s.matrix.block_cols > 1,
        `the matrix is drawn in blocks of ${s.matrix.block_rows} x ${s.matrix.block_cols} cells`);
  // While the news spreads, and once it has: every observer holding it dead shows red.
  const shownMatchesHeld = (st) => st.matrix.selected_shown_dead === st.views_of_selected.dead;
  await dead.page.waitForFunction(() => window.vigil.state().views_of_selected.dead > 0,
                                  null, { timeout: 60000, polling: 200 });
  s = await dead.page.evaluate(() => window.vigil.state());
  check(shownMatchesHeld(s), `the picture shows red for each observer holding member ${killed} dead ` +
                             `(${s.views_of_selected.dead} so far)`);
  await dead.page.waitForFunction(() => window.vigil.state().views_of_selected.dead === 999,
                                  null, { timeout: 90000, polling: 500 });
  s = await dead.page.evaluate(() => window.vigil.state());
  check(shownMatchesHeld(s), `all 999 live observers hold member ${killed} dead after ` +
                             `${(s.sim_ms / 1000).toFixed(1)} simulated s, and the picture shows each`);
  check(s.matrix.uploads >= 2, `the picture was updated in place (${s.matrix.uploads} uploads)`);

  // The pixels: the killed member's column is red from top to bottom, a column far from it has
  // no red at all.
  const dpr = await dead.page.evaluate(() => window.devicePixelRatio);
  const [x0, y0, x1, y1] = s.matrix.rect.map((v) => v / dpr);
  const png = await dead.page.screenshot({ path: artifact(args, 'swim_panel_1000_dead.png') });
  const columnX = (member) => x0 + ((member + 0.5) / 1000) * (x1 - x0);
  const red = await redShare(browser, png, [columnX(killed), columnX(killed + 250)], y0, y1, s.palette.dead);
  check(red[0] > 0.97, `the killed member's column is red in ${(red[0] * 100).toFixed(1)}% of its height`);
  check(red[1] === 0, `a live member's column shows no red (${(red[1] * 100).toFixed(1)}%)`);

  // Hovering names the cell under the mouse.
  const row = 200;
  await dead.page.mouse.move(columnX(killed), y0 + ((row + 0.5) / 1000) * (y1 - y0));
  await dead.page.waitForFunction(() => window.vigil.state().matrix.hovered !== null,
                                  null, { timeout: 10000, polling: 100 });
  const hovered = (await dead.page.evaluate(() => window.vigil.state())).matrix.hovered;
  check(Math.abs(hovered[0] - row) <= 1 && Math.abs(hovered[1] - killed) <= 1,
        `hovering cell (${row}, ${killed}) names cell (${hovered.join(', ')})`);
  check(dead.errors.length === 0, `no console errors with a killed member (${dead.errors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}

// For each x (CSS pixels), the share of pixel rows in [top, bottom) where the screenshot is the
// dead member's red within one pixel of x (a block edge may fall between a cell and its pixel).
// The share of each column's pixels drawn in the theme's "dead" colour (state().palette.dead).
async function redShare(browserToUse, png, xs, top, bottom, deadHex) {
  const { width, data } = await decodePng(browserToUse, png);
  const dead = [1, 3, 5].map((i) => parseInt(deadHex.slice(i, i + 2), 16));
  const isRed = (x, y) => {
    const i = (y * width + x) * 4;
    return dead.every((c, k) => Math.abs(data[i + k] - c) < 16);
  };
  const y0 = Math.ceil(top), y1 = Math.floor(bottom);
  return xs.map((x) => {
    const px = Math.floor(x);
    let red = 0;
    for (let y = y0; y < y1; ++y) if (isRed(px - 1, y) || isRed(px, y) || isRed(px + 1, y)) ++red;
    return red / (y1 - y0);
  });
}
