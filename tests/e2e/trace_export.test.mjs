// The live view's "export trace": `vigil demo --nodes 3` serves the page (on its own port, so
// every agent is another origin); clicking a peer's button in the probe table downloads that
// peer's heartbeat trace from the selected agent, as CSV named trace-PEER.csv.
import { readFileSync } from 'node:fs';
import { layoutProblems } from './layout_checks.mjs';
import { check, drawFrames, launchBrowser, openPage, parseArgs, startDemo, waitForFrames,
         waitForLiveAgents } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const demo = await startDemo(args.vigil, args.web, 3);
const stopDemo = demo.stop;

const browser = await launchBrowser();
try {
  const { page, errors } = await openPage(browser);
  await page.goto(`${demo.url}?demo=live`);
  await waitForFrames(page, 2);
  await waitForLiveAgents(page, 3);
  const state = () => page.evaluate(() => window.vigil.state());
  // Some acks first, so that the download has rows.
  await page.waitForFunction(() => {
    const st = window.vigil.state();
    return st.probe_table.rows === 2 &&
      Object.values(st.agents.find((a) => a.name === st.probe_table.agent).probes).every((p) => p.probes >= 2);
  }, null, { timeout: 30000, polling: 200 });
  await drawFrames(page, 2);
  const s = await state();
  const agent = s.probe_table.agent;
  const peers = Object.keys(s.agents.find((a) => a.name === agent).members);
  // A table with an "export N acks" button a row where its columns fit whole; else, as here in the
  // column beside the plots, a few lines a peer under its name and a "trace of NAME: N acks".
  const exportAcks = (label) => Number(/^(?:export|trace of .+:) (\d+) acks$/.exec(label)?.[1]);
  const buttons = s.layout.items.filter((i) => exportAcks(i.label) >= 0);
  check(buttons.length === 2, `${agent}'s probes have an export button per peer (${buttons.map((b) => b.label).join(', ')})`);
  const probes = s.agents.find((a) => a.name === agent).probes;
  const acks = Object.values(probes).map((p) => p.probes - p.failed).sort();
  check(JSON.stringify(buttons.map((b) => exportAcks(b.label)).sort()) === JSON.stringify(acks),
        `each button says how many acks its trace holds (${acks.join(', ')})`);
  const wide = layoutProblems(s.layout, false);
  check(wide.length === 0, `at 1400 px the live view's names, headers and buttons fit (${wide.slice(0, 4).join('; ')})`);
  check(buttons.every((b) => b.w >= 80 && b.h > 0), `the buttons are finger-sized (${buttons.map((b) => `${b.w}x${b.h}`).join(', ')} px)`);

  const button = buttons[0];
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 10000 }),
    (async () => {
      await page.mouse.move(button.x + button.w / 2, button.y + button.h / 2);
      await page.mouse.down();
      await page.mouse.up();
    })(),
  ]);
  const file = download.suggestedFilename();
  const peer = /^trace-(.+)\.csv$/.exec(file)?.[1];
  check(peers.includes(peer), `the click downloads ${file}, a trace of one of ${agent}'s peers`);
  const text = readFileSync(await download.path(), 'utf8');
  const lines = text.trim().split('\n');
  check(lines[0].startsWith(`# vigil trace: ack arrivals from ${peer} seen by ${agent}`) && lines[1] === 'time_ms,sender',
        `the file is the agent's CSV (${lines[0]})`);
  const rows = lines.slice(2).map((l) => l.split(','));
  check(rows.length >= 1 && rows.every(([t, who]) => /^\d+\.\d{3}$/.test(t) && who === peer),
        `${rows.length} rows of ${peer}'s acks`);
  check(rows.length >= exportAcks(button.label), 'the file holds at least the acks its button named');

  // On a phone the buttons leave the table and name their peer in full.
  await page.setViewportSize({ width: 412, height: 860 });
  await page.waitForFunction(() => window.vigil.state().layout.narrow, null, { timeout: 10000, polling: 100 });
  await drawFrames(page, 3);
  const phone = (await state()).layout.items.filter((i) => i.label.startsWith('trace of '));
  check(phone.length === 2 && peers.every((p) => phone.some((b) => b.label.startsWith(`trace of ${p}: `))) &&
        phone.every((b) => !b.clipped && b.x + b.w <= 412.5),
        `at 412 px each peer has a whole "trace of NAME: N acks" button (${phone.map((b) => b.label).join(', ')})`);
  const narrow = await state();
  const nameTexts = peers.map((p) => narrow.layout.texts.find((t) => t.text === p && t.kind === 'text'));
  check(nameTexts.every((t) => t && !t.cut && t.x + t.w <= 412.5),
        `at 412 px the probes name each peer whole (${nameTexts.map((t) => t && `${t.text} ${t.w} px`).join(', ')})`);
  const phoneProblems = layoutProblems(narrow.layout, true);
  check(phoneProblems.length === 0, `at 412 px the live view fits (${phoneProblems.slice(0, 4).join('; ')})`);
  // A trace this young is too short for the phi demo: each peer says how many acks it needs.
  const needs = narrow.layout.texts.filter((t) => /^\d+ acks so far: the phi demo needs 102 to replay and tune a trace$/.test(t.text));
  check(needs.length === 2 && needs.every((t) => !t.cut), `and what the phi demo needs (${needs.map((t) => t.text).join(' | ')})`);

  // That trace dropped on the phi demo on a phone, its controls folded: refused, and the reason
  // (how many acks it holds, how many it needs) shows above the plots, where it was dropped.
  await page.goto(`${demo.url}?demo=phi&embed=1`);
  await waitForFrames(page, 3);
  await page.evaluate((csv) => {
    const dt = new DataTransfer();
    dt.items.add(new File([csv], 'trace-short.csv', { type: 'text/csv' }));
    document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, text);
  await page.waitForFunction(() => window.vigil.state().trace_error !== '', null, { timeout: 10000, polling: 100 });
  await drawFrames(page, 3);
  const refused = await state();
  check(/^trace-short\.csv: .*\b\d+\b.*102 are needed/.test(refused.trace_error), `a short trace is refused: ${refused.trace_error}`);
  const said = refused.layout.texts.find((t) => t.kind === 'text' && t.text === refused.trace_error);
  const folded = refused.layout.items.find((i) => i.label === 'Controls');
  const firstPlot = Math.min(...refused.layout.texts.filter((t) => t.kind === 'plot').map((t) => t.y));
  check(said && !said.cut && folded && said.y + said.h <= firstPlot && said.y < folded.y,
        `the reason shows whole above the plots, with the controls folded (at y ${said?.y}, plots from ${firstPlot}, controls at ${folded?.y})`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
} finally {
  await browser.close();
  stopDemo();
}
console.log('trace_export: all checks passed');
