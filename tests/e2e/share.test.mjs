// Share / embed: for every demo, the parameters a reader set survive the trip through the
// address (the app rebuilt from its own query string gives the same query string back), the
// popup's link reopens the demo as it was, and its embed snippet, pasted into a page of another
// origin with embed.js, shows the same demo with the same parameters. The popup's copy button
// puts the snippet on the clipboard.
import http from 'node:http';
import { check, drawFrames, freePort, launchBrowser, parseArgs, startServer, waitForFrames } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
// Each demo with parameters away from its defaults.
const demos = [
  'demo=phi&model=logistic&mean=800&std=120&silence=1500&interval=200&delay=40&jitter=25&loss=5&log=1',
  'demo=gossip&n=500&mode=pull&fanout=3&loss=10&seed=7',
  'demo=gossip&view=membership&n=80&fanout=3&tfail=12&trials=6',
  'demo=swim&n=16&profile=lan&loss=5&speed=2&lifeguard=off',
  'demo=retry&view=chain&depth=4&fail=0.2',
  'demo=retry&view=fleet&clients=2000&base=0.5&cap=10',
  'demo=fencing&lease=3000&pause=5000',
];
const params = (query) => Object.fromEntries(new URLSearchParams(query));
const withoutTheme = (query) => {
  const p = new URLSearchParams(query);
  p.delete('theme');
  p.delete('embed');
  return p.toString();
};

const server = await startServer(args.vigil, args.web);
// The page of another origin that the snippet is pasted into.
let hostPage = '';
const hostPort = await freePort();
const host = http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end(hostPage);
}).listen(hostPort, 'localhost');
const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const appQuery = (page) => page.evaluate(() => {
    window.vigil.wake();
    return new URL(window.vigil.share().link).search.slice(1);
  });
  for (const query of demos) {
    const page = await context.newPage();
    await page.goto(`${server.url}index.html?${query}`);
    await waitForFrames(page, 3, 60000);
    const first = await appQuery(page);
    const asked = params(query);
    const kept = params(first);
    const lost = Object.keys(asked).filter((k) => String(kept[k]) !== asked[k] &&
                                                  Number(kept[k]) !== Number(asked[k]));
    check(lost.length === 0, `${asked.demo}${asked.view ? '/' + asked.view : ''}: every parameter given is kept ` +
          `(${Object.keys(asked).length} given; lost: ${lost.join(', ')})`);

    // The link reopens the same demo with the same parameters.
    const share = await page.evaluate(() => window.vigil.share());
    const again = await context.newPage();
    await again.goto(share.link);
    await waitForFrames(again, 3, 60000);
    const second = await appQuery(again);
    check(second === first, `the link gives the same query back (${first.length} characters)`);
    await again.close();

    // The snippet, in a page of another origin, shows the same demo.
    hostPage = `<!doctype html><meta charset="utf-8"><body style="background:#fff">${share.embed}</body>`;
    const hosted = await context.newPage();
    const hostErrors = [];
    hosted.on('pageerror', (e) => hostErrors.push(String(e)));
    hosted.on('console', (m) => { if (m.type() === 'error') hostErrors.push(m.text()); });
    await hosted.goto(`http://localhost:${hostPort}/`);
    const frameHandle = await hosted.waitForFunction(() => {
      const el = document.querySelector('[data-vigil-demo]');
      const iframe = el && (el.shadowRoot ? el.shadowRoot.querySelector('iframe') : el.querySelector('iframe'));
      return iframe && iframe.src.includes('demo=') ? iframe : null;
    }, null, { timeout: 30000 });
    const frame = await frameHandle.asElement().contentFrame();
    await frame.waitForFunction(() => window.vigil && window.vigil.state() && window.vigil.state().frame >= 3,
                                null, { timeout: 60000, polling: 100 });
    const embedded = await frame.evaluate(() => new URL(window.vigil.share().link).search.slice(1));
    check(withoutTheme(embedded) === withoutTheme(first),
          `the embed snippet shows the same demo and parameters on another origin`);
    check(hostErrors.length === 0, `no console errors on the host page (${hostErrors.join(' | ')})`);
    await hosted.close();
    await page.close();
  }

  // The popup's buttons: "share / embed" opens it, "copy" under the snippet copies it.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url.replace(/\/$/, '') });
  const page = await context.newPage();
  await page.goto(`${server.url}index.html?demo=swim&n=9`);
  await waitForFrames(page, 3, 60000);
  const item = async (label, nth = 0) => {
    await drawFrames(page, 2);
    const found = (await page.evaluate(() => window.vigil.state())).layout.items.filter((i) => i.label === label);
    if (found.length <= nth) throw new Error(`no "${label}" (#${nth}) on screen`);
    return found[nth];
  };
  const click = async (r) => {
    await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
    await page.mouse.down();
    await page.mouse.up();
  };
  await click(await item('share / embed'));
  await click(await item('copy', 1));  // the second copy button: the snippet's
  // Polled from here: waitForFunction takes the promise an async predicate returns as a truthy
  // answer at once, so an empty clipboard at the first poll ended the wait.
  let clipboard = null;
  for (const deadline = Date.now() + 10000; clipboard === null && Date.now() < deadline;) {
    const text = await page.evaluate(() => navigator.clipboard.readText());
    if (text.includes('data-vigil-demo')) clipboard = text;
    else await page.waitForTimeout(200);
  }
  const expected = (await page.evaluate(() => window.vigil.share())).embed;
  check(clipboard === expected,
        `"copy" puts the embed snippet on the clipboard (${clipboard === null ? 'nothing' : clipboard.split('\n').length + ' lines'})`);
} finally {
  await browser.close();
  host.close();
  server.stop();
}
