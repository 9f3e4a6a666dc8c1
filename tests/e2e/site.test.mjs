// The documentation site (mkdocs.yml) served at /docs/ beside the app: scripts/site.sh builds it
// with `mkdocs build --strict` into the web directory, `vigil serve` serves it, and on a phone's
// width the menu leads to the tuning page, whose embedded phi demo draws and follows the palette
// toggle to dark and back. Needs mkdocs with the Material theme (scripts/setup.sh).
//   node tests/e2e/site.test.mjs --vigil build/bin/vigil --web build/web --artifacts build/test-artifacts
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { artifact, check, decodePng, launchBrowser, openPage, parseArgs, pngStats, startServer } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const siteScript = fileURLToPath(new URL('../../scripts/site.sh', import.meta.url));

// A warning (a link to a page that does not exist) fails the build, and so this test.
const built = spawnSync(siteScript, ['--web', args.web], { encoding: 'utf8' });
check(built.status === 0, `scripts/site.sh builds the site strictly (exit ${built.status}${built.status ? `: ${built.stderr}` : ''})`);
check(existsSync(`${args.web}/docs/index.html`) && existsSync(`${args.web}/docs/search/search_index.json`),
      'the site, with its search index, is in the web directory');

// The mean luminance of a PNG's pixels, 0 (black) to 1 (white).
async function meanLuminance(browser, png) {
  const { data } = await decodePng(browser, png);
  let sum = 0;
  for (let i = 0; i < data.length; i += 4) sum += 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
  return sum / (data.length / 4) / 255;
}

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  const { page, errors } = await openPage(browser, { width: 390, height: 844 });
  const failed = [];
  page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });

  // Typed without its final slash, the site's address is sent on to the one with it, where the
  // pages' relative links resolve.
  const bare = await fetch(`${server.url}docs`, { redirect: 'manual' });
  check(bare.status === 301 && bare.headers.get('location') === '/docs/',
        `/docs is redirected to /docs/ (${bare.status} ${bare.headers.get('location')})`);

  await page.goto(`${server.url}docs/`);
  check((await page.title()).startsWith('vigil'), `the site's home page is served at /docs/ ("${await page.title()}")`);
  const searchIndex = await page.evaluate(async () => {
    const r = await fetch('search/search_index.json');
    return { status: r.status, type: r.headers.get('content-type'), docs: r.ok ? (await r.json()).docs.length : 0 };
  });
  check(searchIndex.status === 200 && searchIndex.type === 'application/json' && searchIndex.docs > 10,
        `the offline search index is served (${searchIndex.docs} entries, ${searchIndex.type})`);

  // At 390 px the navigation is in a drawer behind the header's menu button, its sections in
  // panels that slide in. A link can be tapped when it is what the page shows at its centre.
  const shownAtCentre = (el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return r.width > 0 && Boolean(hit) && el.contains(hit);
  };
  const untilTappable = async (locator) =>
    page.waitForFunction(shownAtCentre, await locator.elementHandle(), { timeout: 5000, polling: 50 });
  const section = page.locator('nav.md-nav--primary > ul > li > label.md-nav__link', { hasText: 'Using it' });
  const tuningLink = page.locator('nav.md-nav--primary a.md-nav__link[href$="tuning/"]');
  check(!(await section.evaluate(shownAtCentre)), 'at 390 px the navigation starts folded away');
  await page.click('label.md-header__button[for="__drawer"]');
  await untilTappable(section);
  check(true, 'the menu button opens the navigation');
  await section.click();
  await untilTappable(tuningLink);
  await Promise.all([page.waitForURL(/\/docs\/tuning\/$/), tuningLink.click()]);
  check(true, 'the menu opens and leads to the tuning page');

  const holder = page.locator('[data-vigil-demo="phi"]');
  await holder.scrollIntoViewIfNeeded();
  // The kit gives the frame its address once it is within a screen of the viewport.
  const handle = await page.waitForSelector('[data-vigil-demo="phi"] iframe[src]', { state: 'attached', timeout: 10000 });
  const src = new URL(await handle.getAttribute('src'));
  check(src.origin === new URL(server.url).origin && src.pathname === '/index.html',
        `the demo is the app the site is served beside (${src.pathname})`);
  const frame = await handle.contentFrame();
  await frame.waitForFunction(() => window.vigil && window.vigil.state() && window.vigil.state().frame >= 3,
                              null, { timeout: 30000, polling: 100 });
  const light = await frame.evaluate(() => window.vigil.state());
  check(light.demo === 'phi' && light.theme === 'light' && src.searchParams.get('theme') === 'light',
        `the phi demo runs in the page, light on the default palette (frame ${light.frame})`);
  const width = await handle.evaluate((f) => f.getBoundingClientRect().width);
  check(width >= 300 && width <= 390, `the demo fits the phone's width (${width} px)`);

  // Its canvas draws: a blank frame has one colour.
  await holder.scrollIntoViewIfNeeded();
  const lightPng = await handle.screenshot({ path: artifact(args, 'site_phone_light.png') });
  const drawn = await pngStats(browser, lightPng);
  check(drawn.colors > 50 && drawn.nonBackground > 0.05,
        `the demo draws (${drawn.colors} colours, ${(drawn.nonBackground * 100).toFixed(0)} % off its background)`);
  const lightLuma = await meanLuminance(browser, lightPng);

  // Material's palette toggle sets data-md-color-scheme on <body>; the demo follows.
  await page.click('label[title="Switch to dark mode"]');
  await page.waitForFunction(() => document.body.getAttribute('data-md-color-scheme') === 'slate');
  await frame.waitForFunction(() => window.vigil.state().theme === 'dark', null, { timeout: 10000, polling: 50 });
  const before = await frame.evaluate(() => window.vigil.frames());
  await frame.evaluate(() => window.vigil.wake());
  await frame.waitForFunction((k) => window.vigil.frames() > k, before, { timeout: 10000, polling: 20 });
  await holder.scrollIntoViewIfNeeded();
  const darkLuma = await meanLuminance(browser, await handle.screenshot({ path: artifact(args, 'site_phone_dark.png') }));
  check(darkLuma < 0.35 && darkLuma < lightLuma - 0.3,
        `the palette toggle to dark makes the demo dark (mean luminance ${lightLuma.toFixed(2)} -> ${darkLuma.toFixed(2)})`);
  await page.click('label[title="Switch to light mode"]');
  await frame.waitForFunction(() => window.vigil.state().theme === 'light', null, { timeout: 10000, polling: 50 });
  check(true, 'and back to light');

  await page.screenshot({ path: artifact(args, 'site_phone.png') });
  check(failed.length === 0, `every file the site asked for was served (${failed.join(' | ')})`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
