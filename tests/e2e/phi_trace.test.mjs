// The phi demo on a reader's own trace, in headless Chromium: a file through the picker, files
// dropped on the page (a good one, a malformed one, one over the size limit), a trace named by
// URL on another origin with and without CORS, playback and a cut, and figures equal to
// `vigil tune`'s on the same file. Nothing the reader loads leaves the page.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { artifact, check, drawFrames, launchBrowser, openPage, parseArgs, screenshotStats,
         startServer } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-phi-trace-'));

// mulberry32: the same trace on every run.
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Half an hour of heartbeats every 100 ms (+0..9 ms of jitter) with a longer gap now and then,
// never 300, 1000 or 3000 ms exactly, so that each timeout's mistakes can be counted here.
function makeTrace(seed, beats) {
  const rand = prng(seed);
  const times = [1_700_000_000_000];
  for (let i = 1; i < beats; ++i) {
    let gap = 100 + Math.floor(rand() * 10);
    if (rand() < 0.004) gap = [180, 450, 1250, 3400, 650][Math.floor(rand() * 5)];
    times.push(times[i - 1] + gap);
  }
  return times;
}
const times = makeTrace(7, 18000);
const csv = `# a test trace\ntime_ms,sender\n${times.map((t) => `${t},node-b`).join('\n')}\n`;
const good = path.join(dir, 'lab-trace.csv');
writeFileSync(good, csv);
// The detectors' warm-up is the first 100 heartbeats; after it, a timeout's mistakes are the gaps
// longer than it. The page's timeouts are 3, 10 and 30 median gaps.
const mistakes = (timeout) => times.slice(101).filter((t, i) => t - times[100 + i] > timeout).length;

const cli = JSON.parse(execFileSync(args.vigil, ['tune', '--trace', good, '--max-mistakes-per-hour', '100',
                                                 '--format', 'json'], { encoding: 'utf8' }));
const cliBest = cli.best.find((r) => r.family === 'phi-normal');
const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

// Another origin serving the trace, as a documentation site would: with CORS, and without.
const origin = http.createServer((req, res) => {
  const cors = req.url.startsWith('/cors/');
  res.writeHead(req.url.endsWith('.csv') ? 200 : 404,
                { 'Content-Type': 'text/csv', ...(cors ? { 'Access-Control-Allow-Origin': '*' } : {}) });
  res.end(req.url.endsWith('.csv') ? csv : '');
});
await new Promise((resolve) => origin.listen(0, '127.0.0.1', resolve));
const elsewhere = `http://127.0.0.1:${origin.address().port}`;

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
const state = (page) => page.evaluate(() => window.vigil.state());

async function click(page, label) {
  await drawFrames(page, 2);
  const item = (await state(page)).layout.items.find((i) => i.label === label);
  if (!item) throw new Error(`no "${label}" on the page`);
  // On a phone the canvas grows with its content and the page scrolls: bring the item into view.
  const top = await page.evaluate((y) => {
    window.scrollTo(0, Math.max(0, y - 200));
    return document.getElementById('canvas').getBoundingClientRect().top;
  }, item.y);
  await drawFrames(page, 2);
  await page.mouse.move(item.x + item.w / 2, top + item.y + item.h / 2);
  await page.mouse.down();
  await page.mouse.up();
}

// Drops a file made in the page (`size` bytes of `text` repeated, or `text` itself).
async function drop(page, name, text, size = 0) {
  await page.evaluate(({ name, text, size }) => {
    const bytes = size ? new Uint8Array(size).fill(49) : new TextEncoder().encode(text);
    const data = new DataTransfer();
    data.items.add(new File([bytes], name, { type: 'text/csv' }));
    const at = document.getElementById('canvas').getBoundingClientRect();
    for (const type of ['dragover', 'drop'])
      document.getElementById('canvas').dispatchEvent(new DragEvent(type, {
        bubbles: true, cancelable: true, dataTransfer: data, clientX: at.x + 100, clientY: at.y + 100 }));
  }, { name, text, size });
}

try {
  const { page, errors } = await openPage(browser);
  const requests = [];
  page.on('request', (r) => requests.push({ method: r.method(), url: r.url() }));
  await page.goto(`${server.url}?demo=phi&budget=100`);
  await drawFrames(page, 3);

  // 1. The picker.
  const [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout: 30000 }),
                                       click(page, 'open a trace file')]);
  await chooser.setFiles(good);
  await page.waitForFunction(() => window.vigil.state().trace !== null, null, { timeout: 30000 });
  let s = await state(page);
  check(s.trace.name === 'lab-trace.csv' && s.trace.heartbeats === times.length,
        `the picked file is loaded: ${s.trace.heartbeats} heartbeats`);
  check(s.trace.interval_ms === 104 || s.trace.interval_ms === 105, `median gap ${s.trace.interval_ms} ms`);
  const timeouts = s.trace.detectors.slice(0, 3);
  const expected = [3, 10, 30].map((k) => mistakes(Math.round(k * s.trace.interval_ms)));
  check(timeouts.map((d) => d.mistakes).join() === expected.join(),
        `the timeouts' mistakes over the whole trace are the gaps longer than them: ${timeouts.map((d) => `${d.name} ${d.mistakes}`).join(', ')} (counted ${expected.join(', ')})`);
  check(s.trace.recommended && cliBest && close(s.trace.recommended.threshold, cliBest.setting),
        `the recommended phi threshold at 100 mistakes/h equals vigil tune's: ${s.trace.recommended?.threshold} and ${cliBest?.setting}`);
  check(close(s.trace.recommended.detection_mean_ms, cliBest.detection_mean_ms),
        `and so does its detection time (${s.trace.recommended.detection_mean_ms.toFixed(0)} ms)`);
  for (const family of Object.keys(s.trace.frontier)) {
    const rows = cli.frontier.filter((r) => r.family === family);
    check(s.trace.frontier[family].length === rows.length &&
          s.trace.frontier[family].every((p, i) => close(p.setting, rows[i].setting)),
          `the ${family} frontier is vigil tune's (${rows.length} points)`);
  }
  check(cli.allowed_mistakes === s.trace.allowed_mistakes, `both allow ${cli.allowed_mistakes} mistakes over the trace`);
  check(!new URL(page.url()).searchParams.has('trace'), 'a picked file does not go into the page URL');

  // "use it" makes threshold A the recommendation; the trace view's phi row follows.
  await click(page, 'use it for threshold A');
  await page.waitForFunction(() => window.vigil.state().live.thresholds[0] !== 8, null, { timeout: 20000 });
  s = await state(page);
  check(close(s.live.thresholds[0], s.trace.recommended.threshold),
        `threshold A is now ${s.live.thresholds[0].toFixed(3)}`);
  check(s.trace.detectors[3].mistakes_per_hour <= 100,
        `at that threshold phi makes ${s.trace.detectors[3].mistakes_per_hour.toFixed(2)} mistakes/h on the trace, within the budget`);
  await screenshotStats(browser, page, artifact(args, 'phi_trace.png'));

  // 2. Drops: a malformed file keeps the loaded trace and says what is wrong; one over the limit
  //    is refused before it is read; a good one with two senders replaces the trace.
  await drop(page, 'broken.csv', 'time_ms,sender\n100,a\nsoon,a\n');
  await page.waitForFunction(() => window.vigil.state().trace_error !== '', null, { timeout: 10000 });
  s = await state(page);
  check(s.trace_error === "broken.csv: line 3: 'soon' is not a number or an ISO-8601 time",
        `a malformed drop is refused with its line: ${s.trace_error}`);
  check(s.trace.name === 'lab-trace.csv', 'and the trace already loaded stays');
  await drop(page, 'huge.txt', '', 33 * 1024 * 1024);
  await page.waitForFunction(() => window.vigil.state().trace_error.startsWith('huge.txt'), null, { timeout: 10000 });
  s = await state(page);
  check(s.trace_error === "huge.txt: 33.0 MB is over the page's limit of 32.0 MB", `too large: ${s.trace_error}`);
  const two = `time_ms,sender\n${times.slice(0, 3000).map((t, i) => `${t},${i % 3 ? 'node-b' : 'node-c'}`).join('\n')}\n`;
  await drop(page, 'two.csv', two);
  await page.waitForFunction(() => window.vigil.state().trace?.name === 'two.csv', null, { timeout: 10000 });
  s = await state(page);
  check(s.trace.senders === 2 && s.trace.sender === 'node-b' && s.trace.heartbeats === 2000,
        `two senders: the busier, node-b, is shown (${s.trace.heartbeats} heartbeats)`);
  check(s.trace_error === '', 'a good file clears the last error');
  check(requests.every((r) => r.method === 'GET' && !/two\.csv|broken\.csv|lab-trace/.test(r.url)),
        `nothing was uploaded (${requests.length} requests, all GETs of the app)`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
  await page.close();

  // 3. By URL, from another origin that allows it, fast; the URL keeps it for the next visit.
  const byUrl = await openPage(browser, { width: 390, height: 800 });
  const traceUrl = `${elsewhere}/cors/lab-trace.csv`;
  await byUrl.page.goto(`${server.url}?demo=phi&embed=1&speed=100x&budget=20&trace=${encodeURIComponent(traceUrl)}`);
  await byUrl.page.waitForFunction(() => Boolean(window.vigil?.state()?.trace), null, { timeout: 30000 });
  s = await state(byUrl.page);
  check(s.trace.url === traceUrl && s.trace.heartbeats === times.length && s.trace.budget === 20 && s.trace.speed === 100,
        `trace=URL loads it with its budget and speed (${s.trace.heartbeats} heartbeats, ${s.trace.speed}x)`);
  // At 100x, a tenth of a second of wall time plays ten seconds of trace.
  const at = s.trace.position_ms;
  await byUrl.page.waitForFunction((from) => window.vigil.state().trace.position_ms > from + 10000, at,
                                   { timeout: 20000 });
  await drawFrames(byUrl.page, 3);
  check(new URL(byUrl.page.url()).searchParams.get('trace') === traceUrl, 'the page URL keeps trace=');
  await click(byUrl.page, 'Controls');  // an embedded demo on a phone opens with them folded
  await click(byUrl.page, 'cut here (crash)');
  await byUrl.page.waitForFunction(() => {
    const st = window.vigil.state();
    return st.trace.cut_ms !== null && st.live.detectors[0].detection_ms !== undefined;
  }, null, { timeout: 20000 });
  s = await state(byUrl.page);
  const cutDetect = s.live.detectors[0].detection_ms;
  // It suspects once the silence since the last heartbeat before the cut exceeds its timeout.
  const limit = Math.round(3 * s.trace.interval_ms) + 1;
  check(cutDetect >= 0 && cutDetect <= limit,
        `after the cut, ${s.live.detectors[0].name} detects within its ${limit} ms of silence (${cutDetect} ms after the cut)`);
  await screenshotStats(browser, byUrl.page, artifact(args, 'phi_trace_phone.png'));
  await click(byUrl.page, 'close trace');
  await byUrl.page.waitForFunction(() => window.vigil.state().trace === null, null, { timeout: 20000 });
  // The shell publishes the app's parameters to the URL at most every 500 ms (app-shell.js).
  await byUrl.page.waitForFunction(() => !new URLSearchParams(location.search).has('trace'), null,
                                   { timeout: 5000 }).catch(() => {});
  check(!new URL(byUrl.page.url()).searchParams.has('trace'), 'closing the trace drops trace= from the URL');
  check(byUrl.errors.length === 0, `no console errors (${byUrl.errors.join(' | ')})`);
  await byUrl.page.close();

  // 4. An origin that does not allow it: the reason, and the simulated stream goes on.
  const denied = await openPage(browser);
  await denied.page.goto(`${server.url}?demo=phi&trace=${encodeURIComponent(`${elsewhere}/plain/lab-trace.csv`)}`);
  // Until the app is up there is no state: undefined is not an error yet.
  await denied.page.waitForFunction(() => {
    const st = window.vigil?.state();
    return st && st.trace_error !== '';
  }, null, { timeout: 20000 });
  s = await state(denied.page);
  check(s.trace === null && s.trace_error.startsWith(`${elsewhere}/plain/lab-trace.csv: cannot fetch it (`),
        `without CORS the page says why: ${s.trace_error}`);
  // The refusal can come back before the first simulated heartbeat: wait for heartbeats after it.
  const receivedAtError = s.live.received;
  const runs = await denied.page.waitForFunction((n) => window.vigil.state().live.received > n, receivedAtError,
                                                 { timeout: 20000 }).then(() => true, () => false);
  check(runs, `and the simulated stream keeps running (${receivedAtError} heartbeats at the refusal, more since)`);
  await denied.page.close();
} finally {
  await browser.close();
  server.stop();
  origin.close();
}
console.log('phi_trace: all checks passed');
