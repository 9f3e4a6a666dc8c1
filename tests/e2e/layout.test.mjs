// Every demo fits a phone and a documentation column: at 320, 412 and 560 CSS px wide (phone
// profile: touch, DPR 2; loaded at 320 and widened) each is laid out in one column, and the layout it reports
// (window.vigil.state().layout: every labelled widget's frame, every text the plots drew) has
// no control narrower than 80 px, no control outside the canvas or clipped by its window, and
// no two texts overlapping. The desktop width (1280) keeps two columns and must be as clean,
// but for the fingertip-wide controls, which a mouse does not need.
import { artifact, check, drawFrames, launchBrowser, parseArgs, startServer, waitForFrames } from './harness.mjs';
import { layoutProblems, named } from './layout_checks.mjs';

const args = parseArgs(process.argv.slice(2));
const demos = [
  ['phi', ''], ['phi', '&trace=traces/lan-loss10-pauses.csv&speed=100x'], ['gossip', '&n=1000&autoplay=1&rate=3'], ['gossip', '&view=membership&n=100'],
  ['swim', '&n=12&kill=5&speed=3'], ['retry', '&view=hysteresis'], ['retry', '&view=chain'],
  ['retry', '&view=fleet&autoplay=1'], ['retry', '&view=server&autoplay=1'],
  // Beside the run without mitigations: two plots, a queue of two lines and a three-column table.
  ['retry', '&view=server&mitigations=all&autoplay=1'], ['fencing', '&autoplay=1'],
  ['live', ''],
];
// Phones load each demo at the narrowest width, then turn it wider (as a reader rotating a
// phone, or a column resized); the desktop loads each demo afresh.
const profiles = [{ widths: [320, 412, 560], phone: true }, { widths: [1280], phone: false }];

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  for (const { widths, phone } of profiles) {
    const height = phone ? 860 : 800;
    const context = await browser.newContext({
      viewport: { width: widths[0], height }, deviceScaleFactor: phone ? 2 : 1, hasTouch: phone, isMobile: phone });
    for (const [demo, extra] of demos) {
      console.log(`# ${demo}${extra} at ${widths.join(', ')} px`);
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      // Embedded, as a documentation page shows it: the frame is the width under test.
      await page.goto(`${server.url}index.html?demo=${demo}&embed=1${extra}`);
      await waitForFrames(page, 3, 60000);  // a demo at rest draws three frames and sleeps
      if (extra.includes('trace='))  // fetched by the page, then replayed: its own view
        await page.waitForFunction(() => window.vigil.state().trace !== null, null, { timeout: 30000 });
      for (const width of widths) {
        if (width !== widths[0]) await page.setViewportSize({ width, height });
        // Let plots settle (the legend's rows are measured in one frame and used in the next).
        await drawFrames(page, 3);
        let s = await page.evaluate(() => window.vigil.state());
        // An embedded demo on a narrow screen starts with its controls folded: open them.
        const header = s.layout.items.find((i) => i.label === 'Controls');
        if (header && width === widths[0]) {
          const below = (st) => st.layout.items.filter((i) => i.y > header.y + header.h).length;
          check(below(s) === 0, `${demo} at ${width} px: embedded, it starts with its controls folded`);
          // Scrolled to first, as a reader would when the plots fill the screen.
          const top = await page.evaluate((y) => {
            window.scrollTo(0, Math.max(0, y - 100));
            return document.querySelector('canvas').getBoundingClientRect().top;
          }, header.y);
          await page.touchscreen.tap(header.x + header.w / 2, top + header.y + header.h / 2);
          await drawFrames(page, 3);
          s = await page.evaluate(() => window.vigil.state());
          check(below(s) > 0, `${demo} at ${width} px: one click opens them (${below(s)} controls)`);
        }
        const what = `${demo}${extra.replace(/&(autoplay|rate|speed|kill|n)=[^&]*/g, '').replace(/&trace=[^&]*/, ' (a trace)')} at ${width} px`;
        check(s.layout.narrow === phone, `${what}: laid out in ${phone ? 'one column' : 'two columns'}`);
        check(Math.abs(s.layout.css_width - width) < 1, `${what}: the app follows the frame's width (${s.layout.css_width} px)`);
        const found = layoutProblems(s.layout, phone);
        check(found.length === 0, `${what}: ${s.layout.items.filter(named).length} controls and ` +
              `${s.layout.texts.length} texts fit (${found.slice(0, 6).join('; ')})`);
        check(errors.length === 0, `${what}: no console errors (${errors.join(' | ')})`);
        if (demo === 'swim' || (demo === 'phi' && width === 320))
          await page.screenshot({ path: artifact(args, `layout_${demo}_${width}.png`), fullPage: true });
      }
      await page.close();
    }
    await context.close();
  }
} finally {
  await browser.close();
  server.stop();
}
