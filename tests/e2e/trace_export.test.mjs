// The live view's "export trace": `vigil demo --nodes 3` serves the page (on its own port, so
// every agent is another origin); clicking a peer's button in the probe table downloads that
// peer's heartbeat trace from the selected agent, as CSV named trace-PEER.csv.
import { readFileSync } from 'node:fs';
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
  const buttons = s.layout.items.filter((i) => /^export \d+ acks$/.test(i.label));
  check(buttons.length === 2, `the probe table of ${agent} has an "export N acks" button per peer (${buttons.map((b) => b.label).join(', ')})`);
  const probes = s.agents.find((a) => a.name === agent).probes;
  const acks = Object.values(probes).map((p) => p.probes - p.failed).sort();
  check(JSON.stringify(buttons.map((b) => Number(b.label.split(' ')[1])).sort()) === JSON.stringify(acks),
        `each button says how many acks its trace holds (${acks.join(', ')})`);
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
  check(rows.length >= Number(button.label.split(' ')[1]), 'the file holds at least the acks its button named');

  // On a phone the buttons leave the table and name their peer in full.
  await page.setViewportSize({ width: 412, height: 860 });
  await page.waitForFunction(() => window.vigil.state().layout.narrow, null, { timeout: 10000, polling: 100 });
  await drawFrames(page, 3);
  const phone = (await state()).layout.items.filter((i) => i.label.startsWith('trace of '));
  check(phone.length === 2 && peers.every((p) => phone.some((b) => b.label.startsWith(`trace of ${p}: `))) &&
        phone.every((b) => !b.clipped && b.x + b.w <= 412.5),
        `at 412 px each peer has a whole "trace of NAME: N acks" button (${phone.map((b) => b.label).join(', ')})`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
} finally {
  await browser.close();
  stopDemo();
}
console.log('trace_export: all checks passed');
