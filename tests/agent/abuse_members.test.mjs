// Full-state exchanges declaring members that do not exist, without gossip encryption
// (memberlist's default): six push-pull streams of 50,000 invented members each (3.6 MB, within
// the 4 MiB a stream may carry). The agent must hold at most max_members (16,384, itself
// included), refuse every other new name and count it, say so in one log line, answer its
// members list promptly and stay within its memory bound; members it already knows keep being
// updated, and its real peer stays alive in both views, never suspected.
import net from 'node:net';
import { Cluster, check, getJson, httpGet, installCleanup, parseArgs, waitFor } from './harness.mjs';
import { pushPull } from './forgeries.mjs';
import { cpuSeconds, metrics, rssKB, rssSampler } from './process_stats.mjs';

const args = parseArgs(process.argv.slice(2));
// Checks are collected and made at the end, so that a run against an agent without the cap still
// measures and reports every figure before failing.
const expectations = [];
const expect = (condition, message) => expectations.push([condition, message]);

const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);
await cluster.start(2);
const [a, b] = cluster.agents;
await waitFor(() => cluster.allSee('alive'), 30000, 'the two agents to see each other alive');
await waitFor(async () => (await metrics(b)).vigil_streams_sent_total >= 2, 10000, 'agent-1\'s follow-up exchange');

const kMaxMembers = 16384;  // swim::Config::max_members in every profile
const kStreams = 6, kPerStream = 50000;
const kRssLimitKB = 64 * 1024;
const kFakePort = 9;  // the discard port: nothing answers there on loopback

const before = { a: await metrics(a), b: await metrics(b) };
const rssBeforeKB = rssKB(a.child.pid);
const cpuBefore = cpuSeconds(a.child.pid);
const rss = rssSampler(a.child.pid);
const t0 = Date.now();

// One exchange as a member would open it: the state written, the answer read until the agent
// closes the connection.
function exchange(bytes) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port: a.port });
    let replied = 0;
    s.on('connect', () => s.write(bytes));
    s.on('data', (d) => { replied += d.length; });
    s.on('error', () => {});
    s.on('close', () => resolve(replied));
  });
}

let sentBytes = 0;
for (let s = 0; s < kStreams; ++s) {
  const members = Array.from({ length: kPerStream }, (_, i) => ({ name: `fake-${s}-${i}`, port: kFakePort }));
  const state = pushPull(members);
  sentBytes += state.length;
  const replied = await exchange(state);
  console.log(`# stream ${s + 1}: ${state.length} bytes declaring ${kPerStream} members, answered with ${replied} bytes`);
}
const self = await getJson(a.httpPort, '/v1/self');
const mAfter = await metrics(a, 30000);
const refused = mAfter.vigil_members_refused_total - before.a.vigil_members_refused_total;
const cpuAfterStreams = cpuSeconds(a.child.pid);
console.log(`# ${kStreams} streams (${(sentBytes / 1e6).toFixed(1)} MB) in ${((Date.now() - t0) / 1000).toFixed(1)} s: ` +
            `${a.name} holds ${self.members} members, refused ${refused}; RSS peak ${rss.peakKB} kB (${rssBeforeKB} kB before); ` +
            `CPU ${(cpuAfterStreams.user - cpuBefore.user).toFixed(2)} s user`);
expect(self.members === kMaxMembers, `${a.name} holds exactly max_members (${self.members} of ${kMaxMembers})`);
expect(refused === kStreams * kPerStream - (kMaxMembers - 2),
       `every other new name was refused and counted (${refused} = ${kStreams * kPerStream} - ${kMaxMembers - 2})`);

// Members already known are still updated at the cap: an invented member declared dead at a
// higher incarnation is now suspect here (a remote death is only grounds for suspicion).
await exchange(pushPull([{ name: 'fake-0-0', port: kFakePort, incarnation: 7, state: 2 }]));
const fake = (await getJson(a.httpPort, '/v1/members')).find((m) => m.name === 'fake-0-0');
console.log(`# fake-0-0 after a newer verdict: ${fake ? `${fake.state} #${fake.incarnation}` : 'unknown'}`);
expect(fake && fake.state !== 'alive' && fake.incarnation === 7, 'a member already known is still updated at the cap');

// The members list answers at once, and its size follows from the cap.
const listStart = Date.now();
const list = await httpGet(a.httpPort, '/v1/members', 120000);
const listMs = Date.now() - listStart;
console.log(`# /v1/members: ${list.body.length} bytes in ${listMs} ms`);
expect(listMs < 2000, `/v1/members answered in ${listMs} ms (under 2 s)`);

// One line says the table is full; the counter says the rest.
const lines = a.log.split('\n').filter((l) => l.includes('member table full'));
console.log(`# log lines about the cap: ${lines.length}${lines.length ? `: ${lines[0]}` : ''}`);
expect(lines.length === 1, 'one log line says the member table is full, not one per refusal');

rss.stop();
const seconds = (Date.now() - t0) / 1000;
const cpuAfter = cpuSeconds(a.child.pid);
const user = cpuAfter.user - cpuBefore.user, system = cpuAfter.system - cpuBefore.system;
console.log(`# abuse lasted ${seconds.toFixed(1)} s; agent CPU ${user.toFixed(2)} s user + ${system.toFixed(2)} s system; ` +
            `RSS peak ${rss.peakKB} kB`);
expect(rss.peakKB <= kRssLimitKB, `agent RSS stayed within 64 MB (peak ${rss.peakKB} kB, ${rssBeforeKB} kB before)`);
// Decoding 21.6 MB of full state costs some CPU; a second of it per 10 MB leaves ample room on a
// loaded machine while ruling out the quadratic or runaway costs this test exists to catch.
expect(user <= sentBytes / 10e6, `agent CPU (user) ${user.toFixed(2)} s, within 1 s per 10 MB of full state received`);

// Ten probe intervals more: both agents probe invented members now (which never answer) and
// agent-1 learns them from agent-0's gossip, yet their views of each other must not waver.
const kWatchMs = 10 * 1000;
let steady = true;
for (const end = Date.now() + kWatchMs; Date.now() < end;) {
  steady = steady && await cluster.allSee('alive');
  await new Promise((r) => setTimeout(r, 500));  // the sampling period of an observation window
}
const bSelf = await getJson(b.httpPort, '/v1/self');
console.log(`# after ${kWatchMs / 1000} s more: ${b.name} holds ${bSelf.members} members; both alive in both views throughout: ${steady}`);
expect(steady, 'both agents saw each other alive throughout, while probing invented members');
expect(bSelf.members <= kMaxMembers, `${b.name} holds at most max_members too (${bSelf.members})`);

// The real peer: alive in both views, never suspected nor declared dead by the other.
const allAlive = await cluster.allSee('alive');
const accused = (agent, other) => agent.log.split('\n').filter((l) => / (suspect|dead) /.test(l) && l.includes(` ${other.name} #`));
console.log(`# ${b.name} accused by ${a.name}: ${accused(a, b).length} times; ${a.name} by ${b.name}: ${accused(b, a).length}; ` +
            `both alive in both views: ${allAlive}`);
expect(accused(a, b).length === 0 && accused(b, a).length === 0, 'neither agent suspected or declared the other dead');
expect(allAlive, 'both agents still see each other alive');

cluster.stop();
for (const [condition, message] of expectations) check(condition, message);
process.exit(0);
