// Names are a stranger's bytes: one plaintext alive message can name a member anything. A name
// holding a newline, a fake event line and an ANSI escape must reach the agents' output and
// `vigil members` escaped (no raw control byte, no forged line); a name that is not UTF-8 must
// neither crash the agent (its JSON answers would throw) nor reach the terminal raw; and a
// conflict over such a name is logged escaped on standard error.
import dgram from 'node:dgram';
import { spawnSync } from 'node:child_process';
import { Cluster, check, getJson, installCleanup, parseArgs, waitFor } from './harness.mjs';
import { kAlive, raw, str, uint } from './memberlist_messages.mjs';

const args = parseArgs(process.argv.slice(2));
const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);
const la = await cluster.add('la');
const lb = await cluster.add('lb');
await waitFor(() => cluster.allSee('alive'), 30000, 'la and lb to see each other alive');

// Everything either agent writes from here on, as bytes.
const out = new Map();
for (const a of [la, lb]) {
  out.set(a, { stdout: [], stderr: [] });
  a.child.stdout.on('data', (c) => out.get(a).stdout.push(c));
  a.child.stderr.on('data', (c) => out.get(a).stderr.push(c));
}
const bytes = (a, which) => Buffer.concat(out.get(a)[which]);

// {Incarnation, Node, Addr, Port, Meta, Vsn} with the name as raw bytes.
const alive = (name, port, incarnation) => Buffer.concat([Buffer.from([kAlive, 0x86]),
  str('Incarnation'), uint(incarnation), str('Node'), str(name), str('Addr'), raw([127, 0, 0, 1]),
  str('Port'), uint(port), str('Meta'), raw([]), str('Vsn'), raw([1, 5, 2, 0, 0, 0])]);
const socket = dgram.createSocket('udp4');
await new Promise((r) => socket.bind(0, '127.0.0.1', r));
const send = (buf) => new Promise((r, j) => socket.send(buf, la.port, '127.0.0.1', (e) => (e ? j(e) : r())));

const forged = 'x\n[la] 9.999s dead lb #1 (by la)\x1b[31m';
const forgedShown = 'x\\n[la] 9.999s dead lb #1 (by la)\\x1b[31m';
// Not UTF-8 (0xFF), then a C1 CSI (U+009B, well-formed UTF-8) and a BEL.
const broken = Buffer.from([0x79, 0xff, 0xc2, 0x9b, 0x33, 0x31, 0x6d, 0x07]);
const brokenShown = 'y\\xff\\u009b31m\\x07';

await send(alive(Buffer.from(forged), 9, 1));
await send(alive(broken, 9, 1));
const known = async (agent) => {
  const names = (await getJson(agent.httpPort, '/v1/members')).map((m) => m.name);
  return names.includes(forged) && names.includes('y\ufffd\u009b31m\u0007');
};
await waitFor(() => known(la), 5000, 'la to take in both forged members');
check(true, 'la lists both forged members in /v1/members (JSON escapes them; the byte that is not UTF-8 is U+FFFD)');
await waitFor(() => known(lb), 10000, 'lb to hear of them by gossip');
check(true, 'lb heard of both by gossip');
check(la.alive && lb.alive, 'neither agent crashed on a name that is not UTF-8');

// The same forged name claimed from another address: a conflict, logged on standard error.
await send(alive(Buffer.from(forged), 10, 2));
await waitFor(() => bytes(la, 'stderr').includes('conflicting address for '), 5000, 'la to log the conflict');

// Both agents' event lines carry the names escaped, for as long as they took to write them.
for (const a of [la, lb]) {
  await waitFor(() => bytes(a, 'stdout').includes(`join ${forgedShown} #1`) &&
                      bytes(a, 'stdout').includes(`join ${brokenShown} #1`), 5000, `${a.name}'s join lines`);
  for (const which of ['stdout', 'stderr']) {
    const b = bytes(a, which);
    const control = [...b].findIndex((c) => (c < 0x20 && c !== 0x0a) || c === 0x7f);
    check(control < 0, `${a.name}'s ${which} (${b.length} bytes) holds no control byte but line ends` +
                       (control >= 0 ? `: 0x${b[control].toString(16)} at ${control}` : ''));
    const text = b.toString('utf8');
    check(!text.includes('\ufffd') && !/[\u0080-\u009f]/.test(text),
          `${a.name}'s ${which} is UTF-8 without C1 controls`);
    check(!text.split('\n').some((l) => /^\[la\]\s+9\.999s/.test(l)), `no forged line in ${a.name}'s ${which}`);
  }
}
check(bytes(la, 'stderr').includes(`conflicting address for ${forgedShown}: held at 127.0.0.1:9`),
      'the conflict line names the member escaped');

// vigil members: the table escapes the names; JSON stays JSON.
const members = (...extra) => spawnSync(args.vigil, ['members', '--http', `127.0.0.1:${la.httpPort}`, ...extra]);
const table = members();
check(table.status === 0, 'vigil members answers');
const control = [...table.stdout].findIndex((c) => (c < 0x20 && c !== 0x0a) || c === 0x7f);
check(control < 0, 'its table holds no control byte but line ends');
const tableText = table.stdout.toString('utf8');
check(tableText.includes(forgedShown) && tableText.includes('y\ufffd\\u009b31m\\x07'),
      'it prints both names escaped (the agent had already made the byte that is not UTF-8 U+FFFD)');
check(!tableText.split('\n').some((l) => l.startsWith('[la]')), 'no forged line in its table');
const json = JSON.parse(members('--format', 'json').stdout.toString('utf8'));
check(json.some((m) => m.name === forged), '--format json keeps the name exact, as JSON escapes');

socket.close();
cluster.stop();
process.exit(0);
