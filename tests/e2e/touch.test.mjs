// Touch as a reader's finger gives it, on a phone profile (412x860 CSS px, DPR 2, touch):
// one tap switches the demo, one tap toggles a checkbox, a drag along a slider or a threshold
// line moves it in proportion to the drag, and a vertical swipe that starts on a plot scrolls
// the page while one that starts on a slider does not. Touches are real touch events (the
// DevTools protocol's Input.dispatchTouchEvent), so the browser decides about scrolling itself.
import { check, drawFrames, launchBrowser, parseArgs, startServer, waitForFrames } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 412, height: 860 }, deviceScaleFactor: 2,
                                             hasTouch: true, isMobile: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const cdp = await context.newCDPSession(page);
  await page.goto(`${server.url}index.html?demo=phi&loss=0`);
  await waitForFrames(page, 3, 60000);

  const state = () => page.evaluate(() => window.vigil.state());
  // The app has drawn `n` more frames: whatever a touch queued has been applied.
  const settle = (n = 4) => drawFrames(page, n);
  // A widget's or a text's rectangle in page coordinates (the layout is in canvas pixels).
  const find = async (label, kind = 'items') => {
    const s = await state();
    const key = kind === 'items' ? 'label' : 'text';
    const r = s.layout[kind].find((i) => i[key] === label);
    if (!r) throw new Error(`no ${label} in the layout`);
    // A finger can only touch what is on screen: scroll it into the middle first.
    let top = await page.evaluate(() => document.getElementById('canvas').getBoundingClientRect().top);
    if (r.y + top < 80 || r.y + r.h + top > 780) {
      await page.evaluate((y) => window.scrollBy(0, y - 400), r.y + top);
      top = await page.evaluate(() => document.getElementById('canvas').getBoundingClientRect().top);
    }
    return { ...r, y: r.y + top };
  };
  const touch = (type, x, y) => cdp.send('Input.dispatchTouchEvent', {
    type, touchPoints: type === 'touchEnd' ? [] : [{ x, y, id: 1, radiusX: 4, radiusY: 4 }] });
  // A finger that lands, moves in steps (one per frame or so) and lifts.
  async function drag(x0, y0, x1, y1, steps = 12) {
    await touch('touchStart', x0, y0);
    await settle(2);
    for (let i = 1; i <= steps; ++i) {
      await touch('touchMove', x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps);
      await page.waitForFunction(() => true);  // one turn of the page's event loop
    }
    await settle(3);
    await touch('touchEnd');
    await settle(3);
  }
  const tap = async (r) => {
    await page.touchscreen.tap(r.x + r.w / 2, r.y + r.h / 2);
    await settle();
  };

  check((await state()).layout.touch, 'a phone starts with fingertip-sized controls (pointer: coarse)');
  // At least 44 CSS px tall, as touch guidance (WCAG 2.5.5, Apple's and Android's) asks.
  const controls = (await state()).layout.items.filter((i) =>
    ['Gossip', 'crash', 'restart', 'pause sender 600 ms', 'mean (ms)', 'keys'].includes(i.label));
  check(controls.length === 6 && controls.every((c) => c.h >= 44),
        `buttons and sliders are at least 44 px tall (${controls.map((c) => `${c.label} ${c.h}`).join(', ')})`);

  // One tap switches the demo, every time.
  for (const [title, id] of [['Gossip', 'gossip'], ['SWIM cluster', 'swim'], ['Phi tails', 'phi']]) {
    await tap(await find(title));
    check((await state()).demo === id, `one tap on "${title}" shows the ${id} demo`);
  }

  // A drag along a slider moves its value by the dragged share of its track.
  const mean = await find('mean (ms)');
  const before = (await state()).mean;  // 1..3000 across the track
  const grabFraction = (before - 1) / 2999;
  const x0 = mean.x + 12 + grabFraction * (mean.w - 24);
  const dx = mean.w * 0.3;
  await drag(x0, mean.y + mean.h / 2, x0 + dx, mean.y + mean.h / 2);
  const after = (await state()).mean;
  const expected = (dx / (mean.w - 2 * 11)) * 2999;  // the track minus the grab's half widths
  check(Math.abs(after - before - expected) < expected * 0.15,
        `dragging "mean" by ${dx.toFixed(0)} px moves it ${before.toFixed(0)} -> ${after.toFixed(0)} ms ` +
        `(expected +${expected.toFixed(0)} within 15%)`);

  // A threshold line on the live plot drags with a finger too.
  const label = await find('threshold A (drag)', 'texts');
  const thresholdBefore = (await state()).live.thresholds[0];
  const lineY = label.y + label.h + 2;
  await drag(label.x + label.w + 30, lineY, label.x + label.w + 30, lineY - 40);
  const thresholdAfter = (await state()).live.thresholds[0];
  check(thresholdAfter > thresholdBefore + 1,
        `dragging the threshold line up 40 px raises it ${thresholdBefore.toFixed(1)} -> ${thresholdAfter.toFixed(1)}`);

  // One tap toggles a checkbox.
  const follow = await find("follow the live stream's fit");
  const wasFollowing = (await state()).follow;
  await tap(follow);
  check((await state()).follow === !wasFollowing, `one tap toggles a checkbox (follow: ${wasFollowing} -> ${!wasFollowing})`);
  await tap(follow);
  check((await state()).follow === wasFollowing, 'and one more tap toggles it back');

  // A vertical swipe starting on a plot scrolls the page; one starting on a slider does not.
  const scrollY = () => page.evaluate(() => window.scrollY);
  await page.evaluate(() => window.scrollTo(0, 0));
  const plot = await find('density', 'texts');  // the first plot's title: its data area is below
  const top0 = await scrollY();
  const y0 = plot.y + plot.h + 60;
  await drag(plot.x + 150, y0, plot.x + 150, y0 - 250, 10);
  await page.waitForFunction((t) => window.scrollY > t + 100, top0, { timeout: 5000 }).catch(() => {});
  const scrolled = (await scrollY()) - top0;
  check(scrolled > 100, `a swipe up on a plot scrolls the page (${scrolled} px)`);

  const s2 = await find('interval (ms)');
  const top1 = await scrollY();
  await drag(s2.x + s2.w / 2, s2.y + s2.h / 2, s2.x + s2.w / 2, s2.y + s2.h / 2 - 250, 10);
  check((await scrollY()) === top1, 'a swipe that starts on a slider does not scroll the page');

  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
