// The packet log: three real agents (local profile). A viewer is sent no packets until it asks;
// then it sees pings and acks of every agent's traffic, with piggybacked news; a one-way cut shows
// as dropped packets, ping-reqs for that pair and per-peer probe counters; a UDP flood meets the
// per-viewer rate limit; a viewer that asks and never reads costs a bounded amount.
import crypto from 'node:crypto';
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import { Cluster, Viewer, check, httpGet, installCleanup, parseArgs, stuckViewer, waitFor, wsFrame } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);
await cluster.start(3);
await waitFor(() => cluster.allSee('alive'), 35000, 'all three to see each other alive');
check(true, 'three agents converged');

const names = cluster.agents.map((a) => a.name);
const viewers = cluster.agents.map((a) => new Viewer(a));
await Promise.all(viewers.map((v) => v.open));
const snapshot = await viewers[0].next((m) => m.type === 'snapshot', 3000, 'a snapshot');
const period = snapshot.config.probe_interval_ms;
const entries = (v) => v.messages.filter((m) => m.type === 'packets').flatMap((m) => m.packets);

// --------------------------------------------------------------------- off until asked
// Three stats messages each (0.2 s or more of the agents' time) and not one packet batch.
await waitFor(() => viewers.every((v) => v.messages.filter((m) => m.type === 'stats').length >= 3), 5000,
              'three stats messages for every viewer');
check(viewers.every((v) => !v.messages.some((m) => m.type === 'packets')), 'no packets before a viewer asks');
for (const v of viewers) v.send({ type: 'packets', on: 'yes' });
await waitFor(() => viewers.every((v) => v.messages.some((m) => m.type === 'error' && m.command === 'packets')),
              3000, 'an error for a malformed packets message');
check(viewers.every((v) => v.messages.find((m) => m.command === 'packets').code === 'invalid'),
      '"on" must be a boolean (invalid otherwise)');

// --------------------------------------------------------------------- pings and acks
const asked = Date.now();
for (const v of viewers) v.send({ type: 'packets', on: true });
const oks = await Promise.all(viewers.map((v) => v.next((m) => m.type === 'ok' && m.command === 'packets', 3000,
                                                       'the packets ok')));
check(oks.every((o) => o.on === true && o.max_per_s === 200), 'asking is acknowledged with the limit (200 a second)');
const limit = oks[0].max_per_s;
// Each agent's own probing: a ping it sent and an ack it received.
const probed = (v) => entries(v).some((p) => p.kind === 'ping' && p.dir === 'out') &&
                      entries(v).some((p) => p.kind === 'ack' && p.dir === 'in');
await waitFor(() => viewers.every(probed), 3000, 'pings sent and acks received in every log');
console.log(`# pings and acks from all three agents after ${Date.now() - asked} ms`);
check(true, 'every agent logs pings and acks within 3 s of asking');
for (const [i, v] of viewers.entries()) {
  const log = entries(v);
  const others = names.filter((n) => n !== names[i]);
  const pings = log.filter((p) => p.dir === 'out' && p.kind === 'ping');
  check(pings.length > 0 && pings.every((p) => others.includes(p.peer) && p.target === p.peer && p.seq >= 0),
        `${names[i]}: outgoing pings name their peer, target and sequence number`);
  check(log.some((p) => p.dir === 'in' && p.kind === 'ack' && others.includes(p.peer)), `${names[i]}: incoming acks`);
  // The first datagram (a full-state exchange over TCP may come first: a joiner's follow-up).
  const p = log.find((e) => e.via === 'udp');
  check(p && typeof p.t === 'number' && p.size > 0 && p.dropped === false && /:\d+$/.test(p.address) &&
        log.every((e) => e.via === 'udp' || e.via === 'tcp'),
        `${names[i]}: entries carry time, size, via, address and dropped (${JSON.stringify(p)})`);
}

// ------------------------------------------------------------------------- a one-way cut
// agent-0 drops every datagram it sends to agent-1: its pings to agent-1 and its acks to
// agent-1's pings go nowhere, so each of the pair asks agent-2 to probe the other.
const [a0, a1] = names;
// Each agent's clock at the cut, from its latest stats: only entries after it count.
const lastStats = (v) => v.messages.filter((m) => m.type === 'stats').pop();
const cutAt = viewers.map((v) => lastStats(v).self.time_ms);
const blockAt = Date.now();
viewers[0].send({ type: 'block', peer: a1, token: cluster.token });
await viewers[0].next((m) => m.type === 'ok' && m.command === 'block', 3000, 'the block to take effect');
const pingReqForPair = () => viewers.some((v, i) => entries(v).some((p) =>
  p.kind === 'ping-req' && p.t >= cutAt[i] && ((p.target === a1 && (p.peer === a0 || p.dir === 'out')) ||
                                               (p.target === a0 && (p.peer === a1 || p.dir === 'out')))));
await waitFor(pingReqForPair, 3 * period, `ping-req traffic for ${a0}/${a1} within 3 probe periods`);
console.log(`# ping-req for the pair ${Date.now() - blockAt} ms after the cut (probe period ${period} ms)`);
check(true, `ping-req traffic for the cut pair within 3 probe periods (${3 * period} ms)`);
await waitFor(() => entries(viewers[0]).some((p) => p.dir === 'out' && p.peer === a1 && p.dropped), 3 * period,
              'a dropped packet in the log');
check(entries(viewers[0]).filter((p) => p.dir === 'out' && p.peer === a1 && p.dropped).every((p) => p.via === 'udp'),
      `${a0} marks the datagrams to ${a1} it dropped`);
check(entries(viewers[0]).filter((p) => p.dir === 'out' && p.peer === a1 && p.t < cutAt[0]).every((p) => !p.dropped) &&
      entries(viewers[0]).filter((p) => p.dir === 'out' && p.peer !== a1).every((p) => !p.dropped),
      'only datagrams to the cut peer are marked dropped');
// The per-peer counters in the stats each viewer receives.
const counters = (v, peer) => {
  const stats = v.messages.filter((m) => m.type === 'stats');
  return stats.length ? stats[stats.length - 1].members.find((m) => m.name === peer)?.probes : undefined;
};
// Within the same bound agent-0 has probed the uncut agent-2 too: round-robin reaches every
// member within two probe periods of its last, but a quick cut can come before the first.
await waitFor(() => {
  const c = counters(viewers[0], a1);
  const other = counters(viewers[0], names[2]);
  return c && c.direct_failed > 0 && c.indirect_acked > 0 && other && other.total > 0;
}, 6 * period, `${a0}'s counters for ${a1} to show failed direct and successful indirect probes, ` +
               `and some probes of ${names[2]}`);
const c01 = counters(viewers[0], a1), c02 = counters(viewers[0], names[2]);
console.log(`# ${a0} -> ${a1}: ${JSON.stringify(c01)}; ${a0} -> ${names[2]}: ${JSON.stringify(c02)}`);
check(c01.direct_failed > 0 && c01.indirect_acked > 0 && c01.failed === 0,
      `${a0} sees ${a1}: direct probes failed, indirect ones acked, none failed outright`);
check(c02.total > 0 && c02.direct_failed === 0, `${a0}'s probes of the uncut ${names[2]} all acked directly`);
viewers[0].send({ type: 'unblock', peer: a1, token: cluster.token });
await viewers[0].next((m) => m.type === 'ok' && m.command === 'unblock', 3000, 'the unblock');

// Asking off stops the batches.
viewers[1].send({ type: 'packets', on: false });
await viewers[1].next((m) => m.type === 'ok' && m.command === 'packets' && m.on === false, 3000, 'packets off');
const offAt = viewers[1].messages.length;
await waitFor(() => viewers[1].messages.slice(offAt).filter((m) => m.type === 'stats').length >= 3, 5000,
              'three more stats messages');
check(!viewers[1].messages.slice(offAt).some((m) => m.type === 'packets'), 'no batches after turning packets off');

// ------------------------------------------------------------------- the rate limit
// A flood of junk datagrams at agent-2 (3,000 a second for 3 s): each is a packet of kind
// "unknown" in its log, far over the limit.
async function metrics(agent) {
  const text = (await httpGet(agent.httpPort, '/metrics', 5000)).body;
  return Object.fromEntries([...text.matchAll(/^(vigil_packet_log_\w+) (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
}
const target = cluster.agents[2];
const flood = async (seconds, perSecond) => {
  const socket = dgram.createSocket('udp4');
  const junk = crypto.randomBytes(64);
  junk[0] = 0xee;  // no message type
  const end = Date.now() + seconds * 1000;
  let sent = 0;
  while (Date.now() < end) {
    const tickEnd = Date.now() + 10;
    for (let i = 0; i < perSecond / 100; ++i) socket.send(junk, target.port, '127.0.0.1');
    sent += perSecond / 100;
    await new Promise((r) => setTimeout(r, Math.max(0, tickEnd - Date.now())));
  }
  socket.close();
  return sent;
};
const floodFrom = viewers[2].messages.length;
const sent = await flood(3, 3000);
await waitFor(() => viewers[2].messages.slice(floodFrom).filter((m) => m.type === 'stats').length >= 30, 10000,
              'three seconds of stats');
const batches = viewers[2].messages.slice(floodFrom).filter((m) => m.type === 'packets');
const logged = batches.flatMap((b) => b.packets);
const skipped = batches.reduce((n, b) => n + b.skipped, 0);
console.log(`# flood: ${sent} datagrams sent; ${logged.length} logged, ${skipped} skipped in ${batches.length} batches`);
check(logged.filter((p) => p.kind === 'unknown').length > 0, 'junk datagrams are logged as kind "unknown"');
check(skipped > 0 && batches[batches.length - 1].skipped_total >= skipped, 'packets over the limit are counted as skipped');
// No window of one second of the agent's clock holds more than the limit plus one batch period's burst.
const times = logged.map((p) => p.t).sort((x, y) => x - y);
let worst = 0;
for (let i = 0, j = 0; i < times.length; ++i) {
  while (times[i] - times[j] >= 1000) ++j;
  worst = Math.max(worst, i - j + 1);
}
console.log(`# busiest second of the log: ${worst} packets (limit ${limit} a second, burst 20)`);
check(worst <= limit + 20 && worst >= limit / 2, `the rate limit holds: at most ${worst} packets in any second`);

// ---------------------------------------------------------------- a viewer that never reads
const rssKb = () => Number(readFileSync(`/proc/${target.child.pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m)[1]);
viewers[2].send({ type: 'packets', on: false });
await viewers[2].next((m) => m.type === 'ok' && m.command === 'packets' && m.on === false, 3000, 'packets off');
const stuck = await stuckViewer(target.httpPort);
stuck.write(wsFrame(JSON.stringify({ type: 'packets', on: true })));
await waitFor(async () => (await metrics(target)).vigil_packet_log_viewers === 1, 3000, 'the stuck viewer to subscribe');
const m0 = await metrics(target);
const rss0 = rssKb();
const t0 = Date.now();
await flood(3, 3000);
const m1 = await metrics(target);
const seconds = (Date.now() - t0) / 1000;
const rss1 = rssKb();
const sentToStuck = m1.vigil_packet_log_sent_total - m0.vigil_packet_log_sent_total;
const skippedStuck = m1.vigil_packet_log_skipped_total - m0.vigil_packet_log_skipped_total;
console.log(`# stuck viewer: ${sentToStuck} entries sent, ${skippedStuck} skipped in ${seconds.toFixed(1)} s; ` +
            `RSS ${(rss0 / 1024).toFixed(1)} -> ${(rss1 / 1024).toFixed(1)} MB`);
check(sentToStuck <= limit * (seconds + 0.2) + 20, `a viewer that never reads is sent at most the limit (${sentToStuck})`);
check(skippedStuck > 0, 'what it is not sent is counted in vigil_packet_log_skipped_total');
// Under the sanitizers (--sanitized 1) RSS measures ASan's quarantine: reported, not bounded.
if (args.sanitized !== '1')
  check(rss1 - rss0 < 8 * 1024, `the agent's RSS stays bounded (+${((rss1 - rss0) / 1024).toFixed(1)} MB)`);
stuck.destroy();
await waitFor(async () => (await metrics(target)).vigil_packet_log_viewers === 0, 3000, 'the stuck viewer to be forgotten');
check(true, 'a viewer that leaves is forgotten by the packet log');

for (const v of viewers) v.close();
cluster.stop();
