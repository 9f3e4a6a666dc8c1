// assets/embed.js, the one-script-tag way to put demos in a page of another origin: a
// [data-vigil-demo] element becomes an iframe that loads within one screen of the viewport, is
// told when it is off screen, is unloaded beyond two screens and comes back from the parameters it
// reported; bad parameters show nothing and warn once; elements added later become demos too; the
// frame takes its demo's height (vigil:size) and the page's colours (theme=… and vigil:theme).
import http from 'node:http';
import { check, freePort, launchBrowser, openPage, parseArgs, startServer } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const app = await startServer(args.vigil, args.web);  // origin A: http://127.0.0.1:PORT/

// Origin B: a documentation site on another host name and port, as in anyone's docs.
function hostPage(body, style = '') {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>docs</title><link rel="icon" href="data:,">
<script src="${app.url}embed.js" async></script>
<style>
  body { margin: 0; padding: 8px; background: #fafaf7; color: #222; font: 16px/1.5 sans-serif; }
  .spacer { height: 3000px; }
  ${style}
</style>
<script>
  window.heard = [];  // what the demos tell this page
  addEventListener('message', (e) => heard.push({ data: e.data, origin: e.origin,
    from: [...document.querySelectorAll('[data-vigil-demo]')].find((el) =>
      el.shadowRoot && el.shadowRoot.querySelector('iframe').contentWindow === e.source)?.id }));
</script>
</head><body>${body}</body></html>`;
}
const pages = {
  '/docs.html': hostPage(`
    <h1>Phi accrual</h1>
    <div id="near" data-vigil-demo="phi" data-params="mean=1000&amp;std=50"><a href="#">Open the demo</a></div>
    <div id="bad" data-vigil-demo="phi" data-params="mean=1000&amp;x=alert(1)"></div>
    <div id="fixed" data-vigil-demo="phi" data-theme="dark" data-height="200" data-title="Dark phi"></div>
    <div class="spacer"></div>
    <div id="far" data-vigil-demo="gossip" data-params="n=200" data-height="300"></div>
    <div class="spacer"></div>`,
    `html[data-theme="dark"] body { background: #1b1b1d; color: #eee; }
     iframe { border: 9px solid red; }  /* a site's own iframe style must not reach the demos */
     #fixed::part(frame) { outline: 3px solid rgb(0, 128, 0); }`),
  // No background anywhere: the browser paints the colour scheme the page declares.
  '/plain.html': hostPage('<div id="plain" data-vigil-demo="phi"></div>',
                          ':root { color-scheme: light dark; } body { background: none; }'),
};
const port = await freePort();
const docs = http.createServer((req, res) => {
  const page = pages[new URL(req.url, 'http://x').pathname];
  res.writeHead(page ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(page || 'not found');
});
await new Promise((resolve) => docs.listen(port, '127.0.0.1', resolve));
const docsUrl = `http://localhost:${port}/`;

const browser = await launchBrowser();
try {
  const { page, errors } = await openPage(browser, { width: 1000, height: 800 });
  const warnings = [];
  page.on('console', (m) => { if (m.type() === 'warning' && m.text().startsWith('vigil embed:')) warnings.push(m.text()); });
  await page.goto(`${docsUrl}docs.html`);
  check(new URL(docsUrl).origin !== new URL(app.url).origin, `the page (${docsUrl}) and the app (${app.url}) are of different origins`);

  const stats = () => page.evaluate(() => ({ ...window.vigilEmbed.stats }));
  // The host's view of a demo's iframe (in the element's shadow root).
  const frameInfo = (id) => page.evaluate((i) => {
    const f = document.getElementById(i).shadowRoot?.querySelector('iframe');
    if (!f) return null;
    return { src: f.getAttribute('src'), height: f.getBoundingClientRect().height, title: f.title,
             blank: Boolean(f.contentDocument && f.contentDocument.URL === 'about:blank') };
  }, id);
  const running = async (id, frames = 3) => {
    const handle = await page.waitForSelector(`#${id} iframe`, { state: 'attached', timeout: 10000 });
    await handle.scrollIntoViewIfNeeded();  // a demo draws only while it can be seen
    const frame = await handle.contentFrame();
    await frame.waitForFunction((n) => {
      const s = window.vigil && window.vigil.state();
      return s && s.frame >= n;
    }, frames, { timeout: 60000, polling: 100 });
    return frame;
  };
  // Polls (bounded) until the iframe is as tall as its demo's content, within 2 px.
  const sized = async (id, frame) => {
    let last = null;
    for (const deadline = Date.now() + 20000; Date.now() < deadline;) {
      const content = await frame.evaluate(() => window.vigil.state()?.layout?.content_height);
      const { height } = await frameInfo(id);
      last = { content, height };
      if (typeof content === 'number' && Math.abs(height - content) <= 2) return last;
      await page.waitForTimeout(100);
    }
    throw new Error(`check failed: ${id}'s iframe is ${last.height} px tall, its content ${last.content} px`);
  };
  const waitStats = (predicate, what) => page.waitForFunction(predicate, null, { timeout: 30000, polling: 50 })
    .catch(async () => { throw new Error(`${what}: ${JSON.stringify(await stats())}`); });

  // 1. One screen: the near demos load, the far one does not.
  const near = await running('near');
  let s = await near.evaluate(() => window.vigil.state());
  check(s.embed === true && s.demo === 'phi', 'the near element became an embedded phi demo that runs');
  const nearSrc = new URL((await frameInfo('near')).src);
  check(nearSrc.origin === new URL(app.url).origin && nearSrc.pathname === '/index.html'
        && nearSrc.search === '?demo=phi&embed=1&mean=1000&std=50&theme=light',
        `its iframe is the app next to embed.js, with the element's parameters and the page's theme (${nearSrc.search})`);
  check(await page.evaluate(() => document.querySelector('#near a').getClientRects().length === 0),
        'the element\'s own content (a fallback link) is not shown once the demo is there');
  const styles = await page.evaluate(() => ['near', 'fixed'].map((id) => {
    const cs = getComputedStyle(document.getElementById(id).shadowRoot.querySelector('iframe'));
    return `${cs.borderTopWidth} ${cs.outlineStyle} ${cs.outlineColor}`;
  }));
  check(styles[0].startsWith('0px none') && styles[1] === '0px solid rgb(0, 128, 0)',
        `the page's iframe styles do not reach the frames, ::part(frame) does (${styles.join('; ')})`);
  check((await frameInfo('near')).title === 'vigil demo: phi' && (await frameInfo('fixed')).title === 'Dark phi',
        'titles: "vigil demo: NAME" unless data-title says otherwise');
  await running('fixed');
  check(new URL((await frameInfo('fixed')).src).searchParams.get('theme') === 'dark',
        'data-theme="dark" is passed to the demo as theme=dark');
  const far = await frameInfo('far');
  check(far && far.src === null && far.height === 300,
        `the far demo's iframe is there at its data-height (${far && far.height} px) but not loaded`);
  s = await stats();
  check(s.demos === 3 && s.everLoaded === 2 && s.live === 2,
        `3 demos on the page, 2 loaded before scrolling (${JSON.stringify(s)})`);

  // 2. A bad element shows nothing and warns once, however often the page is scanned again.
  check(await page.evaluate(() => {
    const el = document.getElementById('bad');
    return !el.shadowRoot && el.querySelector('iframe') === null && el.getBoundingClientRect().height === 0;
  }), 'the element with data-params "x=alert(1)" shows nothing');
  await page.evaluate(() => window.vigilEmbed.scan());
  check(warnings.length === 1 && warnings[0].includes('alert(1)'), `one warning for it (${warnings.join(' | ')})`);

  // 3. Scrolled just out of view (within two screens): told it is not visible, sleeps, stays loaded.
  // Showing the fixed demo may already have scrolled the near one away (and told it so): start
  // from the near demo on screen, so that the message below is the one this scroll causes.
  await (await page.$('#near iframe')).scrollIntoViewIfNeeded();
  await near.waitForFunction(() => window.vigil.visible(), null, { timeout: 10000, polling: 50 });
  await near.evaluate(() => {
    window.heard = [];
    addEventListener('message', (e) => { if (e.source === parent) window.heard.push(e.data); });
  });
  await page.evaluate(() => window.scrollTo(0, 1400));
  await near.waitForFunction(() => !window.vigil.visible()
    && window.heard.some((m) => m.type === 'vigil:visibility' && m.visible === false), null, { timeout: 10000, polling: 50 });
  const asleep = await near.evaluate(() => window.vigil.frames());
  check((await stats()).live === 2, `off screen the near demo is told it is hidden and sleeps (at frame ${asleep}), still loaded`);
  const paramsBefore = await page.evaluate(() => window.heard.filter((h) => h.from === 'near' && h.data.type === 'vigil:params').map((h) => h.data.query));
  check(paramsBefore.length >= 1 && paramsBefore.every((q) => q.includes('mean=1000') && q.includes('std=50')),
        `it reported its parameters to the page (${paramsBefore.at(-1)})`);

  // 4. Far away: the near demos are unloaded, the far one loads when it comes near.
  const heightBefore = (await frameInfo('near')).height;
  await page.evaluate(() => document.getElementById('far').scrollIntoView());
  await waitStats(() => window.vigilEmbed.stats.unloads === 2, 'the two top demos are unloaded beyond two screens');
  check((await frameInfo('near')).blank && (await frameInfo('fixed')).blank,
        'beyond two screens both top demos are unloaded (about:blank)');
  check((await frameInfo('near')).height === heightBefore, `the unloaded frame keeps its height (${heightBefore} px)`);
  const gossip = await running('far');
  check((await gossip.evaluate(() => window.vigil.state())).demo === 'gossip', 'the far demo loads when scrolled to');
  const farSize = await sized('far', gossip);
  check(farSize.height !== 300, `and leaves its data-height for its content's: ${farSize.height} px for ${farSize.content} px`);
  s = await stats();
  check(s.everLoaded === 3 && s.live === 1 && s.maxLive === 2, `one demo alive now, never more than two (${JSON.stringify(s)})`);

  // 5. Back at the top: the near demo comes back from the last parameters it reported.
  const lastQuery = await page.evaluate(() => window.heard.filter((h) => h.from === 'near' && h.data.type === 'vigil:params').at(-1).data.query);
  await page.evaluate(() => window.scrollTo(0, 0));
  const back = await running('near');
  const backSrc = new URL((await frameInfo('near')).src);
  const expected = `${lastQuery.split('&').filter((p) => !p.startsWith('theme=')).join('&')}&theme=light`;
  check(backSrc.search === `?${expected}`, `reloaded from its last vigil:params (${backSrc.search})`);
  check((await back.evaluate(() => window.vigil.state())).demo === 'phi', 'and runs again');
  await waitStats(() => window.vigilEmbed.stats.unloads >= 3, 'the far demo is unloaded');
  s = await stats();
  check(s.loads === 5 && s.unloads === 3 && s.live === 2, `loads ${s.loads}, unloads ${s.unloads}, live ${s.live}`);

  // 6. The page's theme changes (Docusaurus sets data-theme on <html>): the demo is told.
  await back.evaluate(() => {
    window.heard = [];
    addEventListener('message', (e) => { if (e.source === parent) window.heard.push(e.data); });
  });
  await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'));
  await back.waitForFunction(() => window.heard.some((m) => m.type === 'vigil:theme' && m.theme === 'dark'),
                             null, { timeout: 5000, polling: 50 });
  check(true, 'a dark page (data-theme on <html>) sends vigil:theme dark');
  await page.evaluate(() => document.documentElement.removeAttribute('data-theme'));
  await back.waitForFunction(() => window.heard.some((m) => m.type === 'vigil:theme' && m.theme === 'light'),
                             null, { timeout: 5000, polling: 50 });
  check(true, 'and light again when the attribute goes');

  // 7. A documentation site that swaps its content: elements that come, change and go.
  await page.evaluate(() => {
    const el = document.createElement('div');
    el.id = 'later';
    el.dataset.vigilDemo = 'phi';
    el.dataset.params = 'mean=500';
    document.body.prepend(el);
  });
  await running('later');
  check(new URL((await frameInfo('later')).src).searchParams.get('mean') === '500',
        'an element added later becomes a demo without any call');
  await page.evaluate(() => { document.getElementById('later').dataset.params = 'mean=700'; });
  await page.waitForFunction(() => /mean=700/.test(document.getElementById('later').shadowRoot.querySelector('iframe').src),
                             null, { timeout: 5000, polling: 50 });
  check(true, 'changing its data-params makes it that demo');
  const demosBefore = (await stats()).demos;
  await page.evaluate(() => document.getElementById('later').remove());
  await waitStats(() => window.vigilEmbed.stats.demos === 3, 'a removed element is forgotten');
  check((await stats()).demos === demosBefore - 1, 'a removed element is forgotten');
  check(warnings.length === 1, `still one warning (${warnings.length})`);

  // 8. A page without any background: the colour scheme it declares, as the browser paints it.
  const plain = await browser.newPage({ viewport: { width: 800, height: 600 }, colorScheme: 'dark' });
  const plainErrors = [];
  plain.on('console', (m) => { if (m.type() === 'error') plainErrors.push(m.text()); });
  await plain.goto(`${docsUrl}plain.html`);
  const plainFrame = await plain.waitForSelector('#plain iframe', { state: 'attached', timeout: 10000 });
  await plain.waitForFunction(() => document.querySelector('#plain').shadowRoot.querySelector('iframe').getAttribute('src'),
                              null, { timeout: 10000, polling: 50 });
  check(new URL(await plainFrame.getAttribute('src')).searchParams.get('theme') === 'dark',
        'no background, "color-scheme: light dark" and a reader who prefers dark: theme=dark');
  const plainApp = await plainFrame.contentFrame();
  await plainApp.waitForFunction(() => window.vigil && window.vigil.state(), null, { timeout: 60000, polling: 100 });
  await plainApp.evaluate(() => {
    window.heard = [];
    addEventListener('message', (e) => { if (e.source === parent) window.heard.push(e.data); });
  });
  await plain.emulateMedia({ colorScheme: 'light' });
  await plainApp.waitForFunction(() => window.heard.some((m) => m.type === 'vigil:theme' && m.theme === 'light'),
                                 null, { timeout: 5000, polling: 50 });
  check(true, 'the reader switching to light sends vigil:theme light');
  await plain.close();
  check(errors.length === 0 && plainErrors.length === 0,
        `no console errors on the host pages (${[...errors, ...plainErrors].join(' | ')})`);

  // 9. The app's side: the frame is as tall as the demo's content, and in the page's colours.
  const size = await sized('near', back);
  check(true, `the near frame is ${size.height} px tall for ${size.content} px of content`);
  const themeOf = (frame, theme) => frame.waitForFunction((t) => window.vigil.state()?.theme === t, theme,
                                                          { timeout: 10000, polling: 50 })
    .then(() => true, () => false);
  check(await themeOf(back, 'light'), 'on the light page the demo is light (state().theme)');
  await page.evaluate(() => { document.body.style.background = '#15171c'; });
  check(await themeOf(back, 'dark'), 'the page turning dark (body background) turns the demo dark');
  const fixed = await running('fixed');
  check(await themeOf(fixed, 'dark'), 'data-theme="dark" stays dark');
  // Showing the fixed demo may have scrolled the near one out of view, where it sleeps and
  // takes the new theme only when it draws again: bring it back before asking.
  await (await page.$('#near iframe')).scrollIntoViewIfNeeded();
  await page.evaluate(() => { document.body.style.background = ''; });
  check(await themeOf(back, 'light'), 'and light again with the page');
  check(await themeOf(fixed, 'dark'), 'data-theme="dark" stays dark on a light page');
  check(errors.length === 0, `no console errors on the host page (${errors.join(' | ')})`);
} finally {
  await browser.close();
  docs.close();
  app.stop();
}
