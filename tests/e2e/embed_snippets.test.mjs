// The documentation snippets of docs/embedding.md, built for real from docs/embed-snippets/ and
// loaded in Chromium from another origin, with embed.js from `vigil serve`: plain HTML, MkDocs
// with the Material theme (and its palette toggle), Sphinx (a raw html block), and a Docusaurus
// MDX page (compiled with @mdx-js/mdx, rendered by react-dom/server, then hydrated by React in
// the browser as Docusaurus does, after embed.js has put its iframe in).
//
//   node tests/e2e/embed_snippets.test.mjs --vigil build/bin/vigil --web build/web \
//        --artifacts DIR --node-modules DIR
//
// Needs sphinx-build and mkdocs with the Material theme (Debian: python3-sphinx mkdocs
// mkdocs-material), and a node_modules folder with @mdx-js/mdx, react@18 and react-dom@18 (18 for
// its browser build, which hydrates the page).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { check, freePort, launchBrowser, openPage, parseArgs, startServer } from './harness.mjs';

const args = parseArgs(process.argv.slice(2), ['vigil', 'web', 'artifacts', 'node-modules']);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const kPlaceholder = 'https://your.host/vigil/';
const app = await startServer(args.vigil, args.web);
const work = mkdtempSync(path.join(os.tmpdir(), 'vigil-snippets-'));
const site = path.join(work, 'site');  // what the second origin serves

// The snippets as a writer would have them, pointing at this app instead of the placeholder.
function copySnippets() {
  const source = path.join(repo, 'docs/embed-snippets');
  const into = path.join(work, 'src');
  cpSync(source, into, { recursive: true });
  const rewrite = (dir) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) rewrite(file);
      else writeFileSync(file, readFileSync(file, 'utf8').replaceAll(kPlaceholder, app.url));
    }
  };
  rewrite(into);
  return into;
}

const src = copySnippets();
const scriptTag = `<script src="${app.url}embed.js"`;
const divTag = '<div data-vigil-demo="phi" data-params="mean=1000&std=50"></div>';

// Plain HTML: the file itself.
cpSync(path.join(src, 'plain.html'), path.join(site, 'plain/index.html'));

// Sphinx.
execFileSync('sphinx-build', ['-b', 'html', '-q', path.join(src, 'sphinx'), path.join(site, 'sphinx')], { stdio: 'inherit' });
const sphinxHtml = readFileSync(path.join(site, 'sphinx/index.html'), 'utf8');
check(sphinxHtml.includes(`${scriptTag} async></script>`) && sphinxHtml.includes(divTag),
      'sphinx-build keeps the raw html block\'s script tag and div intact');

// MkDocs (Material).
execFileSync('mkdocs', ['build', '-q', '-f', path.join(src, 'mkdocs/mkdocs.yml'), '-d', path.join(site, 'mkdocs')], { stdio: 'inherit' });
const mkdocsHtml = readFileSync(path.join(site, 'mkdocs/index.html'), 'utf8');
check(mkdocsHtml.includes(`${scriptTag}></script>`) && mkdocsHtml.includes(divTag),
      'mkdocs build keeps the div intact and adds embed.js (extra_javascript)');
check(mkdocsHtml.includes('data-md-color-scheme'), 'the page is built with the Material theme and its palette');

// Docusaurus: the .mdx page as Docusaurus would compile it (front matter is Docusaurus' own,
// taken off first), rendered on the server, with embed.js in <head> as `scripts` puts it there.
const requireFrom = createRequire(path.join(path.resolve(args['node-modules']), 'x.js'));
const load = async (name) => import(pathToFileURL(requireFrom.resolve(name)).href);
const { compile, run } = await load('@mdx-js/mdx');
const runtime = await load('react/jsx-runtime');
const { renderToString } = await load('react-dom/server');
const React = await load('react');
const mdx = readFileSync(path.join(src, 'docusaurus/phi.mdx'), 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '');
const body = String(await compile(mdx, { outputFormat: 'function-body' }));
const { default: Content } = await run(body, { ...runtime, baseUrl: pathToFileURL(src).href });
const rendered = renderToString(React.createElement(Content));
check(/<div data-vigil-demo="phi" data-params="mean=1000&amp;std=50"><\/div>/.test(rendered),
      'the MDX <div ... /> renders as the div with its data- attributes');
// The browser builds, which the packages' exports do not list: found next to their package.json.
const packageDir = (name) => path.dirname(requireFrom.resolve(`${name}/package.json`));
cpSync(path.join(packageDir('react'), 'umd/react.production.min.js'), path.join(site, 'react/react.js'));
cpSync(path.join(packageDir('react-dom'), 'umd/react-dom.production.min.js'), path.join(site, 'react/react-dom.js'));
mkdirSync(path.join(site, 'docusaurus'), { recursive: true });
writeFileSync(path.join(site, 'docusaurus/index.html'), `<!doctype html>
<html lang="en" data-theme="light"><head><meta charset="utf-8"><title>Phi accrual</title><link rel="icon" href="data:,">
<script src="${app.url}embed.js" async></script>
<style>
  body { margin: 0; padding: 1rem; background: #fff; color: #1c1e21; font-family: system-ui, sans-serif; }
  html[data-theme='dark'] body { background: #1b1b1d; color: #e3e3e3; }
</style>
</head><body><div id="__docusaurus">${rendered}</div>
<script src="/react/react.js"></script>
<script src="/react/react-dom.js"></script>
<script>
  // React takes over the server's HTML, as Docusaurus does on every page.
  window.hydrate = () => {
    const jsx = (type, props, key) => React.createElement(type, key === undefined ? props : { ...props, key });
    const { default: Content } = new Function(${JSON.stringify(body)})({ Fragment: React.Fragment, jsx, jsxs: jsx });
    function Page() {
      React.useEffect(() => { window.hydrated = true; }, []);
      return React.createElement(Content);
    }
    ReactDOM.hydrateRoot(document.getElementById('__docusaurus'), React.createElement(Page));
  };
</script>
</body></html>`);

// The second origin: the built sites as a static host serves them.
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css',
                '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png' };
const port = await freePort();
const docs = http.createServer((req, res) => {
  // The site's icon is the site's business, not the snippet's: none, and no 404 for it.
  if (req.url === '/favicon.ico') return void res.writeHead(204).end();
  let file = path.join(site, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (!file.startsWith(site + path.sep)) file = '';
  try {
    if (file && statSync(file).isDirectory()) file = path.join(file, 'index.html');
    const bytes = readFileSync(file);
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
    res.end(bytes);
  } catch {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found');
  }
});
await new Promise((resolve) => docs.listen(port, '127.0.0.1', resolve));
const docsUrl = `http://localhost:${port}/`;

const browser = await launchBrowser();
try {
  // Opens a built page; resolves with the demo's frame once it has drawn three frames.
  async function open(name) {
    const { page, errors } = await openPage(browser, { width: 1100, height: 900 });
    await page.goto(`${docsUrl}${name}/`);
    const attribute = await page.$eval('[data-vigil-demo]', (el) => el.getAttribute('data-params'));
    check(attribute === 'mean=1000&std=50', `${name}: the div's data-params read "${attribute}" in the browser`);
    const handle = await page.waitForSelector('[data-vigil-demo] iframe', { state: 'attached', timeout: 10000 });
    const frame = await handle.contentFrame();
    await frame.waitForFunction(() => {
      const s = window.vigil && window.vigil.state();
      return s && s.frame >= 3;
    }, null, { timeout: 60000, polling: 100 });
    const state = await frame.evaluate(() => window.vigil.state());
    const src = new URL(await handle.getAttribute('src'));
    check(state.demo === 'phi' && state.embed && src.searchParams.get('mean') === '1000' && state.theme === 'light',
          `${name}: a phi demo runs in the page (frame ${state.frame}, ${src.search})`);
    // As tall as the demo's content at the width this theme gives it (polled, bounded).
    let size = null;
    for (const deadline = Date.now() + 20000; Date.now() < deadline; await page.waitForTimeout(100)) {
      size = { content: await frame.evaluate(() => window.vigil.state().layout.content_height),
               height: await handle.evaluate((f) => f.getBoundingClientRect().height),
               width: await handle.evaluate((f) => f.getBoundingClientRect().width) };
      if (Math.abs(size.height - size.content) <= 2) break;
    }
    check(Math.abs(size.height - size.content) <= 2,
          `${name}: the frame (${size.width} px wide) is ${size.height} px tall for ${size.content} px of content`);
    await page.screenshot({ path: path.join(args.artifacts, `embed_snippet_${name}.png`) });
    return { page, errors, frame, src };
  }
  const listen = (frame) => frame.evaluate(() => {
    window.heard = [];
    addEventListener('message', (e) => { if (e.source === parent) window.heard.push(e.data); });
  });
  // The page told the demo (vigil:theme), and the demo draws in that theme.
  const told = (frame, theme) => frame.waitForFunction(
    (t) => window.heard.some((m) => m.type === 'vigil:theme' && m.theme === t) && window.vigil.state().theme === t,
    theme, { timeout: 5000, polling: 50 });

  for (const name of ['plain', 'sphinx']) {
    const { page, errors, src } = await open(name);
    check(src.searchParams.get('theme') === 'light', `${name}: a light page gives a light demo`);
    check(errors.length === 0, `${name}: no console errors (${errors.join(' | ')})`);
    await page.close();
  }

  // Material's palette toggle sets data-md-color-scheme on <body>: the demo follows it.
  {
    const { page, errors, frame, src } = await open('mkdocs');
    check(src.searchParams.get('theme') === 'light', 'mkdocs: the default palette gives a light demo');
    await listen(frame);
    await page.click('label[title="Switch to dark mode"]');
    await page.waitForFunction(() => document.body.getAttribute('data-md-color-scheme') === 'slate');
    await told(frame, 'dark');
    check(true, 'mkdocs: the palette toggle to slate makes the demo dark');
    await page.click('label[title="Switch to light mode"]');
    await told(frame, 'light');
    check(true, 'mkdocs: and back to light');
    check(errors.length === 0, `mkdocs: no console errors (${errors.join(' | ')})`);
    await page.close();
  }

  // React hydrates the page after embed.js has put its iframe in: no mismatch, same iframe.
  {
    const { page, errors, frame, src } = await open('docusaurus');
    check(src.searchParams.get('theme') === 'light', 'docusaurus: a light page gives a light demo');
    await page.evaluate(() => {
      window.before = document.querySelector('[data-vigil-demo]').shadowRoot.querySelector('iframe');
      window.hydrate();
    });
    await page.waitForFunction(() => window.hydrated === true, null, { timeout: 10000 });
    const same = await page.evaluate(() => {
      const el = document.querySelector('[data-vigil-demo]');
      return window.before.isConnected && el.shadowRoot.querySelector('iframe') === window.before;
    });
    check(same && errors.length === 0,
          `docusaurus: React hydrates the page and the demo's iframe stays (${errors.join(' | ')})`);
    await listen(frame);
    await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'));
    await told(frame, 'dark');
    check(true, 'docusaurus: the theme switch (data-theme on <html>) makes the demo dark');
    check(errors.length === 0, `docusaurus: no console errors (${errors.join(' | ')})`);
    await page.close();
  }
} finally {
  await browser.close();
  docs.close();
  app.stop();
  rmSync(work, { recursive: true, force: true });
}
