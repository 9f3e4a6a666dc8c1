// A prober the scheduler keeps waiting. An agent sends a ping and is stopped (SIGSTOP) before it
// can read the ack, which arrives in its socket at once; it resumes after its probe deadline has
// passed. The ack was there in time, so the probe must count as answered: a process that wakes
// late reads its socket before it judges its timers, or on a loaded machine every agent that
// waits for the CPU blames the members whose acks are sitting in its queue.
//
// The other member is this test, speaking memberlist's messages over UDP, so that it can stop
// the agent at the one moment that matters: right after a ping, before the ack.
import dgram from 'node:dgram';
import { Cluster, check, installCleanup, metric, parseArgs, waitFor } from './harness.mjs';
import { ack, alive, kPing, messages, seqNo } from './memberlist_messages.mjs';

const args = parseArgs(process.argv.slice(2));
// A probe timeout of 800 ms: this test answers every other ping itself, in time even when the
// machine is busy with other tests.
const cluster = new Cluster(args.vigil, 'local', ['--probe-timeout', '800ms']);
installCleanup(cluster);
await cluster.start(1);
const [a] = cluster.agents;
const ghost = 'stopped-prober-peer';

const socket = dgram.createSocket('udp4');
await new Promise((r) => socket.bind(0, '127.0.0.1', r));
const send = (buf) => new Promise((r, j) => socket.send(buf, a.port, '127.0.0.1', (e) => (e ? j(e) : r())));
let stopNext = 0;      // pings still to answer with the agent stopped
const stopped = [];    // per such ping: its SeqNo
let pings = 0;
socket.on('message', async (datagram, from) => {
  if (from.port !== a.port) return;
  for (const m of messages(datagram)) {
    if (m[0] !== kPing) continue;
    ++pings;
    const seq = seqNo(m);
    if (stopNext === 0) { await send(ack(seq)); continue; }
    --stopNext;
    // Stopped before it can read the ack, which then waits in its socket well past the 800 ms
    // probe deadline (the local-health multiplier stays at zero while no probe fails).
    a.child.kill('SIGSTOP');
    await send(ack(seq));
    stopped.push(seq);
    setTimeout(() => a.child.kill('SIGCONT'), 2000);
  }
});

await send(alive(ghost, socket.address().port));
await waitFor(async () => (await metric(a, 'vigil_probes_total')) >= 2, 10000, 'the agent to probe its peer twice');
const failedBefore = await metric(a, 'vigil_probes_failed_total');
check(failedBefore === 0, `answered at once, no probe failed (${failedBefore})`);

const kTrials = 4;
for (let trial = 1; trial <= kTrials; ++trial) {
  stopNext = 1;
  await waitFor(() => stopped.length === trial, 10000, `trial ${trial}: a ping to answer while the agent is stopped`);
  // Resumed once it serves HTTP again; then one more probe shows it has moved past the deadline.
  const probes = await waitFor(async () => { try { return await metric(a, 'vigil_probes_total'); } catch { return 0; } },
                               10000, 'the agent to serve again');
  await waitFor(async () => (await metric(a, 'vigil_probes_total')) > probes, 10000, 'the next probe');
}
const failed = await metric(a, 'vigil_probes_failed_total');
check(failed === 0, `${kTrials} pings whose acks waited out the deadline in a stopped agent's socket ` +
                    `(SeqNo ${stopped.join(', ')}): ${failed} probes counted as failed`);
check(!/suspect stopped-prober-peer/.test(a.log), 'the agent never suspected its peer');
check(pings >= 2 + kTrials, `the agent went on probing (${pings} pings)`);
socket.close();
cluster.stop();
