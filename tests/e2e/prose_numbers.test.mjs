// Every number the explainer writes in its prose has a source the page can be checked against.
// Results are filled from the lab's output ([data-n], checked by e2e.explainer). A set-up written
// by hand (a run's length, a demo's delay, "three pauses", "four thousand clients") sits in a
// [data-check] span naming its source, and must equal it:
//   arg:KEY --flag   the argument of experiment KEY's command, or the default its --help states
//   n:PATH           a lab value (explainer-numbers.mjs paths), to the span's precision
//   url:PARAM        a parameter of the figure's demo (in prose: of a demo in the section)
//   text:KEY         the command's text output: the titles and notes that state its set-up
//   trace            the header of the heartbeat trace the page replays (how it was recorded)
//   file:PATH        a file of this repository (a script's default)
// For the last three, data-in is a regular expression whose group is the figure in that text
// ("normal (\d+)±": the mean delay, not any 80 in the output). data-scale divides the source
// first (ms shown in s: 1000; a fraction shown in percent: 0.01).
// Numbers written in neither kind of span are looked for in the sources of their section: a
// figure found nowhere has drifted, or its sentence must name its source. A number word that
// counts something measured ("three pauses", "five seconds") must name its source outright.
// Three claims about demos are checked in the demos themselves: the fleet story is the lab's
// run, the single-silence demo draws the example the prose computes, and the first demo's upper
// plot follows its live stream.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { check, launchBrowser, openPage, parseArgs, startServer } from './harness.mjs';
import { experiments, trace } from '../../scripts/explainer_data.mjs';
import { format, resolve } from '../../assets/explainer-numbers.mjs';

const run = promisify(execFile);
const args = parseArgs(process.argv.slice(2));
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const small = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
  'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const tens = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const wordValue = (w) => (small.includes(w) ? small.indexOf(w) : tens[w]);
const wordRe = `(?:${[...small.slice(2), ...Object.keys(tens)].join('|')})`;
// "four thousand", "a thousand", "twenty", "nine": the value of a number written in words.
function parseWords(text) {
  const m = text.toLowerCase().trim().match(new RegExp(`^(a|one|${wordRe})(?:\\s+(hundred|thousand|million))?$`));
  if (!m) return null;
  const base = m[1] === 'a' ? 1 : wordValue(m[1]);
  return base * ({ hundred: 100, thousand: 1000, million: 1e6 }[m[2]] ?? 1);
}
// A span's number, digits (grouped or not) or words, with its decimals (its precision).
function parseFigure(text) {
  const digits = text.trim().match(/^-?\d{1,3}(?:,\d{3})*(?:\.(\d+))?$|^-?\d+(?:\.(\d+))?$/);
  if (digits) return { value: Number(text.trim().replace(/,/g, '')), decimals: (digits[1] || digits[2] || '').length };
  const words = parseWords(text);
  return words === null ? null : { value: words, decimals: 0 };
}
// Every number in a text, digits and words alike ("three 600 ms sender stops": 3 and 600).
function numbersIn(text) {
  const out = new Set(
    [...text.replace(/(\d),(\d{3})/g, '$1$2').matchAll(/\d+(?:\.\d+)?/g)].map((m) => Number(m[0])));
  for (const m of text.toLowerCase().matchAll(new RegExp(`\\b(${wordRe}|one)\\b`, 'g'))) out.add(wordValue(m[1]));
  return out;
}
const same = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

// What the lab says about an experiment: its command line, --help and text output.
const argvOf = (key) => {
  const spec = experiments[key];
  if (!spec) throw new Error(`no experiment '${key}'`);
  return Array.isArray(spec) ? ['lab', ...spec] : spec.command;
};
const subcommand = (argv) => argv.filter((a) => !a.startsWith('-') && !/[/.]/.test(a) && !/^\d/.test(a));
const memo = new Map();
const once = (key, f) => { if (!memo.has(key)) memo.set(key, f()); return memo.get(key); };
const helpOf = (key) => once(`help ${key}`, () =>
  run(args.vigil, [...subcommand(argvOf(key)), '--help'], { cwd: repo }).then((r) => r.stdout, (e) => e.stdout || ''));
const textOf = (key) => once(`text ${key}`, () =>
  run(args.vigil, argvOf(key), { cwd: repo, maxBuffer: 64 << 20 }).then((r) => r.stdout));

async function argument(key, flag) {
  const argv = argvOf(key);
  const at = argv.indexOf(flag);
  if (at >= 0) return Number(argv[at + 1]);
  const line = (await helpOf(key)).split('\n').find((l) => l.trim().startsWith(`${flag} `));
  const def = line && line.match(/\(default: (-?[\d.]+)/);
  if (!def) throw new Error(`${key}: no ${flag} in its arguments nor a numeric default in its --help`);
  return Number(def[1]);
}

const traceHeader = readFileSync(path.join(repo, trace), 'utf8').split('\n')
  .filter((l) => l.startsWith('#')).join('\n');

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
try {
  const data = await (await fetch(`${server.url}explainer-data.json`)).json();
  const { page, errors } = await openPage(browser, { width: 1280, height: 900 });
  await page.goto(`${server.url}explainer.html`);
  await page.waitForFunction(() => window.explainer && window.explainer.ready, null, { timeout: 60000 });

  // 1. Every [data-check] equals its source.
  const checks = await page.$$eval('[data-check]', (els) => els.map((e) => {
    const section = e.closest('section');
    const figure = e.closest('figure');
    return {
      check: e.dataset.check, scale: Number(e.dataset.scale || 1), text: e.textContent, within: e.dataset.in,
      section: section?.id,
      demos: (figure ? [figure] : [section]).flatMap((el) =>
        [...el.querySelectorAll('iframe[data-src]')].map((f) => f.dataset.src)),
    };
  }));
  const wrong = [];
  for (const c of checks) {
    const where = `§${c.section} "${c.text}" (${c.check})`;
    const shown = parseFigure(c.text);
    if (!shown) { wrong.push(`${where}: not a number`); continue; }
    try {
      const [kind, ...rest] = c.check.split(':');
      const ref = rest.join(':');
      // The figures a text gives in the place data-in names.
      const stated = (source) => {
        if (!c.within) throw new Error('no data-in: which figure of the text is it?');
        return [...source.matchAll(new RegExp(c.within, 'g'))].map((m) => parseFigure(m[1])?.value)
          .filter((v) => v !== undefined);
      };
      const among = (values, what) => {
        if (!values.some((v) => same(v / c.scale, shown.value)))
          wrong.push(`${where}: ${what} says ${values.join(', ') || 'nothing there'}`);
      };
      if (kind === 'arg') {
        const [key, flag] = ref.split(' ');
        const v = (await argument(key, flag)) / c.scale;
        if (!same(v, shown.value)) wrong.push(`${where}: the command has ${v}`);
      } else if (kind === 'text') {
        among(stated(await textOf(ref)), `vigil ${argvOf(ref).join(' ')}`);
      } else if (kind === 'n') {
        const v = resolve(data.experiments, ref) / c.scale;
        if (format(v, `f${shown.decimals}`) !== format(shown.value, `f${shown.decimals}`))
          wrong.push(`${where}: the lab says ${v}`);
      } else if (kind === 'url') {
        const values = c.demos.map((src) => new URL(src, server.url).searchParams.get(ref)).filter((v) => v !== null);
        if (!values.some((v) => same(Number(v) / c.scale, shown.value)))
          wrong.push(`${where}: its demo has ${ref}=${values.join(', ') || 'nothing'}`);
      } else if (kind === 'file') {
        among(stated(readFileSync(path.join(repo, ref), 'utf8')), ref);
      } else if (kind === 'trace') {
        among(stated(traceHeader), `the header of ${trace}`);
      } else {
        wrong.push(`${where}: unknown source kind '${kind}'`);
      }
    } catch (e) {
      wrong.push(`${where}: ${e.message}`);
    }
  }
  check(checks.length >= 60, `${checks.length} hand-written figures name their source`);
  check(wrong.length === 0, `each equals its source (${wrong.length} not:\n  ${wrong.join('\n  ')})`);

  // 2. The rest of the prose: digits are looked for in the sources of their section; a number
  //    word counting something measured must be in a [data-check] span.
  const sections = await page.evaluate(() => [...document.querySelectorAll('main section')].map((section) => {
    const written = [];
    const walker = document.createTreeWalker(section, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      // Filled and checked numbers, commands and code, formulas, the section's own number, the
      // names of a demo's controls (bold in its caption) and the links that open a demo.
      if (n.parentElement.closest('.n, [data-check], pre, code, .formula, .math, table[data-table], h2 .num, ' +
                                  'figcaption b, a[href^="index.html"]')) continue;
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
  const uncounted = [];
  let loose = 0;
  for (const s of sections) {
    if (s.id === 'numbers') continue;  // the list of the lab's commands itself
    const text = s.text.replace(/\s+/g, ' ');
    const measured = new RegExp(`\\b${wordRe}(?:\\s+(?:hundred|thousand))?\\s+(?:\\d[\\d,.]*\\s*\\w+\\s+)?` +
      '(?:ms|s|seconds?|minutes?|hours?|(?:protocol )?periods|runs?|members|clients|rounds|pauses|gaps|helpers|' +
      'tries|times a|clusters|requests|acks|agents|services)\\b', 'gi');
    for (const m of text.matchAll(measured)) uncounted.push(`§${s.id}: "…${m[0]}…"`);
    // The demos' parameters, the commands, their --help and results first; the commands' text
    // output (minutes of lab runs in all) only for a figure none of those say.
    const known = new Set();
    for (const src of s.demos) for (const v of numbersIn(new URL(src, server.url).search)) known.add(v);
    for (const key of s.quotes)
      for (const v of numbersIn(`${argvOf(key).join(' ')}\n${await helpOf(key)}\n${JSON.stringify(data.experiments[key].result)}`)) known.add(v);
    let texts = null;
    const inTexts = async (v) => {
      texts ??= new Set((await Promise.all(s.quotes.map(textOf))).flatMap((t) => [...numbersIn(t)]));
      return texts.has(v);
    };
    const flat = text.replace(/(\d),(\d{3})/g, '$1$2');
    for (const m of flat.matchAll(/\d+(?:\.\d+)?/g)) {
      const before = flat.slice(0, m.index).trimEnd();
      const after = flat.slice(m.index + m[0].length);
      // Arithmetic in running text (Δ/2, 1 − p, φ = 8), a citation's year, "section 2".
      if (/[/−+=·(^-]$/.test(before) || /^\s*[−/)]/.test(after) || /section$/.test(before) ||
          (/^(19|20)\d\d$/.test(m[0]) && /^\)/.test(after))) continue;
      ++loose;
      const value = Number(m[0]);
      const percent = /^\s*%/.test(after);
      if (known.has(value) || (percent && known.has(value / 100))) continue;
      if ((await inTexts(value)) || (percent && (await inTexts(value / 100)))) continue;
      unexplained.push(`§${s.id}: ${m[0]} in "…${flat.slice(Math.max(0, m.index - 40), m.index + 30)}…"`);
    }
  }
  check(unexplained.length === 0,
        `${loose} more figures are each said by a demo or lab command of their section ` +
        `(${unexplained.length} not:\n  ${unexplained.join('\n  ')})`);
  check(uncounted.length === 0,
        `every counted quantity written in words names its source (${uncounted.length} not:\n  ${uncounted.join('\n  ')})`);
  // A caption that promises a log axis has a demo drawing one.
  const logCaptions = await page.$$eval('figure.demo', (fs) => fs
    .filter((f) => /log axis/.test(f.querySelector('figcaption').textContent))
    .map((f) => f.querySelector('iframe').dataset.src));
  check(logCaptions.length > 0 && logCaptions.every((src) => new URL(src, server.url).searchParams.get('log') === '1'),
        `${logCaptions.length} caption(s) promising a log axis show a demo with log=1`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);

  // 3. Claims about the demos, checked in the demos.
  const demo = async (selector, until) => {
    const src = await page.$eval(selector, (f) => f.dataset.src);
    const p = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await p.goto(new URL(src, server.url).href);
    await p.waitForFunction(until, null, { timeout: 90000, polling: 200 });
    const state = await p.evaluate(() => window.vigil.state());
    await p.close();
    return { src, state };
  };
  const text = (selector) => page.$eval(selector, (e) => e.textContent);

  // The single silence: the demo draws the prose's example, and its φ is the lab's.
  {
    const { state } = await demo('#phi figure iframe[data-src*="silence="]', () => window.vigil?.state?.()?.frame > 3);
    const odds = await text('#phi figure:has(iframe[data-src*="silence="]) figcaption [data-n="phi_example/phi"]');
    const ex = experiments.phi_example;
    const arg = (f) => Number(ex[ex.indexOf(f) + 1]);
    check(state.mean === arg('--mean') && state.std === arg('--std') && state.silence === arg('--silence') &&
          state.follow === false && format(state.phi, 'odds') === odds,
          `the single-silence demo draws the lab's example: mean ${state.mean}, sd ${state.std}, silence ` +
          `${state.silence}, φ ${state.phi.toFixed(2)} (one in ${format(state.phi, 'odds')}; its caption: ${odds})`);
  }
  // The first demo's upper plot is "the distribution fitted to its gaps": it follows the stream.
  {
    const { state } = await demo('#silence figure iframe',
      () => { const s = window.vigil?.state?.(); return s && s.live.received >= 50; });
    // Both are read between two frames: the live fit may have taken one more gap since.
    check(state.follow === true && Math.abs(state.mean - state.live.mean) < 0.1 * state.live.mean,
          `the first demo's density is its live stream's fit (mean ${state.mean.toFixed(1)} ms, live ${state.live.mean.toFixed(1)} ms)`);
  }
  // The fleet story is the lab's run: the same calls by its 20th second, the same totals at the end.
  {
    const src = await page.$eval('#retries iframe[data-src*="view=fleet"]', (f) => f.dataset.src);
    const played = src.replace('scene=outage-storm', 'autoplay=1&speed=15');
    const p = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await p.goto(new URL(played, server.url).href);
    await p.waitForFunction(() => window.vigil?.state?.()?.fleet?.finished, null, { timeout: 90000, polling: 200 });
    const fleet = (await p.evaluate(() => window.vigil.state())).fleet;
    await p.close();
    const exp = fleet.strategies.exponential;
    const by20 = exp.offered.slice(0, 20).reduce((a, b) => a + b, 0);
    const prose = await text('#retries [data-n="fleet_exponential/per_second/:20/Σoffered"]');
    const total = await text('#retries [data-n="fleet_exponential/total_calls"]');
    const left = await text('#retries [data-n="fleet_exponential/unfinished"]');
    check(format(by20) === prose && format(exp.total_calls) === total && format(exp.unfinished) === left,
          `the fleet demo is the lab's run: ${format(by20)} calls by 20 s (prose ${prose}), ` +
          `${format(exp.total_calls)} in all (table ${total}), ${format(exp.unfinished)} waiting (table ${left})`);
  }
} finally {
  await browser.close();
  server.stop();
}
