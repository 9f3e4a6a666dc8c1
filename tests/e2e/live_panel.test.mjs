// The live demo against real agents: `vigil demo --nodes 3` serves the page, which connects to
// all three agents by itself; after one agent is killed with SIGKILL, the survivors' own views,
// as the page shows them, hold it dead.
import { layoutProblems } from './layout_checks.mjs';
import { artifact, check, drawFrames, launchBrowser, openPage, parseArgs, screenshotStats,
         startDemo, waitForFrames, waitForLiveAgents } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const demo = await startDemo(args.vigil, args.web, 3);
const stopDemo = demo.stop;

const browser = await launchBrowser();
try {
  const url = demo.url;
  const info = await (await fetch(new URL('/v1/demo', url))).json();
  check(info.agents.length === 3, 'the demo runs three agents');

  const { page, errors } = await openPage(browser);
  await page.goto(`${url}?demo=live`);
  await waitForFrames(page, 2);
  // The shell fetched /v1/demo: the panel connects to the three agents with no typing.
  await waitForLiveAgents(page, 3);
  let s = await page.evaluate(() => window.vigil.state());
  check(true, `three agents connected, each sees the other two alive (${s.agents.map((a) => a.name).join(', ')})`);
  check(s.token_entered, 'the demo token was filled in, so fault injection is enabled');
  await screenshotStats(browser, page, artifact(args, 'live_panel_alive.png'));

  // Kill the last agent outright: no farewell, its socket just dies.
  const victim = info.agents[2];
  check(Number.isInteger(victim.pid) && victim.pid > 0, `${victim.name} runs as pid ${victim.pid}`);
  process.kill(victim.pid, 'SIGKILL');
  await page.waitForFunction((name) => {
    const st = window.vigil.state();
    const survivors = st.agents.filter((a) => a.name !== name);
    return survivors.length === 2 && survivors.every((a) => a.status === 'connected' && a.members[name] === 'dead');
  }, victim.name, { timeout: 60000, polling: 200 });
  s = await page.evaluate(() => window.vigil.state());
  const gone = s.agents.find((a) => a.name === victim.name);
  check(gone.status !== 'connected', `the page shows the link to ${victim.name} ${gone.status}`);
  check(true, `both survivors hold ${victim.name} dead`);
  const stats = await screenshotStats(browser, page, artifact(args, 'live_panel.png'));
  check(stats.colors > 100 && stats.nonBackground > 0.05,
        `screenshot is not blank (${stats.colors} colours, ${(stats.nonBackground * 100).toFixed(1)}% drawn)`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);

  // A fresh page after the crash: /v1/demo still lists the dead agent, but the survivors hold it
  // dead, so it gets no row (its column stays), and fault injection aims at a live member.
  const fresh = await openPage(browser);
  await fresh.page.goto(`${url}?demo=live`);
  await fresh.page.waitForFunction((name) => {
    const st = window.vigil && window.vigil.state();
    return st && st.agents && st.agents.length === 2 && st.agents.every((a) => a.status === 'connected' &&
      a.members[name] === 'dead') && st.peer !== '';
  }, victim.name, { timeout: 60000, polling: 200 });
  const after = await fresh.page.evaluate(() => window.vigil.state());
  const alive = info.agents.filter((a) => a.name !== victim.name).map((a) => a.name);
  check(!after.agents.some((a) => a.name === victim.name || a.address.endsWith(`:${victim.http.split(':')[1]}`)) &&
        after.columns.includes(victim.name) && !after.columns.some((c) => /^\d/.test(c)),
        `a fresh view has rows ${after.agents.map((a) => a.name).join(', ')} and columns ${after.columns.join(', ')}`);
  check(alive.includes(after.peer) && after.peer !== after.agents[0].name,
        `its default peer is ${after.peer}, a live member`);
  await drawFrames(fresh.page, 2);
  const block = (await fresh.page.evaluate(() => window.vigil.state())).layout.items.find((i) => i.label === 'block -> peer');
  await fresh.page.mouse.move(block.x + block.w / 2, block.y + block.h / 2);
  await fresh.page.mouse.down();
  await fresh.page.mouse.up();
  await fresh.page.waitForFunction(() => window.vigil.state().agents[0].last_reply !== '', null, { timeout: 10000, polling: 100 });
  const reply = (await fresh.page.evaluate(() => window.vigil.state())).agents[0].last_reply;
  check(reply === 'ok block', `"block -> peer" is accepted (${reply})`);
  await fresh.page.close();

  // The same cluster on a phone (320 CSS px, touch): one column, every widget and label fits.
  const phone = await (await browser.newContext({ viewport: { width: 320, height: 700 }, deviceScaleFactor: 2,
                                                  hasTouch: true, isMobile: true })).newPage();
  await phone.goto(`${url}?demo=live`);
  await phone.waitForFunction(() => {
    const st = window.vigil && window.vigil.state();
    return st && st.agents && st.agents.filter((a) => a.status === 'connected').length === 2;
  }, null, { timeout: 60000, polling: 200 });
  await drawFrames(phone, 3);
  const small = await phone.evaluate(() => window.vigil.state());
  const found = layoutProblems(small.layout, true);
  check(small.layout.narrow && found.length === 0,
        `on a 320 px phone the live view is one column and fits (${found.slice(0, 4).join('; ')})`);
  const survivors = info.agents.filter((a) => a.name !== victim.name).map((a) => a.name);
  check(survivors.every((name) => small.layout.texts.some((t) => t.text === name)),
        `and its matrix names the agents that are up (${survivors.join(', ')})`);
  await phone.screenshot({ path: artifact(args, 'live_panel_phone.png'), fullPage: true });
} finally {
  await browser.close();
  stopDemo();
}
