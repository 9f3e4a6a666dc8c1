// Every reader: the keyboard leaves every demo (Tab, Shift+Tab) in the app, the explainer and a
// page of another origin; Space, `.`, `r` and `?` work the demo; keyboard focus shows; the canvas
// is labelled and its text (the scene's caption, a live summary) changes with what it shows;
// reduced motion holds scenes and autoplay until the reader presses play.
import http from 'node:http';
import { artifact, check, drawFrames, launchBrowser, openPage, parseArgs, startServer } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();

const ready = (frame) => frame.waitForFunction(
  () => window.vigil && window.vigil.state() && window.vigil.frames() >= 3, null, { timeout: 60000, polling: 100 });
const state = (frame) => frame.evaluate(() => window.vigil.state());
const until = (frame, fn, arg, timeout = 30000) =>
  frame.waitForFunction(fn, arg, { timeout, polling: 50 });
// Where the keyboard is: the id of the focused element of the top page, the canvas inside a
// frame reported as the frame's id.
const focused = (page) => page.evaluate(() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;  // embed.js' frames
  if (!a || a === document.body) return 'body';
  return a.id || a.tagName.toLowerCase();
});

try {
  const { page, errors } = await openPage(browser, { width: 1280, height: 800 });

  // ------------------------------------------------------------------ the app, alone
  await page.goto(`${server.url}index.html?demo=phi&scene=pause-crash`);
  await ready(page);
  await page.keyboard.press('Tab');
  check(await focused(page) === 'canvas', 'Tab from the page\'s start focuses the demo');
  const ring = await page.evaluate(() => {
    const c = document.getElementById('canvas');
    const s = getComputedStyle(c);
    return { visible: c.matches(':focus-visible'), style: s.outlineStyle, width: s.outlineWidth };
  });
  check(ring.visible && ring.style === 'solid' && ring.width === '3px',
        `keyboard focus draws a ring (${ring.style} ${ring.width})`);
  await page.screenshot({ path: artifact(args, 'keyboard_focus_ring.png') });
  const label = await page.evaluate(() => ({
    role: document.getElementById('canvas').getAttribute('role'),
    label: window.vigil.describe().label,
  }));
  check(label.role === 'application' && /^Phi tails: interactive demo/.test(label.label),
        `the canvas has a role and names its demo ("${label.label}")`);

  // Space, `.` and `r` on the phi story; `?` opens the list of keys.
  await until(page, () => window.vigil.state().scene_started && window.vigil.state().scene_playing);
  await page.keyboard.press(' ');
  await until(page, () => !window.vigil.state().scene_playing);
  check(true, 'Space pauses the story');
  const stepBefore = (await state(page)).live.sim_ms;
  await page.keyboard.press('.');
  await until(page, (t) => window.vigil.state().live.sim_ms > t, stepBefore);
  check(!(await state(page)).scene_playing, '`.` steps the paused story, which stays paused');
  await page.keyboard.press(' ');
  await until(page, () => window.vigil.state().scene_playing);
  check(true, 'Space plays it again');
  await until(page, () => window.vigil.state().step >= 1);
  const caption1 = await page.evaluate(() => window.vigil.describe().caption);
  const shown = await page.evaluate(() => {
    const c = document.getElementById('caption');
    const r = c.getBoundingClientRect();
    return { text: c.textContent, hidden: c.hidden, live: c.getAttribute('aria-live'), top: r.top, height: r.height };
  });
  check(!shown.hidden && shown.text.length > 20 && shown.live === 'polite' && shown.height > 10,
        `the story's caption is page text in a live region ("${shown.text.slice(0, 50)}…")`);
  check(shown.text === (await state(page)).caption, 'the page shows the caption the story is at');
  await page.keyboard.press('r');
  await until(page, () => window.vigil.state().step === 0 || window.vigil.state().live.sim_ms < 1000);
  check(true, '`r` replays the story from its start');
  await until(page, (c) => window.vigil.describe().caption !== c, caption1, 60000);
  check(true, 'the caption changes as the story steps');
  await page.keyboard.press('?');
  await until(page, () => window.vigil.state().keys_sheet);
  await page.screenshot({ path: artifact(args, 'keyboard_keys_sheet.png') });
  await page.keyboard.press('Escape');
  await until(page, () => !window.vigil.state().keys_sheet);
  check(true, '`?` opens the list of keys and Escape closes it');
  await page.keyboard.press('Tab');
  check(await focused(page) !== 'canvas', 'Tab leaves the demo');
  await page.keyboard.press('Shift+Tab');
  check(await focused(page) === 'canvas', 'Shift+Tab comes back');
  // Alone in its page the canvas is the only stop, so Shift+Tab may wrap back to it; pages
  // with neighbours below check both directions.

  // A key the demo has no use for keeps its meaning: typing `x` changes nothing, and is not
  // cancelled (the browser could use it).
  await page.focus('#canvas');
  await page.evaluate(() => document.addEventListener('keydown', (e) => {
    window.keptX = e.key === 'x' && !e.defaultPrevented;
  }, { once: true }));
  await page.keyboard.press('x');
  check(await page.evaluate(() => window.keptX === true), 'a key the demo does not use is left to the page');

  // The arrow keys move a focus frame between the controls and Enter presses the one in focus:
  // in the embedded phi story, down into the controls and back up lands on "replay".
  await page.goto(`${server.url}index.html?demo=phi&embed=1&scene=pause-crash`);
  await ready(page);
  await until(page, () => window.vigil.state().step >= 1);
  await page.focus('#canvas');
  check(!(await state(page)).keyboard_focus, 'no control shows the keyboard\'s frame before a key');
  await page.keyboard.press('ArrowDown');
  await until(page, () => window.vigil.state().keyboard_focus);
  check(true, 'an arrow key puts the frame on a control');
  await drawFrames(page, 2);  // a reader's next key comes frames later
  await page.keyboard.press('ArrowUp');
  await drawFrames(page, 2);
  await page.screenshot({ path: artifact(args, 'keyboard_nav_frame.png') });
  await page.keyboard.press('Enter');
  await until(page, () => window.vigil.state().step === 0);
  check(true, 'Enter presses it: the story starts again');

  // ------------------------------------------------ a member dies: the summary says so
  await page.goto(`${server.url}index.html?demo=swim&view=ring&scene=crash`);
  await ready(page);
  await until(page, () => window.vigil.describe().summary.includes('running member holds every other alive'));
  check(true, 'the SWIM summary starts with every member alive');
  await until(page, () => /is dead to/.test(window.vigil.describe().summary), null, 90000);
  const summary = await page.evaluate(() => window.vigil.describe().summary);
  check(/node-\d+ \(crashed\) is dead to \d+ of \d+/.test(summary), `the live summary names the dead member ("${summary}")`);
  const region = await page.evaluate(() => document.getElementById('summary').getAttribute('aria-live'));
  check(region === 'polite', 'the summary is a polite live region');
  // The ring's transport: Space pauses, `.` delivers one event.
  await page.focus('#canvas');
  await page.keyboard.press(' ');
  await until(page, () => window.vigil.state().paused);
  const steps = (await state(page)).steps.count;
  await page.keyboard.press('.');
  await until(page, (n) => window.vigil.state().steps.count > n, steps);
  check((await state(page)).paused, 'Space pauses the SWIM ring and `.` steps it one event');

  // ------------------------------------------------------------- the explainer
  await page.goto(`${server.url}explainer.html`);
  await page.waitForFunction(() => window.explainer && window.explainer.ready, null, { timeout: 60000 });
  const first = await page.$('figure.demo iframe');
  await first.scrollIntoViewIfNeeded();
  const inner = await first.contentFrame();
  await ready(inner);
  // Start from the link just before the first demo.
  await page.evaluate(() => {
    const frame = document.querySelector('figure.demo iframe');
    const links = [...document.querySelectorAll('a[href], iframe')];
    const before = links[links.indexOf(frame) - 1];
    before.id = before.id || 'before-first-demo';
    before.focus();
  });
  const beforeId = await focused(page);
  await page.keyboard.press('Tab');
  check(await focused(page) === 'iframe' && await inner.evaluate(() => document.activeElement.id) === 'canvas',
        'Tab enters the explainer\'s first demo');
  let left = false;
  for (let i = 0; i < 3 && !left; ++i) {
    await page.keyboard.press('Tab');
    left = await focused(page) !== 'iframe';
  }
  check(left, `Tab leaves the explainer's demo (now on ${await focused(page)})`);
  await page.keyboard.press('Shift+Tab');
  check(await focused(page) === 'iframe', 'Shift+Tab goes back into it');
  await page.keyboard.press('Shift+Tab');
  check(await focused(page) === beforeId, 'and Shift+Tab leaves it to the link before');
  await until(page, () => {
    const f = document.querySelector('figure.demo figcaption .vigil-describe');
    return f && f.getAttribute('aria-live') === 'polite' && /Phi now/.test(f.textContent);
  });
  check(true, 'the explainer\'s figure caption carries the demo\'s live text');
  check(await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior) === 'smooth',
        'the explainer scrolls smoothly when motion is welcome');

  // --------------------------------------------- a page of another origin, with embed.js
  // A real other origin: the same host on another port, serving a page that embeds a demo.
  const hostPage = `<!doctype html><html lang="en"><head><title>docs</title></head><body>
    <p><a id="before" href="#top">before</a></p>
    <div data-vigil-demo="swim" data-params="view=ring&scene=crash" data-title="A SWIM cluster"></div>
    <p><a id="after" href="#end">after</a></p>
    <script src="${server.url}embed.js"></script></body></html>`;
  const docs = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(hostPage);
  });
  await new Promise((resolve) => docs.listen(0, '127.0.0.1', resolve));
  await page.goto(`http://127.0.0.1:${docs.address().port}/`);
  const hostFrame = await page.waitForSelector('[data-vigil-demo] iframe');
  const embedded = await hostFrame.contentFrame();
  await ready(embedded);
  await page.focus('#before');
  await page.keyboard.press('Tab');
  const entered = await focused(page);
  check(entered === 'iframe', `Tab enters the embedded demo of another origin (focus on ${entered})`);
  await page.keyboard.press('Tab');
  check(await focused(page) === 'after', 'and Tab leaves it to the next link');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  check(await focused(page) === 'before', 'Shift+Tab crosses it backwards');
  await until(page, () => {
    const host = document.querySelector('[data-vigil-demo]');
    const r = (host.shadowRoot || host).querySelector('.vigil-describe');
    return r && r.getAttribute('aria-live') === 'polite' && /members, \d+ running/.test(r.textContent);
  });
  check(true, 'the embedding page receives the demo\'s text into a live region');
  docs.close();

  // ------------------------------------------------------------------ reduced motion
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`${server.url}index.html?demo=swim&view=ring&scene=crash`);
  await ready(page);
  for (let i = 0; i < 30; ++i) await page.evaluate(() => new Promise(requestAnimationFrame));
  let s = await state(page);
  check(s.reduced_motion && !s.scene_started && s.sim_ms === 0,
        `under reduced motion the story waits (started ${s.scene_started}, ${s.sim_ms} ms)`);
  await page.focus('#canvas');
  await page.keyboard.press(' ');
  await until(page, () => window.vigil.state().scene_started && window.vigil.state().sim_ms > 0);
  check(true, 'Space starts the story');
  await page.goto(`${server.url}index.html?demo=phi&scene=pause-crash`);
  await ready(page);
  for (let i = 0; i < 30; ++i) await page.evaluate(() => new Promise(requestAnimationFrame));
  s = await state(page);
  const waiting = await page.evaluate(() => window.vigil.describe().caption);
  check(!s.scene_started && s.live.sim_ms === 0 && /press play/.test(waiting),
        `the phi story waits too, and says so ("${waiting}")`);
  await page.focus('#canvas');
  await page.keyboard.press(' ');
  await until(page, () => window.vigil.state().scene_started && window.vigil.state().live.sim_ms > 0);
  check(true, 'Space starts it');
  await page.goto(`${server.url}index.html?demo=gossip&autoplay=1&n=1000`);
  await ready(page);
  for (let i = 0; i < 30; ++i) await page.evaluate(() => new Promise(requestAnimationFrame));
  s = await state(page);
  check(!s.playing && s.round === 0, `under reduced motion an autoplaying demo waits (round ${s.round})`);
  await page.goto(`${server.url}explainer.html`);
  check(await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior) === 'auto',
        'the explainer scrolls instantly under reduced motion');
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  await page.goto(`${server.url}index.html?demo=gossip&autoplay=1&n=1000&motion=reduce`);
  await ready(page);
  for (let i = 0; i < 30; ++i) await page.evaluate(() => new Promise(requestAnimationFrame));
  s = await state(page);
  check(s.reduced_motion && !s.playing, 'motion=reduce in the URL holds autoplay too');

  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
