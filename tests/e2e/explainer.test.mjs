// The explainer (assets/explainer.html): take its numbers from this build's lab, load it, and check
// that every number on the page is the lab's, that a scene starts only when it is read, that every
// embedded demo renders as it scrolls into view, that internal links resolve, and that it works at
// phone width and in both themes.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { artifact, check, launchBrowser, openPage, parseArgs, pngStats, startServer } from './harness.mjs';
import { format, resolve } from '../../assets/explainer-numbers.mjs';

const args = parseArgs(process.argv.slice(2));
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataFile = path.join(args.web, 'explainer-data.json');

// 1. The numbers, from this build's `vigil lab`: regenerated unless the file is already newer than
//    the binary and the script that writes it (scripts/build.sh writes it after each build, by
//    the same rule; every experiment has a fixed seed, so a rerun would write the same file).
const script = path.join(repo, 'scripts/explainer_data.mjs');
const mtime = (f) => { try { return statSync(f).mtimeMs; } catch { return -Infinity; } };
if (mtime(dataFile) <= Math.max(mtime(args.vigil), mtime(script)))
  execFileSync('node', [script, args.vigil, dataFile], { stdio: 'inherit' });
else
  console.log(`# ${dataFile} is newer than ${args.vigil}: the lab's numbers are this build's`);
const fresh = JSON.parse(readFileSync(dataFile, 'utf8')).experiments;

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  const { page, errors } = await openPage(browser, { width: 1280, height: 900 });
  let bytes = 0;
  page.on('response', async (r) => {
    if (r.frame() !== page.mainFrame()) return;
    try { bytes += (await r.body()).length; } catch { /* redirects have no body */ }
  });
  await page.goto(`${server.url}explainer.html`);
  await page.waitForFunction(() => window.explainer && window.explainer.ready, null, { timeout: 30000 });
  const paint = await page.evaluate(() =>
    performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime);
  const report = await page.evaluate(() => window.explainer);
  check(report.errors.length === 0, `every number resolved (${report.errors.join('; ')})`);

  // Every [data-n] on the page shows exactly what the fresh lab output says.
  const shown = await page.$$eval('[data-n]', (els) => els.map((e) => ({
    path: e.dataset.n, fmt: e.dataset.fmt, text: e.textContent })));
  const wrong = shown.filter((s) => s.text !== format(resolve(fresh, s.path), s.fmt));
  check(shown.length >= 150, `${shown.length} numbers on the page come from the lab`);
  check(wrong.length === 0, `each equals the regenerated lab output (${wrong.slice(0, 3).map((w) => `${w.path}: ${w.text}`).join('; ')})`);
  const keys = new Set(shown.map((s) => s.path.split('/')[0]));
  const unused = Object.keys(fresh).filter((k) => !keys.has(k));
  check(unused.length === 0, `every experiment in the data file is used on the page (${unused.join(', ')})`);
  const commands = await page.$$eval('#commands li', (lis) => lis.length);
  check(commands === Object.keys(fresh).length, `the page lists the ${commands} commands behind its numbers`);

  // Demos load lazily: before scrolling, only those near the top have started.
  const sections = await page.$$eval('main section', (ss) => ss.map((s) => s.id));
  check(report.demos >= 9 && report.demosLoaded < report.demos,
        `${report.demos} demos, ${report.demosLoaded} loaded before scrolling`);
  // A scene waits for its reader: a fifth of the crash scene peeking in at the bottom of the window
  // draws it, but its story starts only once at least half of it is on screen.
  const scene = await page.$('iframe[data-src*="scene=crash"]');
  // Frames above take their demos' heights as they load, moving this one: place it again until
  // it has drawn. Scrolls are instant (the page scrolls smoothly for readers).
  const peekIn = () => page.evaluate((el) => {
    const r = el.getBoundingClientRect();
    window.scrollTo({ top: scrollY + r.top - (innerHeight - 0.2 * r.height), behavior: 'instant' });
    const after = el.getBoundingClientRect();
    return (innerHeight - after.top) / after.height;
  }, scene);
  let peek = 0, early = null;
  for (let i = 0; i < 600 && !(early && early.frame >= 10); ++i) {
    peek = await peekIn();
    const f = await scene.contentFrame();
    early = f && f.url().includes('scene=crash')
      ? await f.evaluate(() => (window.vigil && window.vigil.state ? window.vigil.state() : null)).catch(() => null)
      : null;
    await page.waitForTimeout(100);
  }
  check(early && early.frame >= 10, `the crash scene, a fifth on screen, draws (${early && early.frame} frames)`);
  check(peek > 0.1 && peek < 0.3 && early.scene === 'crash' && early.scene_started === false && early.step === 0,
        `${(peek * 100).toFixed(0)}% of the crash scene on screen: not started ` +
        `(scene ${early.scene}, started ${early.scene_started}, beat ${early.step})`);
  const sceneFrame = async () => {
    for (let i = 0; i < 300; ++i) {
      const f = await scene.contentFrame();
      if (f && f.url().includes('scene=crash')) return f;
      await page.waitForTimeout(100);
    }
    throw new Error('the crash scene never loaded');
  };
  await scene.evaluate((el) => el.scrollIntoView({ block: 'center', behavior: 'instant' }));
  const frame = await sceneFrame();
  await frame.waitForFunction(() => window.vigil.state().scene_started === true && window.vigil.state().sim_ms > 0,
                              null, { timeout: 30000, polling: 100 }).catch(() => {});
  const started = await frame.evaluate(() => window.vigil.state());
  check(started.scene_started === true && started.sim_ms > 0,
        `scrolled into view, the crash scene starts (${started.sim_ms} ms, beat ${started.step}: "${started.caption.slice(0, 50)}...")`);

  for (const id of sections) {
    await page.evaluate((i) => document.getElementById(i).scrollIntoView(), id);
    const frames = await page.$$(`#${id} iframe`);
    for (const [i, handle] of frames.entries()) {
      await handle.scrollIntoViewIfNeeded();
      const frame = await handle.contentFrame();
      await frame.waitForFunction(() => {
        const s = window.vigil && window.vigil.state();
        // Paused demos draw only a few frames before they sleep.
        return s && s.frame >= 3 && s.embed === true;
      }, null, { timeout: 60000, polling: 200 });
      // A demo replaying a trace fetches it first: draw what it shows once the trace is in.
      if (new URL(frame.url()).searchParams.has('trace')) {
        await frame.waitForFunction(() => window.vigil.state().trace, null, { timeout: 60000, polling: 200 });
        const loaded = await frame.evaluate(() => window.vigil.state().frame);
        await frame.waitForFunction((f) => window.vigil.state().frame >= f + 3, loaded,
                                    { timeout: 60000, polling: 100 });
      }
      const drawn = (s) => s.colors > 60 && s.nonBackground > 0.05;
      const describe = (s) => `${s.colors} colours, ${(s.nonBackground * 100).toFixed(0)}% drawn`;
      let stats = await pngStats(browser, await handle.screenshot());
      if (!drawn(stats)) {
        // On a busy machine a demo that had drawn its frames once captured blank. Keep that
        // capture and its state, have the demo draw three more frames and capture again: a demo
        // that really draws nothing still fails.
        const blank = artifact(args, `explainer_${id}_${i + 1}_blank.png`);
        await handle.screenshot({ path: blank });
        // The host may have reloaded the frame meanwhile: its app has no state until it is up.
        const state = await frame.evaluate(() => ({ frame: window.vigil?.state()?.frame ?? -1,
                                                    visible: window.vigil?.visible?.() ?? null,
                                                    size: [innerWidth, innerHeight] }));
        console.log(`note - ${id} demo ${i + 1} captured blank (${describe(stats)}; ` +
                    `${JSON.stringify(state)}), kept as ${blank}; capturing again`);
        await handle.scrollIntoViewIfNeeded();
        await frame.waitForFunction(() => window.vigil?.state(), null, { timeout: 60000, polling: 200 });
        await frame.evaluate(() => window.vigil.wake());
        await frame.waitForFunction((f) => window.vigil.state().frame >= f + 3, Math.max(0, state.frame),
                                    { timeout: 60000, polling: 100 });
        stats = await pngStats(browser, await handle.screenshot());
      }
      check(drawn(stats), `${id} demo ${i + 1} rendered (${describe(stats)})`);
    }
    await page.evaluate((i) => document.getElementById(i).scrollIntoView(), id);
    await page.screenshot({ path: artifact(args, `explainer_${id}.png`) });
  }
  const loaded = await page.evaluate(() => window.explainer.demosLoaded);
  check(loaded === report.demos, `all ${loaded} demos loaded after scrolling through`);

  // Internal links: pages answer 200, fragments name an element on this page.
  const links = await page.$$eval('a[href]', (as) => as.map((a) => a.getAttribute('href')));
  const broken = [];
  for (const href of new Set(links)) {
    if (/^[a-z]+:/i.test(href)) continue;  // none expected, and not ours to check
    if (href.startsWith('#')) {
      if (!(await page.$(`[id="${href.slice(1)}"]`))) broken.push(href);
      continue;
    }
    const r = await fetch(new URL(href, `${server.url}explainer.html`));
    if (r.status !== 200) broken.push(`${href} (${r.status})`);
  }
  check(broken.length === 0, `${new Set(links).size} internal links resolve (${broken.join(', ')})`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
  console.log(`page weight (HTML, CSS, scripts, data; demos excluded): ${(bytes / 1024).toFixed(0)} KiB; ` +
              `first contentful paint ${paint?.toFixed(0)} ms`);
  await page.close();

  // 2. Phone width, dark theme: no sideways scrolling, the theme follows the system.
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
  const phoneErrors = [];
  phone.on('console', (m) => { if (m.type() === 'error') phoneErrors.push(m.text()); });
  await phone.goto(`${server.url}explainer.html`);
  await phone.waitForFunction(() => window.explainer && window.explainer.ready, null, { timeout: 30000 });
  const layout = await phone.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: innerWidth,
                                               bg: getComputedStyle(document.body).backgroundColor }));
  check(layout.scroll <= layout.width, `no horizontal scrolling at ${layout.width}px (${layout.scroll}px wide)`);
  check(layout.bg === 'rgb(21, 23, 28)', `dark theme with a dark system preference (${layout.bg})`);
  await phone.screenshot({ path: artifact(args, 'explainer_phone_dark.png') });
  // Every table cell, formula and command shows whole at phone width: tables stack into cards
  // that label each value, formulas and code wrap instead of running past their box.
  const cut = await phone.evaluate(() => {
    const out = [];
    for (const td of document.querySelectorAll('table.data td')) {
      const r = td.getBoundingClientRect();
      if (r.left < 0 || r.right > innerWidth + 0.5 || !td.dataset.label) out.push(`cell "${td.textContent}"`);
    }
    for (const el of document.querySelectorAll('.formula, pre'))
      if (el.scrollWidth > el.clientWidth + 1) out.push(`"${el.textContent.slice(0, 30)}" (${el.scrollWidth} > ${el.clientWidth} px)`);
    return out;
  });
  check(cut.length === 0, `every table cell, formula and command is whole at ${layout.width}px (${cut.slice(0, 5).join('; ')})`);
  const captions = await phone.$$eval('figcaption', (fs) => fs.filter((f) => /(?:^|[.:;,]\s+)(press|drag|switch|toggle|turn|lower|move|try)\s/i.test(f.textContent.trim()) &&
    !/Controls/.test(f.textContent)).map((f) => f.textContent.slice(0, 60)));
  check(captions.length === 0, `captions that ask for a control say where it is on a phone (${captions.join(' | ')})`);
  const light = await browser.newPage({ colorScheme: 'light' });
  await light.goto(`${server.url}explainer.html`);
  const lightBg = await light.evaluate(() => getComputedStyle(document.body).backgroundColor);
  check(lightBg === 'rgb(251, 250, 247)', `light theme with a light system preference (${lightBg})`);
  // Contents links glide only for readers who have not asked for reduced motion.
  const scrolling = {};
  for (const reducedMotion of ['reduce', 'no-preference']) {
    const p = await browser.newPage({ reducedMotion });
    await p.goto(`${server.url}explainer.html`);
    scrolling[reducedMotion] = await p.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior);
    await p.close();
  }
  check(scrolling.reduce === 'auto' && scrolling['no-preference'] === 'smooth',
        `page scrolling is instant with reduced motion, smooth otherwise (${JSON.stringify(scrolling)})`);
  const description = await light.$eval('meta[name="description"]', (m) => m.content).catch(() => '');
  check(description.length > 50, `the page describes itself for search results ("${description.slice(0, 40)}...")`);
  check(phoneErrors.length === 0, `no console errors at phone width (${phoneErrors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
