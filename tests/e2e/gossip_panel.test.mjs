// The gossip demo in headless Chromium: a rumour played round by round reaches every live member,
// and the page's run is the CLI's run (same seed, same draws, same informed counts).
import { execFileSync } from 'node:child_process';
import { artifact, check, launchBrowser, openPage, parseArgs, screenshotStats, startServer,
         waitForFrames } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));

function cliRun(s) {
  const out = execFileSync(args.vigil, [
    'lab', 'gossip', '--nodes', String(s.n), '--mode', s.mode, '--fanout', String(s.fanout),
    '--dead', String(s.dead), '--trials', '1', '--seed', String(s.seed), '--format', 'json'],
  { encoding: 'utf8' });
  return JSON.parse(out);
}

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  // 1. Push-pull over 2,000 members with 20 crashed, played to the end.
  const { page, errors } = await openPage(browser);
  await page.goto(`${server.url}?demo=gossip&n=2000&mode=pushpull&fanout=2&dead=20&autoplay=1&rate=20`);
  await waitForFrames(page, 2);
  let s = await page.evaluate(() => window.vigil.state());
  check(s.demo === 'gossip' && s.n === 2000 && s.mode === 'pushpull' && s.fanout === 2 && s.dead === 20,
        'URL parameters reach the gossip panel');
  await page.waitForFunction(() => window.vigil.state().done, null, { timeout: 60000, polling: 100 });
  s = await page.evaluate(() => window.vigil.state());
  check(s.informed === s.live && s.live === 1980, `the rumour reached all ${s.live} live members`);
  check(s.round >= 2 && s.round < 30, `it took ${s.round} rounds`);
  const counts = s.informed_by_round;
  check(counts.every((c, i) => i === 0 || c >= counts[i - 1]), 'the informed count never falls');
  const cli = cliRun(s);
  check(JSON.stringify(counts) === JSON.stringify(cli.informed_by_round),
        `the page's informed counts equal \`vigil lab gossip\` (${counts.join(',')})`);
  check(Math.abs(s.messages_per_node - cli.messages_per_node) < 1e-9,
        `messages per member equal the CLI's (${s.messages_per_node})`);
  const stats = await screenshotStats(browser, page, artifact(args, 'gossip_panel.png'));
  check(stats.colors > 100 && stats.nonBackground > 0.05,
        `screenshot is not blank (${stats.colors} colours, ${(stats.nonBackground * 100).toFixed(1)}% drawn)`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
  await page.close();

  // 2. Heartbeat-counter membership: false suspicions fall as T_fail grows, to none at a large one.
  const second = await openPage(browser);
  await second.page.goto(`${server.url}?demo=gossip&view=membership&n=60&fanout=2&trials=2`);
  await waitForFrames(second.page, 2);
  await second.page.waitForFunction(() => {
    const m = window.vigil.state().membership;
    return m && m.ready;
  }, null, { timeout: 60000, polling: 100 });
  const m = (await second.page.evaluate(() => window.vigil.state())).membership;
  const fs = m.false_suspicion_node_rounds;
  check(fs.length === m.t_fail.length && fs.length >= 8, `one row per T_fail (${fs.length})`);
  check(fs[0] > 0, `T_fail = ${m.t_fail[0]} suspects live members (${fs[0]} node-rounds)`);
  check(fs[fs.length - 1] === 0, `T_fail = ${m.t_fail[fs.length - 1]} suspects none`);
  check(fs.every((v, i) => i === 0 || v <= fs[i - 1]), 'false suspicions never grow with T_fail');
  const agree = m.agree_dead_rounds_mean;
  check(agree[agree.length - 1] > agree[1], 'a larger T_fail takes longer to agree a member is dead');
  await screenshotStats(browser, second.page, artifact(args, 'gossip_membership.png'));
  check(second.errors.length === 0, `no console errors in the membership view (${second.errors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
