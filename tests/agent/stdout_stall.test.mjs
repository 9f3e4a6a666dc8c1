// The reader of an agent's standard output stops reading (a full pipe: a stalled log collector,
// a terminal on hold). The agent must go on serving, acking pings and answering HTTP, while its
// event lines wait; once the reader is back every line arrives, none lost.
//
// 3,000 members announced by a stranger give some 120 KB of "join" lines, about twice what a
// pipe holds.
import dgram from 'node:dgram';
import { Cluster, check, httpGet, installCleanup, metric, parseArgs, waitFor } from './harness.mjs';
import { alive, compound, ping } from './memberlist_messages.mjs';

const args = parseArgs(process.argv.slice(2));
const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);
await cluster.start(2);
await waitFor(() => cluster.allSee('alive'), 35000, 'the two agents to see each other alive');
const [a] = cluster.agents;

const socket = dgram.createSocket('udp4');
await new Promise((r) => socket.bind(0, '127.0.0.1', r));
const replies = [];
socket.on('message', (msg, from) => { if (from.port === a.port) replies.push(msg); });
const send = (buf) => new Promise((r, j) => socket.send(buf, a.port, '127.0.0.1', (e) => (e ? j(e) : r())));

// From here on nothing reads agent-0's standard output.
a.child.stdout.pause();
// Ten datagrams at a time, each batch once the agent has read the last: a burst of all 150 would
// overflow its socket's receive buffer, and the kernel would drop some.
const kGhosts = 3000, kPerDatagram = 20, kBatch = 10;
for (let i = 0; i < kGhosts; i += kPerDatagram * kBatch) {
  const received = await metric(a, 'vigil_datagrams_received_total');
  let sent = 0;
  for (let k = i; k < Math.min(kGhosts, i + kPerDatagram * kBatch); k += kPerDatagram) {
    const parts = [];
    for (let j = k; j < Math.min(kGhosts, k + kPerDatagram); ++j) parts.push(alive(`ghost-${j}`, 9));
    await send(compound(parts));
    ++sent;
  }
  await waitFor(async () => (await metric(a, 'vigil_datagrams_received_total')) >= received + sent, 10000,
                `agent-0 to read announcements ${i} to ${i + kPerDatagram * sent - 1}`, 20);
}
const pending = await waitFor(async () => {
  const p = await metric(a, 'vigil_output_pending_bytes');
  return p > 0 ? p : 0;
}, 20000, 'agent-0 to hold lines its reader has not taken', 200);
check(pending > 0, `agent-0's standard output is full: ${pending} bytes of lines wait for the reader`);

// Still serving: it answers HTTP (above, and now), and acks a ping on its protocol port, time
// after time, for longer than a peer would wait before suspecting it (the local profile's 200 ms
// probe timeout, 1 s probes).
for (let seq = 1; seq <= 5; ++seq) {
  const before = replies.length;
  await send(ping(seq, a.name));
  await waitFor(() => replies.length > before, 2000, `agent-0 to answer ping ${seq} while its output is stalled`, 20);
  await new Promise((r) => setTimeout(r, 500));  // pacing the pings, not waiting for a result
}
check(true, 'agent-0 acks 5 pings over 2.5 s with its standard output stalled');
const self = JSON.parse((await httpGet(a.httpPort, '/v1/self', 2000)).body);
check(self.name === a.name, 'agent-0 answers /v1/self with its standard output stalled');
const bView = await cluster.members(cluster.agents[1]);
check(bView[a.name].state === 'alive', `agent-1 still holds agent-0 alive (${bView[a.name].state})`);

// The reader is back: every line arrives, none dropped.
a.child.stdout.resume();
const count = () => (a.log.match(/ join ghost-\d+ #1/g) || []).length;
await waitFor(() => count() >= kGhosts, 20000, 'every ghost line on agent-0\'s output');
check(count() === kGhosts, `all ${kGhosts} announcements reached the reader once it read again`);
await waitFor(async () => (await metric(a, 'vigil_output_pending_bytes')) === 0, 10000, 'the output to drain');
check(await metric(a, 'vigil_output_lines_dropped_total') === 0, 'no line dropped (they fit under the 4 MiB limit)');
socket.close();
cluster.stop();
