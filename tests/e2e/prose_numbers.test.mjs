// Every number the explainer writes in its prose has a source the page can be checked against.
// Results are filled from the lab's output ([data-n], checked by e2e.explainer); what remains in
// the text are the set-ups: a demo's parameters, a lab command's arguments, the defaults and notes
// the lab prints about its own runs. This test finds each number written by hand in a section
// and looks for it in those sources of the same section: the parameters of the section's demos,
// and the arguments, `--help` and text output of the lab commands whose results the section
// quotes. A number found in none of them is reported with its sentence: it has drifted, or its
// source must say it.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { check, launchBrowser, openPage, parseArgs, startServer } from './harness.mjs';
import { experiments } from '../../scripts/explainer_data.mjs';

const run = promisify(execFile);
const args = parseArgs(process.argv.slice(2));
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();

const tokens = (text) => [...text.replace(/(\d),(\d{3})/g, '$1$2').matchAll(/\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));

// What the lab says about an experiment, as numbers: its command's arguments, its --help
// (defaults) and its text output (titles and notes state the set-up).
const labNumbers = new Map();
async function numbersOf(key) {
  if (labNumbers.has(key)) return labNumbers.get(key);
  const spec = experiments[key];
  const argv = Array.isArray(spec) ? ['lab', ...spec] : spec.command;
  const sub = argv.filter((a) => !a.startsWith('-') && !/[/.]/.test(a) && !/^\d/.test(a));
  const [help, text] = await Promise.all([
    run(args.vigil, [...sub, '--help'], { cwd: repo }).then((r) => r.stdout, (e) => e.stdout || ''),
    run(args.vigil, argv, { cwd: repo, maxBuffer: 64 << 20 }).then((r) => r.stdout),
  ]);
  const found = new Set(tokens(`${argv.join(' ')}\n${help}\n${text}`));
  labNumbers.set(key, found);
  return found;
}

try {
  const { page, errors } = await openPage(browser, { width: 1280, height: 900 });
  await page.goto(`${server.url}explainer.html`);
  await page.waitForFunction(() => window.explainer && window.explainer.ready, null, { timeout: 60000 });
  const sections = await page.evaluate(() => [...document.querySelectorAll('main section')].map((section) => {
    const written = [];
    const walker = document.createTreeWalker(section, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      // Filled numbers, commands and code, formulas, the section's own number, the names of a
      // demo's controls (bold in its caption) and the links that open a demo are not prose figures.
      if (n.parentElement.closest('.n, pre, code, .formula, .math, table[data-table], h2 .num, figcaption b, ' +
                                  'a[href^="index.html"]')) continue;
      written.push(n.textContent);
    }
    return {
      id: section.id,
      text: written.join(''),
      demos: [...section.querySelectorAll('iframe[data-src]')].map((f) => f.dataset.src),
      quotes: [...new Set([...section.querySelectorAll('[data-n], [data-table]')]
        .map((e) => (e.dataset.n || e.dataset.table).split('/')[0]))],
    };
  }));

  const unexplained = [];
  let checked = 0;
  for (const s of sections) {
    if (s.id === 'numbers') continue;  // the list of the lab's commands itself
    const known = new Set();
    for (const src of s.demos) for (const v of tokens(new URL(src, server.url).search)) known.add(v);
    for (const key of s.quotes) for (const v of await numbersOf(key)) known.add(v);
    const text = s.text.replace(/\s+/g, ' ');
    for (const m of text.replace(/(\d),(\d{3})/g, '$1$2').matchAll(/\d+(?:\.\d+)?/g)) {
      const before = text.slice(0, m.index).trimEnd();
      const after = text.slice(m.index + m[0].length);
      const value = Number(m[0]);
      // Arithmetic in running text (Δ/2, 1 − p, φ = 8), a citation's year, "section 2".
      if (/[/−+=·(^-]$/.test(before) || /^\s*[−/)]/.test(after) || /section$/.test(before) ||
          (/^(19|20)\d\d$/.test(m[0]) && /^\)/.test(after))) continue;
      ++checked;
      const percent = /^\s*%/.test(after);
      if (known.has(value) || (percent && known.has(value / 100))) continue;
      unexplained.push(`§${s.id}: ${m[0]} in "…${text.slice(Math.max(0, m.index - 40), m.index + 30)}…"`);
    }
  }
  check(checked >= 60, `${checked} hand-written numbers found in the explainer's prose`);
  check(unexplained.length === 0,
        `each is a parameter of a demo beside it or said by the lab command it quotes (${unexplained.length} not:\n  ${unexplained.join('\n  ')})`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
