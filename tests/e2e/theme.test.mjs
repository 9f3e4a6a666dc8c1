// Light and dark themes. theme=auto (the default) follows prefers-color-scheme, so the
// explainer's demos match the page around them; theme=light|dark forces one. In the light
// theme a screenshot's background is light and the member-state colours (alive, suspect, dead,
// left: a colour-blind-safe set) each keep a contrast of at least 3:1 against it (WCAG 2.1's
// ratio for graphics), and they are the colours the SWIM matrix is really drawn with, also after
// the reader's scheme flips while the page is open.
import { artifact, check, decodePng, launchBrowser, parseArgs, startServer, waitForFrames } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));

// WCAG 2.1 relative luminance and contrast ratio.
const channel = (c) => {
  const s = c / 255;
  return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
};
const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
const contrast = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  async function open(colorScheme, query) {
    const context = await browser.newContext({ viewport: { width: 560, height: 700 }, colorScheme });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${server.url}${query}`);
    return { context, page, errors };
  }

  // auto follows the reader's scheme; an explicit theme wins over it.
  for (const [scheme, theme, expected] of [['light', '', 'light'], ['dark', '', 'dark'],
                                           ['dark', '&theme=light', 'light'], ['light', '&theme=dark', 'dark']]) {
    const { context, page } = await open(scheme, `index.html?demo=phi${theme}`);
    await waitForFrames(page, 3, 60000);
    const s = await page.evaluate(() => window.vigil.state());
    check(s.theme === expected, `prefers-color-scheme ${scheme}${theme || ' (theme=auto)'}: the app is ${s.theme}`);
    await context.close();
  }

  // The light theme, looked at: a SWIM cluster with a crashed member shows every state colour
  // but "left"; its palette is read from the app and checked against the screenshot.
  const { context, page, errors } = await open('light', 'index.html?demo=swim&embed=1&n=12&kill=5&speed=6&theme=light');
  await waitForFrames(page, 3, 60000);
  await page.waitForFunction(() => window.vigil.state().views_by_state.dead >= 6, null, { timeout: 60000, polling: 200 });
  const s = await page.evaluate(() => window.vigil.state());
  const png = await page.screenshot({ path: artifact(args, 'theme_light_swim.png') });
  const { data } = await decodePng(browser, png);
  const counts = new Map();
  for (let i = 0; i < data.length; i += 4) {
    const key = `${data[i]},${data[i + 1]},${data[i + 2]}`;
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  const pixels = data.length / 4;
  const [topKey, topCount] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
  const background = topKey.split(',').map(Number);
  check(luminance(background) > 0.8,
        `the light theme's background is light: rgb(${topKey}), luminance ${luminance(background).toFixed(2)}, ` +
        `${(100 * topCount / pixels).toFixed(0)}% of the screenshot`);
  const drawn = (hex) => counts.get(rgb(hex).join(',')) || 0;
  for (const state of ['alive', 'suspect', 'dead', 'left']) {
    const color = rgb(s.palette[state]);
    const ratio = contrast(color, background);
    check(ratio >= 3, `"${state}" ${s.palette[state]} has contrast ${ratio.toFixed(2)}:1 against the background`);
    const plotRatio = contrast(color, rgb(s.palette.plot));
    check(plotRatio >= 3, `"${state}" has contrast ${plotRatio.toFixed(2)}:1 against the plot's own background`);
  }
  check(drawn(s.palette.alive) > 2000 && drawn(s.palette.dead) > 200,
        `the matrix is drawn in those colours (${drawn(s.palette.alive)} alive pixels, ${drawn(s.palette.dead)} dead)`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
  await context.close();

  // The reader's scheme flips while the matrix is shown: the kept picture is repainted in the
  // new palette, not left in the old one.
  {
    const { context, page, errors } = await open('light', 'index.html?demo=swim&n=12&view=matrix&speed=2');
    await waitForFrames(page, 3, 60000);
    let s = await page.evaluate(() => window.vigil.state());
    check(s.theme === 'light' && s.matrix.stale_cells === 0,
          `the matrix starts in the light palette (${s.matrix.stale_cells} cells in another)`);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => window.vigil.state().theme === 'dark', null, { timeout: 30000, polling: 100 });
    const frame = (await page.evaluate(() => window.vigil.state())).frame;
    await page.waitForFunction((f) => window.vigil.state().frame >= f + 2, frame, { timeout: 30000, polling: 100 });
    s = await page.evaluate(() => window.vigil.state());
    check(s.matrix.stale_cells === 0, `after the switch to dark, every cell is in the dark palette ` +
                                      `(${s.matrix.stale_cells} of ${12 * 12} are not)`);
    const { data } = await decodePng(browser, await page.screenshot({ path: artifact(args, 'theme_flip_swim.png') }));
    let alive = 0;
    const want = rgb(s.palette.alive);
    for (let i = 0; i < data.length; i += 4) alive += want.every((c, k) => data[i + k] === c);
    check(alive > 2000, `the screenshot shows the dark palette's "alive" (${alive} pixels)`);
    check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
    await context.close();
  }

  // The explainer's demos match the page: both follow the reader's scheme.
  for (const scheme of ['light', 'dark']) {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, colorScheme: scheme });
    const page = await context.newPage();
    await page.goto(`${server.url}explainer.html`);
    const pageBg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    // A demo draws only while on screen: bring the first one into view.
    const first = await page.waitForSelector('iframe[data-src]', { timeout: 30000 });
    await first.scrollIntoViewIfNeeded();
    await page.waitForFunction((f) => f.src.includes('demo='), first, { timeout: 30000 });
    const frame = await first.contentFrame();
    await frame.waitForFunction(() => window.vigil && window.vigil.state() && window.vigil.state().frame >= 3,
                                null, { timeout: 60000, polling: 100 });
    const theme = await frame.evaluate(() => window.vigil.state().theme);
    const pageLum = luminance(pageBg.match(/\d+/g).slice(0, 3).map(Number));
    check(theme === scheme && (pageLum > 0.5) === (scheme === 'light'),
          `explainer in ${scheme}: page background ${pageBg}, its first demo ${theme}`);
    await context.close();
  }
} finally {
  await browser.close();
  server.stop();
}
