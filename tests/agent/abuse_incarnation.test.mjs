// Forgeries at the top incarnation (2^32 - 1), without gossip encryption (memberlist's default),
// where a member cannot outbid them by raising its incarnation:
//  1. a dead for agent-1 at 2^32 - 1, sent to every agent every 5 s: agent-1 answers each with its
//     own alive at the top, straight to every member, and the others take it because it comes from
//     agent-1 itself (ties at the top go to the member); agent-1 is back alive everywhere within a
//     probe interval of each forgery and ends alive;
//  2. an alive for agent-2 at 2^32 - 1 with other metadata (its own address in it), sent to the
//     other two: agent-2 hears of it, answers the same way, and its own tags win back everywhere;
//     a second copy of the forgery is then ignored (a tie not from the member).
// No probe fails, no agent suspects another, and the agent under attack stays small and cheap.
import dgram from 'node:dgram';
import { Cluster, check, installCleanup, parseArgs, waitFor } from './harness.mjs';
import { aliveWithMeta, dead, kTopIncarnation, serfTags } from './forgeries.mjs';
import { cpuSeconds, metrics, rssSampler } from './process_stats.mjs';

const args = parseArgs(process.argv.slice(2));
// Checks are collected and made at the end, so that a run against an agent without the rule still
// measures and reports every figure before failing.
const expectations = [];
const expect = (condition, message) => expectations.push([condition, message]);

const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);
await cluster.start(3);
const [a0, a1, a2] = cluster.agents;
await waitFor(() => cluster.allSee('alive'), 30000, 'the three agents to see each other alive');

const kProbeIntervalMs = 1000;  // the local profile's
const kSampleMs = 250;
const kRssLimitKB = 64 * 1024;
const kForgeries = 4, kForgeryPeriodMs = 5000;

const before = await Promise.all(cluster.agents.map((x) => metrics(x)));
const cpuBefore = cpuSeconds(a1.child.pid);
const rss = rssSampler(a1.child.pid);
const t0 = Date.now();

const udp = dgram.createSocket('udp4');
await new Promise((resolve) => udp.bind(0, '127.0.0.1', resolve));
const sendTo = (agent, datagram) => new Promise((resolve, reject) =>
  udp.send(datagram, agent.port, '127.0.0.1', (err) => (err ? reject(err) : resolve())));

// How `observer` sees `observed` now.
async function seen(observer, observed) {
  return (await cluster.members(observer))[observed.name];
}

// 1. Forged deaths at the top, every 5 s, to every agent; views of agent-1 sampled meanwhile.
const samples = [];  // one per observer and sample time: [ms since the last forgery, state]
let lastForgery = 0;
const sampler = (async () => {
  const end = t0 + kForgeries * kForgeryPeriodMs;
  while (Date.now() < end) {
    for (const observer of [a0, a2]) {
      const m = await seen(observer, a1);
      samples.push([Date.now() - lastForgery, m ? m.state : 'unknown']);
    }
    await new Promise((r) => setTimeout(r, kSampleMs));  // the sampling period, not a wait for an outcome
  }
})();
for (let i = 0; i < kForgeries; ++i) {
  lastForgery = Date.now();
  for (const agent of cluster.agents) await sendTo(agent, dead(a1.name, kTopIncarnation, a0.name));
  if (i + 1 < kForgeries) await new Promise((r) => setTimeout(r, kForgeryPeriodMs));  // the attack's period
}
await sampler;
const notAlive = samples.filter(([, state]) => state !== 'alive');
const late = notAlive.filter(([since]) => since > kProbeIntervalMs);
console.log(`# forged deaths: ${notAlive.length} of ${samples.length} samples saw ${a1.name} not alive, ` +
            `${late.length} of them more than a probe interval after a forgery`);
let ended = null;
try {
  ended = await waitFor(async () => {
    for (const observer of [a0, a2]) {
      const m = await seen(observer, a1);
      if (!m || m.state !== 'alive' || m.incarnation !== kTopIncarnation) return false;
    }
    return true;
  }, 2 * kProbeIntervalMs, `${a1.name} alive at the top incarnation in every view`);
} catch (e) {
  console.log(`# ${e.message}: ${JSON.stringify([await seen(a0, a1), await seen(a2, a1)].map((m) => m && [m.state, m.incarnation]))}`);
}
const m1 = await metrics(a1);
console.log(`# ${a1.name}: incarnation ${m1.vigil_incarnation}, refutations ${m1.vigil_refutations_total - before[1].vigil_refutations_total}, ` +
            `at the top ${m1.vigil_incarnation_top_refutations_total - before[1].vigil_incarnation_top_refutations_total}`);
expect(late.length === 0, `${a1.name} was back alive in every view within a probe interval of each forged death ` +
       `(${notAlive.length} of ${samples.length} samples not alive, all within ${kProbeIntervalMs} ms of a forgery)`);
expect(ended, `${a1.name} ends alive at incarnation 2^32 - 1 in every view`);
expect(m1.vigil_incarnation_top_refutations_total - before[1].vigil_incarnation_top_refutations_total >= kForgeries,
       `${a1.name} answered each forged death at the top (counted)`);

// 2. A forged alive for agent-2 at the top with other tags, to the other two.
const ownTags = (await seen(a0, a2)).tags;
const forged = aliveWithMeta(a2.name, a2.port, kTopIncarnation, serfTags({ forged: 'yes' }));
for (const agent of [a0, a1]) await sendTo(agent, forged);
const forgedAt = Date.now();
const ownTagsEverywhere = async () => {
  for (const observer of [a0, a1]) {
    const m = await seen(observer, a2);
    if (!m || m.tags.forged || JSON.stringify(m.tags) !== JSON.stringify(ownTags) || m.incarnation !== kTopIncarnation) return false;
  }
  return true;
};
let restored = null;
try {
  restored = await waitFor(ownTagsEverywhere, 2 * kProbeIntervalMs, `${a2.name}'s own tags in every view`, 50);
} catch (e) {
  console.log(`# ${e.message}: ${JSON.stringify([await seen(a0, a2), await seen(a1, a2)].map((m) => m && [m.incarnation, m.tags]))}`);
}
console.log(`# forged alive: ${a2.name}'s own tags back in every view ${restored ? `after ${Date.now() - forgedAt} ms` : 'never'}`);
expect(restored, `${a2.name}'s own metadata wins back in every view within ${2 * kProbeIntervalMs} ms`);
// The same forgery again: a tie at the top not from the member, ignored. Watched for a probe
// interval, sampled every 50 ms.
for (const agent of [a0, a1]) await sendTo(agent, forged);
let kept = true;
for (const end = Date.now() + kProbeIntervalMs; Date.now() < end;) {
  kept = kept && await ownTagsEverywhere();
  await new Promise((r) => setTimeout(r, 50));  // the sampling period of an observation window
}
console.log(`# the forged alive again: own tags kept throughout: ${kept}`);
expect(kept, 'a second copy of the forgery changes nothing: ties at the top go to the member');

rss.stop();
const seconds = (Date.now() - t0) / 1000;
const cpuAfter = cpuSeconds(a1.child.pid);
const user = cpuAfter.user - cpuBefore.user, system = cpuAfter.system - cpuBefore.system;
console.log(`# abuse lasted ${seconds.toFixed(1)} s; ${a1.name} CPU ${user.toFixed(2)} s user + ${system.toFixed(2)} s system; ` +
            `RSS peak ${rss.peakKB} kB`);
// Under the sanitizers memory and CPU measure ASan: reported only.
if (!args.sanitized) {
  expect(rss.peakKB <= kRssLimitKB, `${a1.name}'s RSS stayed within 64 MB (peak ${rss.peakKB} kB)`);
  expect(user <= 0.10 * seconds, `${a1.name}'s CPU (user) stayed within 10 % of a core (${(100 * user / seconds).toFixed(1)} %)`);
}

// No agent's own probes failed or made it suspect anyone: only the forgeries accused.
const after = await Promise.all(cluster.agents.map((x) => metrics(x)));
const failed = after.map((m, i) => m.vigil_probes_failed_total - before[i].vigil_probes_failed_total);
const suspected = after.map((m, i) => m.vigil_suspicions_total - before[i].vigil_suspicions_total);
const allAlive = await cluster.allSee('alive');
console.log(`# probes failed ${failed.join('/')}, suspicions ${suspected.join('/')}; all alive in every view: ${allAlive}`);
expect(failed.every((n) => n === 0) && suspected.every((n) => n === 0), 'no probe failed, no agent suspected another');
expect(allAlive, 'every agent sees every other alive');

udp.close();
cluster.stop();
for (const [condition, message] of expectations) check(condition, message);
process.exit(0);
