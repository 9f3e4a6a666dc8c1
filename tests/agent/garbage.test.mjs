// 10,000 garbage and truncated datagrams at an agent: it keeps serving, the membership stays
// intact, and it counts exactly what it rejected.
import dgram from 'node:dgram';
import { Cluster, check, httpGet, installCleanup, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);
await cluster.start(3);
await waitFor(() => cluster.allSee('alive'), 35000, 'convergence (bounded by push-pull anti-entropy)');
const target = cluster.byName('agent-1');

async function rejected() {
  const m = (await httpGet(target.httpPort, '/metrics')).body.match(/vigil_datagrams_rejected_total (\d+)/);
  return Number(m[1]);
}

// Valid encodings to truncate: a ping {SeqNo: 1, Node: "x"} and an ack {SeqNo: 7, Payload: nil}.
const ping = Buffer.from([0x00, 0x82, 0xa5, ...Buffer.from('SeqNo'), 0x01, 0xa4, ...Buffer.from('Node'), 0xa1, 0x78]);
const ack = Buffer.from([0x02, 0x82, 0xa5, ...Buffer.from('SeqNo'), 0x07, 0xa7, ...Buffer.from('Payload'), 0xc0]);
let seed = 12345;
const rand = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed; };
function garbage(i) {
  if (i % 3 === 0) return ping.subarray(0, 1 + (i % (ping.length - 1)));       // truncated ping
  if (i % 3 === 1) return ack.subarray(0, 1 + (i % (ack.length - 1)));         // truncated ack
  const bytes = Buffer.alloc(1 + (rand() % 200));
  for (let j = 0; j < bytes.length; ++j) bytes[j] = rand() & 0xff;
  bytes[0] = 14 + (rand() % 230);  // no memberlist message type, no label header
  return bytes;
}

const base = await rejected();
const socket = dgram.createSocket('udp4');
const total = 10000;
const batch = 500;
for (let sent = 0; sent < total; sent += batch) {
  for (let i = sent; i < sent + batch; ++i)
    await new Promise((r) => socket.send(garbage(i), target.port, '127.0.0.1', r));
  // Paced by what the agent has counted, so the kernel's buffer never overflows.
  await waitFor(async () => (await rejected()) - base === sent + batch, 10000, `batch up to ${sent + batch}`, 20);
}
socket.close();
check((await rejected()) - base === total, `the rejected-datagram counter rose by exactly ${total}`);
check((await httpGet(target.httpPort, '/v1/self')).status === 200, 'the agent keeps serving');
await waitFor(() => cluster.allSee('alive'), 5000, 'membership intact');
check(true, 'every member is still alive in every view');
cluster.stop();
