// Real packets in the live view: `vigil demo --nodes 3` serves the page, which connects to the
// three agents. Before "show packets" is ticked no agent sends it a packet; within 3 s of ticking
// it every agent's pings and acks are there; "block -> peer" (a one-way cut, every datagram from
// the selected agent to the peer dropped) shows within 3 probe periods as ping-req traffic for
// that pair, as dropped packets, and in the per-peer probe table as failed direct probes
// answered through helpers.
import WebSocket from 'ws';
import { layoutProblems } from './layout_checks.mjs';
import { artifact, check, drawFrames, launchBrowser, openPage, parseArgs, screenshotStats,
         startDemo, waitForFrames, waitForLiveAgents } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const demo = await startDemo(args.vigil, args.web, 3);
const stopDemo = demo.stop;

// The probe period, from an agent's own snapshot.
function probePeriod(http) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${http}/ws`, 'vigil.v1');
    const timer = setTimeout(() => { ws.terminate(); reject(new Error('no snapshot')); }, 5000);
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type !== 'snapshot') return;
      clearTimeout(timer);
      ws.close();
      resolve(m.config.probe_interval_ms);
    });
    ws.on('error', reject);
  });
}

// The ring's legend names every glyph, under the ring (not over the agents' views), whole, and
// the rest of the view fits around it.
const kLegend = ['ping', 'ack', 'ping-req', 'nack', 'push-pull', 'suspect', 'alive', 'dead', 'lost', 'cut link'];
function checkLegend(s, width) {
  const entries = kLegend.map((label) => s.layout.texts.filter((t) => t.kind === 'plot' && t.text === label));
  check(entries.every((e) => e.length >= 1 && e.every((t) => !t.cut)),
        `at ${width} px the ring's legend names ${kLegend.join(', ')}`);
  const problems = layoutProblems(s.layout, width < 600);
  check(problems.length === 0, `at ${width} px nothing is cut or drawn over (${problems.slice(0, 4).join('; ')})`);
}

const browser = await launchBrowser();
try {
  const url = demo.url;
  const info = await (await fetch(new URL('/v1/demo', url))).json();
  check(info.agents.length === 3, 'the demo runs three agents');
  const period = await probePeriod(info.agents[0].http);

  const { page, errors } = await openPage(browser);
  await page.goto(`${url}?demo=live`);
  await waitForFrames(page, 2);
  await waitForLiveAgents(page, 3);
  const state = () => page.evaluate(() => window.vigil.state());
  let s = await state();
  const names = s.agents.map((a) => a.name);
  check(true, `three agents connected (${names.join(', ')}), probe period ${period} ms`);
  check(!s.show_packets && s.agents.every((a) => !a.packets.wanted && a.packets.received === 0),
        'no packets before "show packets" is ticked');

  // Tick the box, as a reader does.
  await drawFrames(page, 2);
  const box = (await state()).layout.items.find((i) => i.label === 'show packets');
  check(box, 'the controls have a "show packets" toggle');
  const clickAt = async (item) => {
    await page.mouse.move(item.x + item.w / 2, item.y + item.h / 2);
    await page.mouse.down();
    await page.mouse.up();
  };
  const tickedAt = Date.now();
  await clickAt(box);
  await page.waitForFunction(() => {
    const st = window.vigil.state();
    return st.show_packets && st.agents.every((a) => a.packets.kinds.ping > 0 && a.packets.kinds.ack > 0);
  }, null, { timeout: 3000, polling: 50 });
  const tookMs = Date.now() - tickedAt;
  s = await state();
  check(true, `pings and acks from all three agents ${tookMs} ms after ticking "show packets" (bound 3000 ms)`);
  console.log(`# kinds: ${s.agents.map((a) => `${a.name} ${JSON.stringify(a.packets.kinds)}`).join('; ')}`);
  await page.waitForFunction(() => window.vigil.state().ring.flights > 0, null, { timeout: 5000, polling: 50 });
  check(true, `the ring draws the agents' packets in flight (${(await state()).ring.flights} so far)`);
  await screenshotStats(browser, page, artifact(args, 'live_packets_on.png'));

  // Cut the selected agent's datagrams to its default peer with the panel's own button.
  const cutter = s.agents[0].name, peer = s.peer;
  check(peer && peer !== cutter, `the cut: ${cutter} -> ${peer}`);
  const routes = (st) => st.agents.flatMap((a) => a.packets.ping_req.map((r) => ({ agent: a.name, ...r })));
  const forPair = (r) => (r.agent === cutter && r.dir === 'out' && r.target === peer) ||
                         (r.agent === peer && r.dir === 'out' && r.target === cutter) ||
                         (r.dir === 'in' && ((r.peer === cutter && r.target === peer) || (r.peer === peer && r.target === cutter)));
  const countFor = (st) => routes(st).filter(forPair).reduce((n, r) => n + r.count, 0);
  const before = countFor(s);
  const block = s.layout.items.find((i) => i.label === 'block -> peer');
  const blockedAt = Date.now();
  await clickAt(block);
  await page.waitForFunction(() => window.vigil.state().agents[0].last_reply === 'ok block', null,
                             { timeout: 5000, polling: 50 });
  await page.waitForFunction(({ cutter, peer, before }) => {
    const st = window.vigil.state();
    let n = 0;
    for (const a of st.agents)
      for (const r of a.packets.ping_req)
        if ((a.name === cutter && r.dir === 'out' && r.target === peer) ||
            (a.name === peer && r.dir === 'out' && r.target === cutter) ||
            (r.dir === 'in' && ((r.peer === cutter && r.target === peer) || (r.peer === peer && r.target === cutter))))
          n += r.count;
    return n > before;
  }, { cutter, peer, before }, { timeout: 3 * period, polling: 50 });
  const pingReqMs = Date.now() - blockedAt;
  s = await state();
  check(countFor(s) > before,
        `ping-req traffic for ${cutter}/${peer} ${pingReqMs} ms after the cut (bound 3 probe periods, ${3 * period} ms): ` +
        JSON.stringify(routes(s).filter(forPair)));
  await page.waitForFunction((name) => window.vigil.state().agents.find((a) => a.name === name).packets.dropped > 0,
                             cutter, { timeout: 3 * period, polling: 50 });
  check(true, `${cutter}'s log marks the datagrams it dropped`);
  await page.waitForFunction(({ cutter, peer }) => {
    const p = window.vigil.state().agents.find((a) => a.name === cutter).probes[peer];
    return p && p.direct_failed > 0 && p.indirect_acked > 0;
  }, { cutter, peer }, { timeout: 6 * period, polling: 100 });
  s = await state();
  const row = s.agents.find((a) => a.name === cutter).probes[peer];
  check(row.failed === 0, `${cutter}'s probe table for ${peer}: ${JSON.stringify(row)} (direct failed, answered through helpers)`);
  await page.waitForFunction(() => window.vigil.state().ring.cuts >= 1, null, { timeout: 5000, polling: 50 })
    .catch(() => {});
  check((await state()).ring.cuts === 1, `the ring draws the blocked link ${cutter} -> ${peer} cut ` +
        `(${(await state()).ring.cuts} cut)`);

  await drawFrames(page, 2);
  const table = (await state()).probe_table;
  check(table.agent === cutter && table.rows === 2, `the per-peer probe table is drawn for ${cutter} (${table.rows} rows)`);
  const stats = await screenshotStats(browser, page, artifact(args, 'live_packets_cut.png'));
  check(stats.colors > 100 && stats.nonBackground > 0.05,
        `screenshot is not blank (${stats.colors} colours, ${(stats.nonBackground * 100).toFixed(1)}% drawn)`);

  // On a phone the ring takes the width, a square, with its legend under it.
  await page.setViewportSize({ width: 412, height: 860 });
  await page.waitForFunction(() => window.vigil.state().layout.narrow, null, { timeout: 10000, polling: 100 });
  await drawFrames(page, 3);
  const phoneRing = (await state()).ring;
  check(phoneRing.width >= 360 && phoneRing.height > phoneRing.width,
        `at 412 px the ring is ${Math.round(phoneRing.width)} x ${Math.round(phoneRing.height)} px, legend included`);
  checkLegend(await state(), 412);
  await page.setViewportSize({ width: 1400, height: 900 });  // back to openPage's size
  await page.waitForFunction(() => !window.vigil.state().layout.narrow, null, { timeout: 10000, polling: 100 });
  await drawFrames(page, 3);

  checkLegend(await state(), 1400);

  // Unticking stops the stream.
  await clickAt((await state()).layout.items.find((i) => i.label === 'show packets'));
  await page.waitForFunction(() => !window.vigil.state().show_packets, null, { timeout: 3000, polling: 50 });
  const stopped = (await state()).agents.map((a) => a.packets.received);
  await page.waitForFunction((n) => window.vigil.state().agents[0].messages > n + 20,
                             (await state()).agents[0].messages, { timeout: 10000, polling: 100 });
  const later = (await state()).agents.map((a) => a.packets.received);
  check(later.every((n, i) => n - stopped[i] <= 30),
        `after unticking, batches stop (${stopped.join('/')} -> ${later.join('/')} packets)`);
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
} finally {
  await browser.close();
  stopDemo();
}
