// Flood: five agents (local profile) on loopback; one of them receives 100,000 garbage datagrams
// a second for 10 s from a C++ blaster (tests/agent/udp_flood.cpp). The flooded agent must reject
// them all, keep probing on time, stay within a memory bound, and nobody may suspect anybody.
//
//   node tests/agent/flood.test.mjs --vigil build/bin/vigil --flood build/bin/vigil_udp_flood
//        [--rate 100000] [--seconds 10]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Cluster, Viewer, check, httpGet, installCleanup, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
if (!args.flood) throw new Error('missing --flood (the vigil_udp_flood helper)');
const rate = Number(args.rate ?? 100000);
const seconds = Number(args.seconds ?? 10);
const rssBoundMB = 20;

const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);
await cluster.start(5);
await waitFor(() => cluster.allSee('alive'), 35000, 'convergence (bounded by push-pull anti-entropy)');
check(true, 'five agents converged');

async function metrics(agent) {
  const text = (await httpGet(agent.httpPort, '/metrics', 5000)).body;
  const get = (name) => Number((text.match(new RegExp(`^${name} (\\d+)`, 'm')) || [])[1]);
  return {
    probes: get('vigil_probes_total'), failed: get('vigil_probes_failed_total'),
    suspicions: get('vigil_suspicions_total'), received: get('vigil_datagrams_received_total'),
    rejected: get('vigil_datagrams_rejected_total'), refutations: get('vigil_refutations_total'),
  };
}
// Datagrams the kernel dropped because the socket bound to 127.0.0.1:port had a full receive
// buffer (the last column of /proc/net/udp): what the agent never saw, so never counted.
function kernelDrops(port) {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const line = readFileSync('/proc/net/udp', 'utf8').split('\n').find((l) => l.trim().split(/\s+/)[1] === local);
  if (!line) throw new Error(`no UDP socket on 127.0.0.1:${port} in /proc/net/udp`);
  return Number(line.trim().split(/\s+/).pop());
}
function memoryKB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (k) => Number(status.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm'))[1]);
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

const target = cluster.byName('agent-2');
// One viewer per agent: every suspect or dead event anywhere is a false suspicion here.
const viewers = cluster.agents.map((a) => new Viewer(a));
await Promise.all(viewers.map((v) => v.open));
// Stamp each message with our arrival time (the harness's listener has stored it already).
for (const v of viewers) v.ws.on('message', () => { v.messages[v.messages.length - 1].received_at = Date.now(); });
const snapshot = await viewers[2].next((m) => m.type === 'snapshot', 3000, 'a snapshot of the target');
const interval = snapshot.config.probe_interval_ms;

const before = Object.fromEntries(await Promise.all(cluster.agents.map(async (a) => [a.name, await metrics(a)])));
const memBefore = memoryKB(target.child.pid);
const dropsBefore = kernelDrops(target.port);
const statsOf = (v) => v.messages.filter((m) => m.type === 'stats');

// --------------------------------------------------------------------------------- the flood
const floodStart = Date.now();
const blaster = spawn(args.flood, ['--target', `127.0.0.1:${target.port}`, '--rate', String(rate),
                                   '--seconds', String(seconds), '--seed', '7'],
                      { stdio: ['ignore', 'pipe', 'pipe'] });
let blasterOut = '';
blaster.stdout.on('data', (c) => { blasterOut += c; });
blaster.stderr.on('data', (c) => { blasterOut += c; });
let memPeakKB = memBefore.rss;
const memTimer = setInterval(() => { memPeakKB = Math.max(memPeakKB, memoryKB(target.child.pid).rss); }, 250);
const code = await new Promise((resolve) => blaster.on('exit', resolve));
const floodEnd = Date.now();
const report = JSON.parse(blasterOut.trim().split('\n').pop());
console.log(`# blaster: ${JSON.stringify(report)}`);
check(code === 0 && report.sent >= 0.9 * rate * seconds,
      `the blaster sent ${report.sent} datagrams in ${report.seconds} s: ${Math.round(report.rate)}/s ` +
      `(>= ${0.9 * rate * seconds} required)`);

// What the target's own stats stream says about the flood window (its clock, not ours).
const during = statsOf(viewers[2]).filter((m) => m.received_at >= floodStart && m.received_at <= floodEnd);
// Settle: the kernel's buffer empties in milliseconds; wait until the counter stops moving.
let last = -1;
const after = await waitFor(async () => {
  const m = await metrics(target);
  const settled = m.rejected === last;
  last = m.rejected;
  return settled && m;
}, 20000, 'the rejected counter to settle', 500);
clearInterval(memTimer);
const memAfter = memoryKB(target.child.pid);

const rejected = after.rejected - before[target.name].rejected;
const received = after.received - before[target.name].received;
const drops = kernelDrops(target.port) - dropsBefore;
console.log(`# target: received ${received}, rejected ${rejected} (${(100 * rejected / report.sent).toFixed(1)} % ` +
            `of what was sent), kernel dropped ${drops} from a full socket buffer`);
check(rejected <= report.sent && received - rejected < 5000,
      `no garbage was accepted: ${received - rejected} datagrams decoded during the flood, ordinary protocol traffic`);
// Every datagram is accounted for: rejected by the agent or dropped by the kernel before it
// (the few the kernel dropped from the members' own traffic make the sum slightly larger).
check(rejected + drops >= report.sent && rejected + drops <= report.sent + 1000,
      `every garbage datagram is accounted for: ${rejected} rejected + ${drops} dropped by the kernel = ` +
      `${rejected + drops} of ${report.sent} sent`);
// The agent reads far faster than the flood needs, so the kernel drops only what arrives while a
// busy 2-core machine has it descheduled; half is a floor that any sane scheduler clears.
check(rejected >= 0.5 * report.sent, `the agent itself read and rejected ${rejected} (>= 50 % of ${report.sent})`);

// Probing on time: the target's probe counter during the flood, against its nominal rate.
check(during.length >= 2, `the target kept streaming stats during the flood (${during.length} messages ` +
                          `in ${((floodEnd - floodStart) / 1000).toFixed(1)} s, nominally ${(floodEnd - floodStart) / 100})`);
const first = during[0], lastStats = during[during.length - 1];
const probeSpanMs = lastStats.self.time_ms - first.self.time_ms;
const probes = lastStats.counters.probes - first.counters.probes;
const probeRate = probes / (probeSpanMs / interval);
console.log(`# probes during the flood: ${probes} in ${(probeSpanMs / 1000).toFixed(1)} s ` +
            `(${(100 * probeRate).toFixed(0)} % of one per ${interval} ms), ` +
            `${lastStats.counters.probes_failed - first.counters.probes_failed} failed`);
// Round-robin probing starts one probe per interval: over a span of S ms there are S/interval
// of them, give or take one at each end. Lifeguard's local health can only stretch the interval,
// so losing more than one more would mean the flood delayed probing.
const nominal = probeSpanMs / interval;
check(probes >= Math.floor(nominal) - 2 && probes <= Math.ceil(nominal) + 1,
      `the flooded agent kept probing on time: ${probes} probes in ${(probeSpanMs / 1000).toFixed(1)} s ` +
      `(${(100 * probeRate).toFixed(0)} % of nominal; ${Math.floor(nominal) - 2}..${Math.ceil(nominal) + 1} allowed)`);

// Nobody suspected anybody, during or for a few probe periods after.
await new Promise((r) => setTimeout(r, 3 * interval));
const events = viewers.flatMap((v, i) => v.messages.filter((m) => m.type === 'event' &&
                                                         (m.kind === 'suspect' || m.kind === 'dead'))
                                             .map((m) => `${cluster.agents[i].name}: ${m.kind} ${m.member}`));
check(events.length === 0, `no suspect or dead events in any view (${events.join(', ') || 'none'})`);
for (const a of cluster.agents) {
  const m = await metrics(a);
  check(m.suspicions === before[a.name].suspicions && m.refutations === before[a.name].refutations,
        `${a.name} started no suspicion and refuted nothing (suspicions ${m.suspicions}, ` +
        `probes failed +${m.failed - before[a.name].failed})`);
}
check(await cluster.allSee('alive'), 'every member is alive in every view after the flood');

const growthMB = (memAfter.hwm - memBefore.rss) / 1024;
console.log(`# target RSS: ${(memBefore.rss / 1024).toFixed(1)} MB before, peak sampled ` +
            `${(memPeakKB / 1024).toFixed(1)} MB, ${(memAfter.rss / 1024).toFixed(1)} MB after, ` +
            `high-water mark ${(memAfter.hwm / 1024).toFixed(1)} MB`);
check(growthMB <= rssBoundMB, `memory stayed bounded: high-water mark ${growthMB.toFixed(1)} MB over the ` +
                              `pre-flood RSS (<= ${rssBoundMB} MB)`);

viewers.forEach((v) => v.close());
cluster.stop();
