// Regenerates the documentation's screenshots (docs/images/*.png) from the current build:
//   node tests/e2e/screenshots.mjs [--vigil build/bin/vigil] [--web build/web] [--out docs/images]
// Each demo is opened with the parameters below and shot once its state says it has something
// worth showing; the live demo runs against `vigil demo --nodes 4` with one agent killed.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { freePort, launchBrowser, openPage, startServer, waitForFrames } from './harness.mjs';

const opts = { vigil: 'build/bin/vigil', web: 'build/web', out: 'docs/images' };
for (let i = 2; i + 1 < process.argv.length; i += 2) opts[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
mkdirSync(opts.out, { recursive: true });

const shots = [
  { name: 'phi', query: '?demo=phi&delay=80&jitter=60&loss=15',
    ready: 'window.vigil.state().live.received >= 150' },
  { name: 'gossip', query: '?demo=gossip&n=10000&mode=push&fanout=1&dead=100&round=14',
    ready: 'window.vigil.state().round >= 14' },
  { name: 'swim', query: '?demo=swim&n=12&kill=5&speed=6',
    ready: 'window.vigil.state().views_by_state.dead >= 6' },
  { name: 'retry', query: '?demo=retry&view=hysteresis',
    ready: 'window.vigil.state().hysteresis.done === true && window.vigil.state().hysteresis.equilibria_done' },
  // A phone (412 CSS px, DPR 2, touch): one column, fingertip-sized controls; the first screen.
  { name: 'phone-swim', query: '?demo=swim&n=10&kill=4&speed=6', phone: true,
    ready: 'window.vigil.state().views_by_state.dead >= 5' },
  // The light theme, as on a light documentation page.
  { name: 'light-phi', query: '?demo=phi&delay=80&jitter=60&loss=15&theme=light',
    ready: 'window.vigil.state().live.received >= 150' },
];

const kPhone = { viewport: { width: 412, height: 860 }, deviceScaleFactor: 2, hasTouch: true, isMobile: true };

async function shoot(browser, url, shot) {
  const { page, errors } = shot.phone ? await openPhone(browser) : await openPage(browser);
  await page.goto(url);
  await waitForFrames(page, 2, 60000);
  await page.waitForFunction(shot.ready, null, { timeout: 120000, polling: 200 });
  // A finished or paused demo sleeps: ask it for a few more frames, so the shot is settled.
  await page.evaluate(() => window.vigil.wake());
  await waitForFrames(page, (await page.evaluate(() => window.vigil.state().frame)) + 3);
  const file = path.join(opts.out, `${shot.name}.png`);
  await page.screenshot({ path: file });
  console.log(`${file}${errors.length ? '  console errors: ' + errors.join(' | ') : ''}`);
  await page.close();
}

async function openPhone(browser) {
  const page = await (await browser.newContext(kPhone)).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return { page, errors };
}

const server = await startServer(opts.vigil, opts.web);
const browser = await launchBrowser();
const port = await freePort();
const demo = spawn(opts.vigil, ['demo', '--nodes', '4', '--http-port', String(port), '--web', opts.web],
                   { stdio: 'ignore' });
try {
  for (const shot of shots) await shoot(browser, server.url + shot.query, shot);
  const live = `http://127.0.0.1:${port}/`;
  let info = null;
  for (let i = 0; i < 100 && !info; ++i)
    info = await fetch(live + 'v1/demo').then((r) => r.json(), () => null)
      .then((j) => j || new Promise((r) => setTimeout(() => r(null), 100)));
  const { page } = await openPage(browser);
  await page.goto(`${live}?demo=live`);
  await page.waitForFunction(() => {
    const s = window.vigil.state();
    return s && s.agents.length === 4 && s.agents.every((a) => Object.keys(a.members).length === 3);
  }, null, { timeout: 60000, polling: 200 });
  const victim = info.agents[3].name;
  process.kill(info.agents[3].pid, 'SIGKILL');
  await page.waitForFunction((name) => window.vigil.state().agents
    .filter((a) => a.status === 'connected').every((a) => a.members[name] === 'dead'),
  victim, { timeout: 60000, polling: 200 });
  const file = path.join(opts.out, 'live.png');
  await page.screenshot({ path: file });
  console.log(file);
} finally {
  await browser.close();
  server.stop();
  demo.kill('SIGINT');
}
