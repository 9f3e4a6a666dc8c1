// Starting N agents of one kind, paced and bounded, and telling when they agree.
import { performance } from 'node:perf_hooks';
import { Agent } from './agents.mjs';
import { busySince, cpuTimes } from './machine.mjs';
import { nftCounters } from './net.mjs';
import { limiter, progress, sleep, waitFor } from './pace.mjs';
import { quantile } from './stats.mjs';

// A few seeds that everyone else joins through: one seed would take every push-pull exchange.
export const seedCount = (n) => (n >= 6 ? 3 : 1);

const secondsSince = (t) => ((performance.now() - t) / 1000).toFixed(1);

export async function startAgent(spec, agents, index, joins, timeoutS) {
  const a = new Agent(spec, index, joins);
  agents[index] = a;
  try {
    await waitFor(async () => {
      if (!a.alive) throw new Error(`it exited (${a.exit ?? 'spawn failed'})`);
      return spec.ready(a);
    }, timeoutS * 1000, 'it', 50);
    a.readyAt = performance.now();
  } catch (e) {
    const through = joins.length ? `joining through ${joins.map((j) => spec.prefix + j).join(', ')}` : 'the first seed';
    const why = a.alive ? `did not complete its join within ${timeoutS} s (--start-timeout)`
                        : `exited (${a.exit ?? e.message}) before completing its join`;
    a.kill();
    throw new Error(`${spec.kind}: agent ${a.name} (pid ${a.pid}, ${through}) ${why}; its last output:\n` +
                    (a.log.slice(-1500).trim() || '(none)'), { cause: e });
  }
  return a;
}

// Seeds one by one, then everyone else through the seeds, a few at a time and at most 20 a second.
// With o.startWave > 0 they come in waves of that many, each started once every agent already
// running sees all the others alive and the gossip has settled (waitQuiet): while news of joins
// keeps arriving every member gossips at its full rate, so that a large cluster started in one
// stream saturates a small machine for as long as the stream lasts; waves give it quiet gaps.
export async function startCluster(spec, o, n, agents, log) {
  const t0 = performance.now();
  const seeds = [...Array(seedCount(n)).keys()];
  for (const s of seeds) await startAgent(spec, agents, s, s === 0 ? [] : [0], o.startTimeout);
  let started = seeds.length;
  let failed = null;
  const tick = progress(5000, () => log(`${spec.kind}: ${started}/${n} agents started (${secondsSince(t0)} s)`));
  const start = limiter(o.startConcurrency, 20);
  const wave = o.startWave > 0 ? o.startWave : n;
  const waves = [];  // per wave: agents running before it, the wait for quiet and the CPU then
  for (let first = seeds.length; first < n && !failed; first += wave) {
    const last = Math.min(n, first + wave);
    if (first > seeds.length) {
      await waitAgreement(spec, agents, 120 + 0.3 * first, `${spec.kind}: the ${first} agents started so far to agree`, log);
      const quiet = await waitQuiet(spec, agents, 120, log);
      waves.push({ running: first, ...quiet });
      log(`${spec.kind}: wave from ${first} agents, after ${quiet.waited_s} s of waiting for quiet ` +
          `(machine ${Math.round(quiet.busy * 100)} % busy)`);
    }
    await Promise.all([...Array(last - first).keys()].map((k) => start(async () => {
      if (failed) return;
      try {
        await startAgent(spec, agents, first + k, seeds, o.startTimeout);
        ++started;
        tick();
      } catch (e) {
        failed = failed || e;
      }
    })));
  }
  if (failed) throw failed;
  // From spawn to joined and serving: the seeds' times show the machine's load, not the cluster's.
  const each = agents.map((a) => a.readyAt - a.startedAt);
  return { seconds: Number(secondsSince(t0)), seeds: seeds.map((s) => agents[s].name),
           agent_ready_ms: { median: Math.round(quantile(each, 0.5)), max: Math.round(Math.max(...each)) },
           waves };
}

// Agreement comes before the gossip ends: every member still retransmits the news (memberlist's
// RetransmitMult × log10(N + 1) times) after the last has heard it. Quiet is the agents' UDP
// packet rate back near the probe rate (a ping and an ack a second each, plus the pings they
// answer: kQuietPackets a second per agent), measured over kQuietWindowMs, and the machine's CPU
// less than kQuietBusy busy over that window: the packet rate falls before the work it caused is
// done (joiners' full-state exchanges, event lines, processes starting), and a wave started into
// a busy machine finds acks waiting in run queues past the probe timeout. Bounded: after
// timeoutS the next wave starts anyway, and the log says so.
const kQuietPackets = 4;
const kQuietWindowMs = 2000;
const kQuietBusy = 0.5;
export async function waitQuiet(spec, agents, timeoutS, log) {
  const t0 = performance.now();
  let before = nftCounters(spec.kind).udp.packets;
  let cpu = cpuTimes();
  let rate = Infinity, busy = 1;
  while (performance.now() - t0 < timeoutS * 1000) {
    await sleep(kQuietWindowMs);
    const now = nftCounters(spec.kind).udp.packets;
    rate = ((now - before) * 1000) / kQuietWindowMs;
    busy = busySince(cpu);
    before = now;
    cpu = cpuTimes();
    if (rate <= kQuietPackets * liveAgents(agents).length && busy < kQuietBusy) {
      return { waited_s: Number(secondsSince(t0)), busy: Number(busy.toFixed(2)) };
    }
  }
  log(`${spec.kind}: gossip at ${Math.round(rate)} packets/s, machine ${Math.round(busy * 100)} % busy after ` +
      `${timeoutS} s; starting the next wave anyway`);
  return { waited_s: Number(secondsSince(t0)), busy: Number(busy.toFixed(2)), timed_out: true };
}

const liveAgents = (agents) => agents.filter((a) => a && a.alive);
// What `a`'s own event lines last said of `b`.
const stateIn = (a, b) => (a.seen.get(b.name) || {}).state;

// How many running agents' own event lines say every other running agent is alive.
export function agreeing(agents) {
  const up = liveAgents(agents);
  return up.filter((a) => up.every((b) => b === a || stateIn(a, b) === 'alive')).length;
}

// The first `k` (observer, member) pairs whose event lines do not show the member alive.
function disagreements(agents, k) {
  const up = liveAgents(agents);
  const out = [];
  for (const a of up)
    for (const b of up)
      if (a !== b && stateIn(a, b) !== 'alive' && out.length < k) out.push(`${a.name} has ${b.name} ${stateIn(a, b) || 'unknown'}`);
  return out;
}

export async function waitAgreement(spec, agents, timeoutS, what, log) {
  const t0 = performance.now();
  const up = () => liveAgents(agents).length;
  // Each report names a few of the pairs still apart: a gap that lasts is a finding.
  const tick = progress(10000, () => log(`${spec.kind}: ${agreeing(agents)}/${up()} agents see all alive (${secondsSince(t0)} s; ` +
                                         `${disagreements(agents, 3).join('; ')})`));
  // agreeing() is O(N²): check less often for large N, so that the check itself stays below 5-10 %
  // of a core at N = 1000.
  try {
    await waitFor(() => { tick(); return agreeing(agents) === up(); }, timeoutS * 1000, what, Math.min(1000, 100 + agents.length));
  } catch (e) {
    throw new Error(`${e.message} (${disagreements(agents, 5).join('; ')})`, { cause: e });
  }
  return Number(secondsSince(t0));
}

// `k` observers spread evenly over the agents (k = 0: all of them).
export function sample(agents, k) {
  if (!k || k >= agents.length) return [...agents];
  const out = new Set();
  for (let j = 0; j < k; ++j) out.add(agents[Math.round((j * (agents.length - 1)) / (k - 1 || 1))]);
  return [...out];
}

export const viewLimiter = (o) => limiter(o.pollConcurrency, o.pollRate);

// Polls each observer's view until `ok(view)` holds for all, at most once per sweep of the ones
// still pending. For each observer the change happened after the last poll that did not see it was
// sent (`after`, 0 if the first poll saw it) and before the answer that saw it arrived (`times`),
// both in ms since `t0`: a poll's own latency (a `serf members` process is started for each) widens
// the bracket, never shifts it. Bounded by `timeoutS`; the ones still pending are in `pending`.
export async function pollUntil(spec, observers, ok, { t0, timeoutS, poll, only, log, what }) {
  const pending = new Set(observers);
  const times = new Map();
  const after = new Map();
  const deadline = performance.now() + timeoutS * 1000;
  const tick = progress(5000, () => log(`${spec.kind}: ${what}: ${observers.length - pending.size}/${observers.length} views agree`));
  while (pending.size && performance.now() < deadline) {
    const sweep = performance.now();
    await Promise.all([...pending].map((a) => poll(async () => {
      if (performance.now() > deadline) return;
      const sent = performance.now() - t0;
      let view;
      try { view = await spec.view(a, only); } catch { return; }
      if (ok(view, a)) {
        times.set(a.name, performance.now() - t0);
        pending.delete(a);
      } else after.set(a.name, sent);
    })));
    tick();
    // A sweep of a few pending observers is quick: poll each at most every 100 ms.
    const rest = 100 - (performance.now() - sweep);
    if (pending.size && rest > 0) await new Promise((r) => setTimeout(r, rest));
  }
  for (const name of times.keys()) if (!after.has(name)) after.set(name, 0);
  return { times, after, pending: [...pending].map((a) => a.name) };
}
