// Demos that nobody sees cost nothing: an embedded demo scrolled out of view, declared hidden by
// its host page, or in a hidden tab neither simulates nor draws, and resumes where it stopped;
// a paused demo draws only while the reader interacts with it; a demo tells its host page its
// parameters, and a frame reloaded from them comes back where it was.
import { check, launchBrowser, openPage, parseArgs, startServer } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();

// The host is another origin (about:blank with content set by the test), as in anyone's docs.
async function host(page, query, { before = 0 } = {}) {
  await page.setContent(`<!doctype html><body style="margin:0">
    <div id="above" style="height:${before}px"></div>
    <iframe id="demo" style="width:600px;height:420px;border:0" src="${server.url}index.html?${query}"></iframe>
    <div style="height:4000px"></div>
    <script>
      window.messages = [];
      addEventListener('message', (e) => window.messages.push(e.data));
    </script></body>`);
  const frame = await (await page.$('#demo')).contentFrame();
  await frame.waitForFunction(() => window.vigil && window.vigil.state() && window.vigil.frames() >= 3,
                              null, { timeout: 60000, polling: 100 });
  return frame;
}

const simMs = (frame) => frame.evaluate(() => window.vigil.state().sim_ms);
const frames = (frame) => frame.evaluate(() => window.vigil.frames());
// Waits (bounded) until the demo's simulated time passes `after`.
const advancesPast = (frame, after) =>
  frame.waitForFunction((t) => window.vigil.state().sim_ms > t, after, { timeout: 20000, polling: 50 });
// Frames drawn over `ms` of wall time; the page's own timer, not a guess at synchronisation.
async function framesDuring(page, frame, ms) {
  const start = await frames(frame);
  await page.waitForTimeout(ms);
  return (await frames(frame)) - start;
}

try {
  const { page, errors } = await openPage(browser, { width: 800, height: 700 });

  // 1. Scrolled out of view: the app sees it by itself (IntersectionObserver inside the frame).
  const swim = await host(page, 'demo=swim&embed=1&n=8&speed=2');
  const running = await simMs(swim);
  await advancesPast(swim, running);
  check(true, 'an embedded SWIM cluster in view advances');
  await page.evaluate(() => window.scrollTo(0, 3000));
  await swim.waitForFunction(() => !window.vigil.visible(), null, { timeout: 10000, polling: 50 });
  const parked = await simMs(swim);
  const drawnAway = await framesDuring(page, swim, 2000);
  check(drawnAway === 0, `scrolled out of view it draws no frame in 2 s (${drawnAway})`);
  check(await simMs(swim) === parked, `and its simulated time stays at ${parked} ms`);
  const backAt = Date.now();
  await page.evaluate(() => window.scrollTo(0, 0));
  await advancesPast(swim, parked);
  const resumed = await simMs(swim);
  // At speed 2 it may gain at most twice the real time since it came back, plus one frame's
  // largest step (250 ms) for the first frame after the pause: not the 2 s it spent away, however
  // slowly a loaded machine drew the frames in between.
  const gainable = 2 * (Date.now() - backAt + 250);
  check(resumed - parked <= gainable,
        `back in view it resumes where it stopped (${parked} -> ${resumed} ms, at most ${gainable} ms since it came back)`);

  // 2. Declared hidden by the host page (the explainer does this for frames off screen).
  await page.evaluate(() => document.getElementById('demo').contentWindow.postMessage(
    { type: 'vigil:visibility', visible: false }, '*'));
  await swim.waitForFunction(() => !window.vigil.visible(), null, { timeout: 10000, polling: 50 });
  const hidden = await simMs(swim);
  check(await framesDuring(page, swim, 1500) === 0 && await simMs(swim) === hidden,
        'a frame its host declares hidden neither draws nor simulates');
  await page.evaluate(() => document.getElementById('demo').contentWindow.postMessage(
    { type: 'vigil:visibility', visible: true }, '*'));
  await advancesPast(swim, hidden);
  check(true, 'declared visible again, it advances');

  // 3. A hidden tab (the page's visibilitychange).
  await swim.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  const tabHidden = await simMs(swim);
  check(await framesDuring(page, swim, 1500) === 0 && await simMs(swim) === tabHidden,
        'in a hidden tab it neither draws nor simulates');
  await swim.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  await advancesPast(swim, tabHidden);
  check(true, 'visible again, it advances');

  // 4. A paused demo draws on demand: nothing while idle, frames while the pointer moves over it.
  const gossip = await host(page, 'demo=gossip&embed=1&n=400');
  await gossip.waitForFunction(() => !window.vigil.drawing(), null, { timeout: 10000, polling: 50 });
  const idle = await framesDuring(page, gossip, 2000);
  check(idle === 0, `a paused gossip demo draws no frame in 2 s of idleness (${idle})`);
  const box = await (await page.$('#demo')).boundingBox();
  const beforeInput = await frames(gossip);
  for (let i = 0; i < 10; ++i) await page.mouse.move(box.x + 100 + i * 20, box.y + 100 + i * 10);
  await gossip.waitForFunction((n) => window.vigil.frames() > n, beforeInput, { timeout: 5000, polling: 20 });
  await gossip.waitForFunction(() => !window.vigil.drawing(), null, { timeout: 10000, polling: 50 });
  const settled = await frames(gossip);
  check(settled > beforeInput, `the pointer moving over it draws frames (${settled - beforeInput})`);
  await page.waitForTimeout(1000);
  check(await frames(gossip) === settled, 'after the pointer stops it settles and stops drawing');

  // 5. Parameters travel to the host, without the token, and rebuild the demo where it was.
  const fencing = await host(page, 'demo=fencing&embed=1&autoplay=1&speed=2&token=not-for-the-host');
  await fencing.waitForFunction(() => window.vigil.state().sim_ms > 1500, null, { timeout: 30000, polling: 50 });
  await page.waitForFunction(() => window.messages.some((m) => m && m.type === 'vigil:params' && /(^|&)t=[1-9]/.test(m.query)),
                             null, { timeout: 10000, polling: 50 });
  const reported = await page.evaluate(() => window.messages.filter((m) => m && m.type === 'vigil:params').map((m) => m.query));
  check(reported.every((q) => !q.includes('token')), 'the host never hears the token');
  const last = new URLSearchParams(reported.at(-1));
  check(last.get('demo') === 'fencing' && last.get('speed') === '2' && Number(last.get('t')) > 0,
        `the host hears the demo's parameters and its moment (t=${last.get('t')})`);
  const inUrl = await fencing.evaluate(() => location.search);
  check(!inUrl.includes('token') && inUrl.includes('t='), `the frame's own URL follows too, minus the token (${inUrl})`);
  const rebuilt = await host(page, reported.at(-1));
  const at = await simMs(rebuilt);
  check(at >= Number(last.get('t')), `a frame loaded from them starts at that moment (${at} ms)`);

  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
