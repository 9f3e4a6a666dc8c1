// A prober the scheduler keeps waiting. An agent sends a ping and is stopped (SIGSTOP) before it
// can read the ack, which arrives in its socket at once; it resumes after its probe deadline has
// passed. The ack was there in time, so the probe must count as answered: a process that wakes
// late reads its socket before it judges its timers, or on a loaded machine every agent that
// waits for the CPU blames the members whose acks are sitting in its queue.
//
// The other member is this test, speaking memberlist's messages over UDP, so that it can stop
// the agent at the one moment that matters: right after a ping, before the ack.
import dgram from 'node:dgram';
import { expandCompressed } from './compressed.mjs';
import { Cluster, check, httpGet, installCleanup, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
// A probe timeout of 800 ms: this test answers every other ping itself, in time even when the
// machine is busy with other tests.
const cluster = new Cluster(args.vigil, 'local', ['--probe-timeout', '800ms']);
installCleanup(cluster);
await cluster.start(1);
const [a] = cluster.agents;
const ghost = 'stopped-prober-peer';

// msgpack as memberlist's Go codec writes it (raw strings for []byte), just what this needs.
const str = (s) => Buffer.concat([Buffer.from([0xa0 | Buffer.byteLength(s)]), Buffer.from(s)]);
const raw = (bytes) => Buffer.concat([Buffer.from([0xa0 | bytes.length]), Buffer.from(bytes)]);
const uint = (n) => (n < 128 ? Buffer.from([n]) : n < 65536 ? Buffer.from([0xcd, n >> 8, n & 0xff])
                                                            : Buffer.from([0xce, ...[24, 16, 8, 0].map((s) => (n >>> s) & 0xff)]));
const kPing = 0, kAck = 2, kAlive = 4, kCompound = 7;
const alive = (port) => Buffer.concat([Buffer.from([kAlive, 0x86]),
  str('Incarnation'), uint(1), str('Node'), str(ghost), str('Addr'), raw([127, 0, 0, 1]),
  str('Port'), uint(port), str('Meta'), raw([]), str('Vsn'), raw([1, 5, 2, 0, 0, 0])]);
const ack = (seq) => Buffer.concat([Buffer.from([kAck, 0x82]), str('SeqNo'), uint(seq), str('Payload'), raw([])]);

// The messages of a datagram: a compound's parts, or the one message.
function messages(datagram) {
  const m = expandCompressed(datagram);
  if (m[0] !== kCompound) return [m];
  const out = [];
  let at = 2 + 2 * m[1];
  for (let i = 0; i < m[1]; ++i) {
    const length = m.readUInt16BE(2 + 2 * i);
    out.push(...messages(m.subarray(at, at + length)));
    at += length;
  }
  return out;
}
// The SeqNo of a ping (a msgpack unsigned integer after the key).
function pingSeq(message) {
  const key = str('SeqNo');
  const at = message.indexOf(key) + key.length;
  const b = message[at];
  if (b < 0x80) return b;
  if (b === 0xcc) return message[at + 1];
  if (b === 0xcd) return message.readUInt16BE(at + 1);
  if (b === 0xce) return message.readUInt32BE(at + 1);
  throw new Error(`unexpected SeqNo encoding 0x${b.toString(16)}`);
}

const metric = async (name) => {
  const line = (await httpGet(a.httpPort, '/metrics', 5000)).body.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? NaN : Number(line.split(' ')[1]);
};

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
    const seq = pingSeq(m);
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

await send(alive(socket.address().port));
await waitFor(async () => (await metric('vigil_probes_total')) >= 2, 10000, 'the agent to probe its peer twice');
const failedBefore = await metric('vigil_probes_failed_total');
check(failedBefore === 0, `answered at once, no probe failed (${failedBefore})`);

const kTrials = 4;
for (let trial = 1; trial <= kTrials; ++trial) {
  stopNext = 1;
  await waitFor(() => stopped.length === trial, 10000, `trial ${trial}: a ping to answer while the agent is stopped`);
  // Resumed once it serves HTTP again; then one more probe shows it has moved past the deadline.
  const probes = await waitFor(async () => { try { return await metric('vigil_probes_total'); } catch { return 0; } },
                               10000, 'the agent to serve again');
  await waitFor(async () => (await metric('vigil_probes_total')) > probes, 10000, 'the next probe');
}
const failed = await metric('vigil_probes_failed_total');
check(failed === 0, `${kTrials} pings whose acks waited out the deadline in a stopped agent's socket ` +
                    `(SeqNo ${stopped.join(', ')}): ${failed} probes counted as failed`);
check(!/suspect stopped-prober-peer/.test(a.log), 'the agent never suspected its peer');
check(pings >= 2 + kTrials, `the agent went on probing (${pings} pings)`);
socket.close();
cluster.stop();
