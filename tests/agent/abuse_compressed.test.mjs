// Compressed bombs at an agent's protocol port, without gossip encryption (memberlist's default):
// datagrams of 64 KB holding 34 compressed user messages of 1 MiB each (34 MiB once expanded), ten
// a second for 10 s, and push-pull streams whose compressed message expands past the 4 MiB a
// stream may carry. Each datagram must be refused whole (nothing in it handled) and counted, each
// such stream refused at once rather than held to its 10 s deadline, and the agent must stay
// small, cheap and alive: no failed probe, no suspicion, its peer alive in both views. What a
// legitimate member sends still goes through: a compressed user message of 32 KiB, and a
// compressed full state of 2 MiB (more than the 1 MiB one compressed message could once expand to).
import dgram from 'node:dgram';
import net from 'node:net';
import { Cluster, check, installCleanup, parseArgs, waitFor } from './harness.mjs';
import { compressMessage } from './compressed.mjs';
import { compound } from './memberlist_messages.mjs';
import { pushPull, userMessage } from './forgeries.mjs';
import { cpuSeconds, metrics, rssKB, rssSampler } from './process_stats.mjs';

const args = parseArgs(process.argv.slice(2));
// Checks are collected and made at the end, so that a run against an agent without these limits
// still measures and reports every figure before failing.
const expectations = [];
const expect = (condition, message) => expectations.push([condition, message]);
const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);
await cluster.start(2);
const [a, b] = cluster.agents;
await waitFor(() => cluster.allSee('alive'), 30000, 'the two agents to see each other alive');
// agent-1's follow-up exchange a second after its join (the local profile's join_follow_up) lands
// first, so that every stream counted below is one of this test's.
await waitFor(async () => (await metrics(b)).vigil_streams_sent_total >= 2, 10000, 'agent-1\'s follow-up exchange');

const kKiB = 1024, kMiB = 1024 * 1024;
const kRssLimitKB = 64 * 1024;
const kDatagramBudget = 64 * kKiB;  // what all compressed parts of one datagram may expand to
const kStreamDeadlineMs = 10000;    // the agent's stream deadline (memberlist's TCP timeout)
const kProbeIntervalMs = 1000;      // the local profile's

const before = { a: await metrics(a), b: await metrics(b) };
const rssBeforeKB = rssKB(a.child.pid);
const cpuBefore = cpuSeconds(a.child.pid);
const rss = rssSampler(a.child.pid);
const t0 = Date.now();
const delta = (m, name) => m[name] - before.a[name];

const udp = dgram.createSocket('udp4');
await new Promise((resolve) => udp.bind(0, '127.0.0.1', resolve));
const sendTo = (agent, datagram) => new Promise((resolve, reject) =>
  udp.send(datagram, agent.port, '127.0.0.1', (err) => (err ? reject(err) : resolve())));

// A legitimate compressed user message (32 KiB of text, Serf-like) is handed on.
const legit = compressMessage(userMessage(Buffer.from('event:deploy '.repeat(2521)).subarray(0, 32 * kKiB)));
await sendTo(a, legit);
await waitFor(async () => delta(await metrics(a), 'vigil_user_messages_total') === 1, 5000, 'the 32 KiB user message');
expect(true, 'a compressed user message of 32 KiB is read and handed on');

// The bomb: as many compressed 1 MiB user messages as one datagram holds.
const bombPart = compressMessage(userMessage(Buffer.alloc(kMiB - 1)));
const partsPerDatagram = Math.min(255, Math.floor((65507 - 2) / (bombPart.length + 2)));
const bomb = compound(Array(partsPerDatagram).fill(bombPart));
console.log(`# bomb: ${bomb.length} bytes, ${partsPerDatagram} parts of ${bombPart.length} bytes, ` +
            `${partsPerDatagram} MiB expanded`);
// A datagram with a small legitimate message first: refused whole, the small one not handled.
const mixed = compound([compressMessage(userMessage(Buffer.from('hello'))), bombPart]);
await sendTo(a, mixed);

const kBombs = 100;
for (let i = 0; i < kBombs; ++i) {
  await sendTo(a, bomb);
  await new Promise((r) => setTimeout(r, 100));  // pacing the attack: ten datagrams a second
}
const bombsEnd = Date.now();
let mBombs;
try {
  mBombs = await waitFor(async () => {
    const m = await metrics(a, 20000);
    return delta(m, 'vigil_datagrams_rejected_total') >= kBombs + 1 && m;
  }, 30000, 'every bomb to be read and rejected');
} catch (e) {
  console.log(`# ${e.message}`);
  mBombs = await metrics(a, 60000);
}
const bombCpu = cpuSeconds(a.child.pid);
const bombSeconds = (Date.now() - t0) / 1000;
console.log(`# bombs: ${kBombs + 1} sent in ${((bombsEnd - t0) / 1000).toFixed(1)} s; ` +
            `rejected ${delta(mBombs, 'vigil_datagrams_rejected_total')}, ` +
            `refused for their expansion ${delta(mBombs, 'vigil_datagrams_expansion_refused_total')}, ` +
            `user messages handed on ${delta(mBombs, 'vigil_user_messages_total')}; RSS peak ${rss.peakKB} kB ` +
            `(${rssBeforeKB} kB before); CPU ${(bombCpu.user - cpuBefore.user).toFixed(2)} s user + ` +
            `${(bombCpu.system - cpuBefore.system).toFixed(2)} s system in ${bombSeconds.toFixed(1)} s`);

expect(delta(mBombs, 'vigil_datagrams_expansion_refused_total') === kBombs + 1,
      `all ${kBombs + 1} datagrams over the ${kDatagramBudget / kKiB} KiB expansion budget refused and counted`);
expect(delta(mBombs, 'vigil_datagrams_rejected_total') === kBombs + 1, 'and counted among the rejected datagrams');
expect(delta(mBombs, 'vigil_user_messages_total') === 1,
      'nothing in them was handled (the small message next to the bomb included): refused whole');

// Streams: a compressed push-pull expanding to 8 MiB, past the 4 MiB a stream may carry, is
// refused as soon as it has arrived, not held until the stream deadline.
function exchange(bytes) {
  return new Promise((resolve) => {
    const started = Date.now();
    const s = net.connect({ host: '127.0.0.1', port: a.port });
    const chunks = [];
    s.on('connect', () => s.write(bytes));
    s.on('data', (d) => chunks.push(d));
    s.on('error', () => {});
    s.on('close', () => resolve({ ms: Date.now() - started, reply: Buffer.concat(chunks) }));
  });
}
const streamBomb = compressMessage(pushPull([], Buffer.alloc(8 * kMiB)));
console.log(`# stream bomb: ${streamBomb.length} bytes expanding to over 8 MiB`);
const kStreamBombs = 20;
const beforeStreams = await metrics(a);
const closed = await Promise.all(Array.from({ length: kStreamBombs }, () => exchange(streamBomb)));
const slowest = Math.max(...closed.map((c) => c.ms));
const mStreams = await metrics(a);
const sdelta = (name) => mStreams[name] - beforeStreams[name];
console.log(`# stream bombs: slowest closed after ${slowest} ms; refused for their expansion ` +
            `${sdelta('vigil_streams_expansion_refused_total')}, junk ${sdelta('vigil_streams_junk_total')}, ` +
            `timed out ${sdelta('vigil_streams_timed_out_total')}`);
// Refusing one costs at most the 4 MiB of expansion its budget allows (some 15 ms here): twenty
// at once stay well within two probe intervals, where the deadline would have taken 10 s.
expect(slowest < 2 * kProbeIntervalMs, `each of ${kStreamBombs} stream bombs was closed at once (slowest after ${slowest} ms, ` +
      `the deadline is ${kStreamDeadlineMs / 1000} s)`);
expect(sdelta('vigil_streams_expansion_refused_total') === kStreamBombs &&
      sdelta('vigil_streams_rejected_total') === kStreamBombs && sdelta('vigil_streams_junk_total') === kStreamBombs &&
      sdelta('vigil_streams_timed_out_total') === 0,
      `all ${kStreamBombs} counted as refused for their expansion, none timed out`);
expect(closed.every((c) => c.reply.length === 0), 'none was answered');

// A compressed full state of 2 MiB (its user state) is within the stream's 4 MiB: answered.
const big = await exchange(compressMessage(pushPull([], Buffer.alloc(2 * kMiB, 0x61))));
console.log(`# a 2 MiB compressed full state: answered with ${big.reply.length} bytes after ${big.ms} ms`);
expect(big.reply.length > 0 && (big.reply[0] === 6 || big.reply[0] === 9) && big.ms < kProbeIntervalMs,
      'a compressed full state of 2 MiB is merged and answered');

rss.stop();
const seconds = (Date.now() - t0) / 1000;
const cpuAfter = cpuSeconds(a.child.pid);
const user = cpuAfter.user - cpuBefore.user, system = cpuAfter.system - cpuBefore.system;
console.log(`# abuse lasted ${seconds.toFixed(1)} s; agent CPU ${user.toFixed(2)} s user + ${system.toFixed(2)} s system; ` +
            `RSS peak ${rss.peakKB} kB`);
expect(rss.peakKB <= kRssLimitKB, `agent RSS stayed within 64 MB (peak ${rss.peakKB} kB, ${rssBeforeKB} kB before)`);
expect(user <= 0.10 * seconds, `agent CPU (user) stayed within 10 % of a core (${(100 * user / seconds).toFixed(1)} %)`);
expect(user + system <= 0.50 * seconds, `with the kernel's within 50 % (${(100 * (user + system) / seconds).toFixed(1)} %)`);

// The protocol went on: no probe failed either way, nobody suspected, both alive in both views.
const after = { a: await metrics(a), b: await metrics(b) };
const allAlive = await cluster.allSee('alive');
console.log(`# protocol: probes failed ${after.a.vigil_probes_failed_total - before.a.vigil_probes_failed_total} ` +
            `(${a.name}) and ${after.b.vigil_probes_failed_total - before.b.vigil_probes_failed_total} (${b.name}), ` +
            `suspicions ${after.a.vigil_suspicions_total - before.a.vigil_suspicions_total} and ` +
            `${after.b.vigil_suspicions_total - before.b.vigil_suspicions_total}; both alive in both views: ${allAlive}`);
for (const [agent, name] of [[a, 'a'], [b, 'b']]) {
  expect(after[name].vigil_probes_failed_total === before[name].vigil_probes_failed_total &&
        after[name].vigil_suspicions_total === before[name].vigil_suspicions_total,
        `${agent.name}: no probe failed, nobody suspected ` +
        `(${after[name].vigil_probes_total - before[name].vigil_probes_total} probes)`);
}
expect(allAlive, 'both agents still see each other alive');

udp.close();
cluster.stop();
for (const [condition, message] of expectations) check(condition, message);
process.exit(0);
