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
  const buttons = s.layout.items.filter((i) => i.label === 'export trace');
  check(buttons.length === 2, `the probe table of ${agent} has an "export trace" button per peer (${buttons.length})`);
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
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
} finally {
  await browser.close();
  stopDemo();
}
console.log('trace_export: all checks passed');
