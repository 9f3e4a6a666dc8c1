// The fencing demo in headless Chromium: a stale leader's late write is rejected by a resource
// that checks fencing tokens, lands as a lost update when it does not, and the page's timeline is
// the one `vigil lab fencing` prints for the same parameters.
import { execFileSync } from 'node:child_process';
import { artifact, check, launchBrowser, openPage, parseArgs, screenshotStats, startServer,
         waitForFrames } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));

function cliRun(s) {
  const onOff = (b) => (b ? 'on' : 'off');
  const out = execFileSync(args.vigil, [
    'lab', 'fencing', '--lease', String(s.lease), '--pause', String(s.pause),
    '--interval', String(s.interval), '--old-writes', String(s.old_writes),
    '--token', String(s.token), '--new-first', onOff(s.new_first), '--fencing', onOff(s.fencing),
    '--participate', onOff(s.participate), '--format', 'json'], { encoding: 'utf8' });
  return JSON.parse(out);
}

// Plays the page's run to the end and checks it against the CLI; returns the final state.
async function playedToEnd(page, label) {
  await page.waitForFunction(() => window.vigil.state().done, null, { timeout: 60000, polling: 100 });
  const s = await page.evaluate(() => window.vigil.state());
  const cli = cliRun(s);
  check(s.sim_ms === s.end_ms && s.end_ms === cli.end_ms, `${label}: played to the end (${s.end_ms} ms)`);
  check(s.events.length === s.events_total && s.events.length === cli.timeline.length,
        `${label}: all ${s.events.length} events shown`);
  check(JSON.stringify(s.events) === JSON.stringify(cli.timeline),
        `${label}: the page's events equal \`vigil lab fencing --format json\``);
  check(s.accepted === cli.accepted && s.rejected === cli.rejected && s.highest === cli.highest,
        `${label}: accepted ${s.accepted}, rejected ${s.rejected}, highest ${s.highest}, as the CLI`);
  check(s.stale_write_rejected === cli.stale_write_rejected && s.lost_update === cli.lost_update,
        `${label}: the outcome flags equal the CLI's`);
  check(s.value === cli.timeline[cli.timeline.length - 1].stored,
        `${label}: the stored value is '${s.value}'`);
  return s;
}

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  // 1. The stale-leader story at the default settings: the late write with 41 meets a resource at 42.
  const { page, errors } = await openPage(browser);
  await page.goto(`${server.url}?demo=fencing&autoplay=1`);
  await waitForFrames(page, 2);
  let s = await page.evaluate(() => window.vigil.state());
  check(s.demo === 'fencing' && s.playing, 'the fencing demo is active and playing');
  check(s.lease === 1000 && s.pause === 2000 && s.fencing && !s.participate && s.new_first,
        'default parameters: lease 1000 ms, pause 2000 ms, fencing on');
  check(s.events.length < s.events_total, `events are revealed as simulated time passes (${s.events.length} of ${s.events_total} at ${s.sim_ms.toFixed(0)} ms)`);
  s = await playedToEnd(page, 'fencing on');
  check(s.stale_write_rejected === true && s.lost_update === false, 'the stale write was rejected');
  check(s.old_token === 41 && s.new_token === 42 && s.highest === 42 && s.value === 'new-7',
        'tokens 41 and 42; the resource ends at 42 with the new leader\'s value');
  const stale = s.events.filter((e) => e.outcome === 'rejected');
  check(stale.length === 1 && stale[0].actor === 'old leader' && stale[0].token === 41 && stale[0].t_ms === 2750,
        'exactly one rejected write: the old leader\'s, with 41, at 2750 ms');
  check(s.sentence.startsWith("old leader's write with token 41 rejected: resource has seen 42"),
        `the page says what happened: "${s.sentence}"`);
  let stats = await screenshotStats(browser, page, artifact(args, 'fencing_panel.png'));
  check(stats.colors > 100 && stats.nonBackground > 0.05,
        `screenshot is not blank (${stats.colors} colours, ${(stats.nonBackground * 100).toFixed(1)}% drawn)`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
  await page.close();

  // 2. Fencing off: the same late write lands over the new leader's value.
  const off = await openPage(browser);
  await off.page.goto(`${server.url}?demo=fencing&autoplay=1&fencing=off&lease=800&pause=1500&speed=4`);
  await waitForFrames(off.page, 2);
  s = await off.page.evaluate(() => window.vigil.state());
  check(!s.fencing && s.lease === 800 && s.pause === 1500, 'URL parameters reach the panel (fencing=off)');
  s = await playedToEnd(off.page, 'fencing off');
  check(s.stale_write_rejected === false && s.lost_update === true && s.rejected === 0,
        'without fencing the stale write is accepted: a lost update');
  const landed = s.events.find((e) => e.actor === 'old leader' && e.action === 'write' && e.token === 41 &&
                                      e.stored_token === 41 && e.highest === 42);
  check(landed !== undefined, `the old leader's write with 41 overwrote a value written with 42 (at ${landed && landed.t_ms} ms)`);
  check(s.sentence.includes('(lost update)'), `the page says so: "${s.sentence}"`);
  await screenshotStats(browser, off.page, artifact(args, 'fencing_panel_off.png'));
  check(off.errors.length === 0, `no console errors with fencing off (${off.errors.join(' | ')})`);
  await off.page.close();

  // 3. Embedded at 800 x 450: a token issued but not yet seen fences nothing, unless the
  //    resource takes part in the hand-over.
  const embed = await openPage(browser, { width: 800, height: 450 });
  await embed.page.goto(`${server.url}?demo=fencing&embed=1&autoplay=1&newfirst=off&participate=1&speed=4`);
  await waitForFrames(embed.page, 2);
  s = await playedToEnd(embed.page, 'embedded, resource participates');
  check(s.embed === true && s.participate && !s.new_first, 'embedded with participate=1, newfirst=off');
  check(s.stale_write_rejected === true && s.events.some((e) => e.action === 'fence' && e.highest === 42),
        'the issuer fenced the resource at the hand-over, so the stale write was rejected');
  stats = await screenshotStats(browser, embed.page, artifact(args, 'fencing_panel_embed.png'));
  check(stats.colors > 100 && stats.nonBackground > 0.05,
        `embedded screenshot is not blank (${stats.colors} colours, ${(stats.nonBackground * 100).toFixed(1)}% drawn)`);
  check(embed.errors.length === 0, `no console errors when embedded (${embed.errors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
