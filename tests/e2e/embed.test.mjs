// assets/embed-example.html: two demos, each chromeless in its own iframe, configured by URL;
// both run, and the host page keeps its own keyboard input.
import { artifact, check, launchBrowser, openPage, parseArgs, screenshotStats, startServer } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  const { page, errors } = await openPage(browser, { width: 1400, height: 900 });
  await page.goto(`${server.url}embed-example.html`);
  const frameState = async (id) => {
    const frame = await (await page.$(`iframe#${id}`)).contentFrame();
    await frame.waitForFunction(() => {
      const s = window.vigil && window.vigil.state();
      return s && s.frame >= 3;
    }, null, { timeout: 60000, polling: 100 });
    return frame;
  };
  const gossip = await frameState('gossip');
  const swim = await frameState('swim');
  let g = await gossip.evaluate(() => window.vigil.state());
  const w = await swim.evaluate(() => window.vigil.state());
  check(g.embed && g.demo === 'gossip' && g.n === 400 && g.mode === 'pushpull' && g.fanout === 2,
        'the left frame is the gossip demo, embedded, configured by its URL');
  check(w.embed && w.demo === 'swim' && w.nodes === 8, 'the right frame is the SWIM demo, embedded, 8 members');

  // Autoplay: the embedded gossip run plays to the end by itself.
  await gossip.waitForFunction(() => window.vigil.state().done, null, { timeout: 60000, polling: 100 });
  g = await gossip.evaluate(() => window.vigil.state());
  check(g.informed === g.live, `the embedded rumour reached all ${g.live} members in ${g.round} rounds`);
  await swim.waitForFunction((t) => window.vigil.state().sim_ms > t, w.sim_ms, { timeout: 30000, polling: 100 });
  check(true, 'the embedded SWIM cluster advances');

  // The canvas is sized to its frame, not to the top window.
  const sizes = await swim.evaluate(() => ({ canvas: document.getElementById('canvas').clientWidth,
                                             frame: window.innerWidth }));
  check(sizes.canvas === sizes.frame && sizes.frame < 1000,
        `the embedded canvas fills its ${sizes.frame}px frame`);

  // Typing on the host page reaches the host page's input, not the demos.
  await page.click('#note');
  await page.keyboard.type('hello');
  check(await page.inputValue('#note') === 'hello', 'the host page keeps its keyboard input');

  const stats = await screenshotStats(browser, page, artifact(args, 'embed_example.png'));
  check(stats.colors > 100 && stats.nonBackground > 0.2,
        `screenshot is not blank (${stats.colors} colours, ${(stats.nonBackground * 100).toFixed(1)}% drawn)`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
