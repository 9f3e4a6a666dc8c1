// Abusive TCP clients on an agent's protocol port (where push-pull exchanges arrive): too many
// connections held open, connections streaming junk past the size limits, connections sending
// nothing until their deadline, and bytes that are no message at all. The agent must stay within
// its bounds (128 incoming streams, 4 MiB each, 16 MiB in all), count every stream it turned away,
// give the memory back, and keep doing its job: no failed probe, the peer alive, a real join.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { Cluster, check, httpGet, installCleanup, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);
await cluster.start(2);
const [a, b] = cluster.agents;
await waitFor(() => cluster.allSee('alive'), 30000, 'the two agents to see each other alive');

const kMaxIncoming = 128;
const kMiB = 1024 * 1024;
const kRssLimitKB = 64 * 1024;
const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

async function metrics(agent) {
  const text = (await httpGet(agent.httpPort, '/metrics', 5000)).body;
  const out = {};
  for (const m of text.matchAll(/^(vigil_\w+) (\d+)$/gm)) out[m[1]] = Number(m[2]);
  return out;
}
function rssKB(pid) {
  return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)[1]);
}
// utime + stime, in seconds.
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

// RSS sampled all along, so a peak between two checks is seen too.
let peakKB = 0;
const sampler = setInterval(() => { peakKB = Math.max(peakKB, rssKB(a.child.pid)); }, 20);

// A raw client: records when the agent closed it; errors (resets while writing) are expected.
function connect(onConnect) {
  const s = net.connect({ host: '127.0.0.1', port: a.port });
  const c = { socket: s, connected: false, closed: false };
  s.on('connect', () => { c.connected = true; if (onConnect) onConnect(s); });
  s.on('error', () => {});
  s.on('close', () => { c.closed = true; });
  s.on('data', () => {});
  return c;
}
const closedCount = (list) => list.filter((c) => c.closed).length;

// agent-1 makes one more full-state exchange with agent-0 a second after joining (the local
// profile's join_follow_up): let it land before the abuse, so that every stream turned away
// below is one of this test's.
await waitFor(async () => (await metrics(b)).vigil_streams_sent_total >= 2, 10000,
              'agent-1\'s follow-up exchange after its join');
const before = { a: await metrics(a), b: await metrics(b) };
const rssBeforeKB = rssKB(a.child.pid);
const cpuBefore = cpuSeconds(a.child.pid);
const t0 = Date.now();
console.log(`# agent ${a.name}: RSS ${rssBeforeKB} kB before the abuse`);

// (a) 200 connections held open and silent: 128 are taken, the rest closed at once and counted.
// The 128 then run into the stream deadline (10 s) and are closed as timed out.
// Opened 40 at a time: a burst past the listen backlog (64) would leave some connections to the
// kernel (dropped handshakes, SYN cookies) where the agent never sees them.
const held = [];
const accounted = (m) => m.vigil_streams_incoming + m.vigil_streams_refused_total - before.a.vigil_streams_refused_total;
for (let batch = 1; batch <= 5; ++batch) {
  for (let i = 0; i < 40; ++i) held.push(connect());
  await waitFor(async () => accounted(await metrics(a)) === 40 * batch, 10000, `the agent to take ${40 * batch} connections`);
}
const m1 = await waitFor(async () => {
  const m = await metrics(a);
  return m.vigil_streams_refused_total - before.a.vigil_streams_refused_total === 200 - kMaxIncoming &&
         m.vigil_streams_incoming === kMaxIncoming && m;
}, 20000, '128 held and 72 refused');
check(m1.vigil_streams_incoming === kMaxIncoming, `at most ${kMaxIncoming} incoming streams held (${m1.vigil_streams_incoming})`);
check(m1.vigil_streams_refused_total - before.a.vigil_streams_refused_total === 72,
      'the other 72 connections were refused and counted');
await waitFor(() => closedCount(held) >= 72, 5000, 'the refused clients to see their connection closed');
check(closedCount(held) === 72, `exactly the 72 refused connections were closed at once (${closedCount(held)})`);
const m2 = await waitFor(async () => {
  const m = await metrics(a);
  return m.vigil_streams_incoming === 0 && m;
}, 20000, 'the held streams to reach their deadline');
check(m2.vigil_streams_timed_out_total - before.a.vigil_streams_timed_out_total === kMaxIncoming,
      `the ${kMaxIncoming} silent streams were closed at their deadline and counted as timed out`);
await waitFor(() => closedCount(held) === 200, 5000, 'every held client to see its connection closed');
for (const c of held) c.socket.destroy();

// (c) slow streams: a plausible start (a push-pull type byte), then a byte every 500 ms, never
// completing a message. Still cut at the deadline, counted as timed out.
const slow = [];
const timers = [];
for (let i = 0; i < 4; ++i) {
  slow.push(connect((s) => {
    s.write(Buffer.from([6]));
    timers.push(setInterval(() => { if (!s.destroyed) s.write(Buffer.from([0xc1])); }, 500));
  }));
}

// (b) junk that stays undecided (a push-pull type byte, then bytes no message starts with) and
// connections that stay open. One stream alone past 4 MiB is closed for its size.
const sizedSoFar = (m) => ({ tooLarge: m.vigil_streams_too_large_total - before.a.vigil_streams_too_large_total,
                             overBudget: m.vigil_streams_over_budget_total - before.a.vigil_streams_over_budget_total });
const junkBody = Buffer.alloc(5 * kMiB, 0xc1);
junkBody[0] = 6;
const single = [connect((s) => s.write(junkBody))];
await waitFor(async () => sizedSoFar(await metrics(a)).tooLarge === 1, 10000, 'one stream past 4 MiB to be closed');
await waitFor(() => closedCount(single) === 1, 5000, 'its client to see the connection closed');
check(true, 'a stream sending more than 4 MiB is closed for its size while its client is still sending');

// Five streams of 3.5 MiB each, under the per-stream limit, cannot all be buffered within the
// 16 MiB total: at least one is closed for the budget, and what stays buffered is within it.
const partBody = junkBody.subarray(0, 3.5 * kMiB);
const budgeted = [];
for (let i = 0; i < 5; ++i) budgeted.push(connect((s) => s.write(partBody)));
const mb = await waitFor(async () => {
  const m = await metrics(a);
  const s = sizedSoFar(m);
  return s.overBudget >= 1 && m.vigil_stream_bytes_buffered >= (5 - s.overBudget) * 3.5 * kMiB && m;
}, 10000, 'the 3.5 MiB streams to be buffered or closed for the budget');
const sb = sizedSoFar(mb);
check(sb.overBudget >= 1 && sb.tooLarge === 1, `${sb.overBudget} of 5 streams under the per-stream limit closed for the 16 MiB total`);
check(mb.vigil_stream_bytes_buffered <= 16 * kMiB, `buffers stayed within 16 MiB (${mb.vigil_stream_bytes_buffered} bytes)`);
for (const c of budgeted) c.socket.destroy();
await waitFor(async () => (await metrics(a)).vigil_streams_incoming <= 4, 5000, 'the budgeted streams to end');

// 25 connections streaming junk past the limit at once: each closed for size, its own or the total.
const junkBefore = (await metrics(a)).vigil_streams_junk_total;
const flooders = [];
for (let i = 0; i < 25; ++i) flooders.push(connect((s) => s.write(junkBody)));
const m3 = await waitFor(async () => {
  const m = await metrics(a);
  const s = sizedSoFar(m);
  return s.tooLarge + s.overBudget - 1 - sb.overBudget === 25 && m;
}, 30000, 'the 25 junk streams to be closed for size');
const s3 = sizedSoFar(m3);
check(s3.tooLarge + s3.overBudget - 1 - sb.overBudget === 25,
      `all 25 closed for size: ${s3.tooLarge - 1} over 4 MiB, ${s3.overBudget - sb.overBudget} over the 16 MiB total`);
await waitFor(() => closedCount(flooders) === 25, 5000, 'the flooders to see their connections closed');
check(true, 'the flooders saw their connections closed while they were still sending');

// Bytes that cannot start a stream message are junk at once.
const junk = [];
for (let i = 0; i < 10; ++i) junk.push(connect((s) => s.write('GET / HTTP/1.1\r\nHost: vigil\r\n\r\n')));
await waitFor(() => closedCount(junk) === 10, 5000, 'the junk clients to be closed');
const m4 = await waitFor(async () => {
  const m = await metrics(a);
  return m.vigil_streams_junk_total - junkBefore === 10 && m;
}, 5000, 'the junk streams to be counted');
check(m4.vigil_streams_junk_total - junkBefore === 10, '10 streams of non-messages closed as junk, no other stream since');

const m5 = await waitFor(async () => {
  const m = await metrics(a);
  return m.vigil_streams_timed_out_total - m2.vigil_streams_timed_out_total === 4 && m;
}, 20000, 'the slow streams to reach their deadline');
check(m5.vigil_streams_timed_out_total - m2.vigil_streams_timed_out_total === 4,
      'the 4 slow streams were cut at their deadline and counted as timed out');
for (const t of timers) clearInterval(t);
for (const c of [...single, ...slow, ...flooders, ...junk]) c.socket.destroy();

check(peakKB <= kRssLimitKB, `agent RSS stayed within 64 MB during the abuse (peak ${peakKB} kB)`);
check(m5.vigil_stream_bytes_buffered === 0 && m5.vigil_streams_incoming === 0, 'no stream buffers are left');
const rssAfterKB = await waitFor(() => {
  const r = rssKB(a.child.pid);
  return r <= rssBeforeKB + 8 * 1024 && r;
}, 10000, 'RSS to fall back');
check(rssAfterKB <= rssBeforeKB + 8 * 1024, `RSS fell back to ${rssAfterKB} kB (${rssBeforeKB} kB before)`);
clearInterval(sampler);

const seconds = (Date.now() - t0) / 1000;
const cpu = cpuSeconds(a.child.pid) - cpuBefore;
console.log(`# abuse lasted ${seconds.toFixed(1)} s; agent CPU ${cpu.toFixed(2)} s (${(100 * cpu / seconds).toFixed(1)} % of a core)`);
check(cpu <= 0.10 * seconds, `agent CPU stayed within 10 % of a core (${(100 * cpu / seconds).toFixed(1)} %)`);

// The protocol went on: no probe failed either way, the peer is alive in both views.
const after = { a: await metrics(a), b: await metrics(b) };
check(after.a.vigil_probes_failed_total === before.a.vigil_probes_failed_total &&
      after.b.vigil_probes_failed_total === before.b.vigil_probes_failed_total,
      `no probe failed (${a.name}: ${after.a.vigil_probes_total - before.a.vigil_probes_total} probes, ` +
      `${b.name}: ${after.b.vigil_probes_total - before.b.vigil_probes_total})`);
check(await cluster.allSee('alive'), 'both agents still see each other alive');

// A real push-pull still works: a third agent joins through the abused one.
const c = await cluster.add('agent-2');
await waitFor(() => cluster.allSee('alive'), 15000, 'the third agent to join');
const joinStreams = (await metrics(a)).vigil_streams_refused_total - after.a.vigil_streams_refused_total;
check(joinStreams === 0, `${c.name} joined through ${a.name} by a full-state exchange, nothing refused`);
const summaries = a.log.split('\n').filter((l) => l.includes('streams turned away'));
const loggedRefusals = summaries.reduce((n, l) => n + Number(l.match(/: (\d+) refused/)[1]), 0);
check(loggedRefusals === 72, `the summary lines add up to the 72 refusals (${loggedRefusals})`);
check(summaries.length >= 1 && summaries.length <= Math.ceil(seconds / 10) + 1,
      `${summaries.length} summary lines in ${seconds.toFixed(0)} s (one per 10 s at most), not one per stream`);

cluster.stop();
process.exit(0);
