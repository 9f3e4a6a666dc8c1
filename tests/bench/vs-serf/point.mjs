// One point of the curve: N agents of one kind, started, measured idle, a late joiner, kill -9
// trials and (optionally) a loss phase; then every agent is killed.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { CLK_TCK, cpuTicks, kindSpec, memoryKb } from './agents.mjs';
import { pollUntil, sample, seedCount, startAgent, startCluster, viewLimiter, waitAgreement } from './cluster.mjs';
import { nftCounters, setLoss } from './net.mjs';
import { sleep, waitFor, limiter } from './pace.mjs';
import { mean, quantile, round, stat } from './stats.mjs';

function traffic(c0, c1, seconds, agents) {
  const per = (proto, field) => (c1[proto][field] - c0[proto][field]) / seconds / agents;
  return {
    bytes_per_s_per_agent: round(per('udp', 'bytes') + per('tcp', 'bytes')),
    udp_bytes_per_s_per_agent: round(per('udp', 'bytes')),
    tcp_bytes_per_s_per_agent: round(per('tcp', 'bytes')),
    packets_per_s_per_agent: round(per('udp', 'packets') + per('tcp', 'packets'), 2),
  };
}

const cpuOver = (agents, ticks0, seconds) => agents.map((a, i) => ((cpuTicks(a.pid) - ticks0[i]) / CLK_TCK / seconds) * 100);

// Polls the sampled views once each (retrying failures) and says whether all satisfy `ok`.
async function viewsAgree(spec, observers, ok, o, log, what) {
  const r = await pollUntil(spec, observers, ok, { t0: performance.now(), timeoutS: 30, poll: viewLimiter(o), log, what });
  return r.pending.length === 0;
}

// Every agent's events since `marks` (its event count at the start of a phase), with who saw each.
const eventsSince = (agents, marks) => agents.flatMap((a, i) => a.events.slice(marks[i]).map((e) => ({ ...e, observer: a.name })));

function falsePositives(spec, evs) {
  const deaths = evs.filter((e) => e.kind === spec.dead);
  return {
    false_deaths: deaths.length,  // (observer, member) pairs
    members_falsely_declared: new Set(deaths.map((e) => e.member)).size,
    suspect_views: evs.filter((e) => e.kind === 'suspect').length,  // vigil prints them; serf does not
  };
}

async function idle(spec, agents, o, log) {
  const n = agents.length;
  log(`${spec.kind}: idle window ${o.idleSeconds} s`);
  const load0 = os.loadavg()[0];
  const marks = agents.map((a) => a.events.length);
  const c0 = nftCounters(spec.kind);
  const ticks0 = agents.map((a) => cpuTicks(a.pid));
  const t0 = performance.now();
  const mem = agents.map(() => []);
  const sampleMemory = () => agents.forEach((a, i) => {
    if (!a.alive) throw new Error(`${a.name} exited during the idle window (${a.exit}):\n${a.log.slice(-1500)}`);
    mem[i].push(memoryKb(a.pid));
  });
  // The script only reads /proc, every 5 s, while the agents are left to their own gossip.
  while (performance.now() - t0 < o.idleSeconds * 1000) {
    sampleMemory();
    await sleep(Math.min(5000, Math.max(0, o.idleSeconds * 1000 - (performance.now() - t0))));
  }
  const seconds = (performance.now() - t0) / 1000;
  sampleMemory();
  const cpu = cpuOver(agents, ticks0, seconds);
  const c1 = nftCounters(spec.kind);
  const r = {
    seconds: round(seconds),
    rss_kb: stat(mem.map((s) => mean(s.map((m) => m.rss))), 0),
    pss_kb: stat(mem.map((s) => mean(s.map((m) => m.pss))), 0),
    cpu_percent_of_core: stat(cpu, 3),
    ...traffic(c0, c1, seconds, n),
    loadavg_1m: [round(load0, 2), round(os.loadavg()[0], 2)],
    // Every agent is alive and the network clean, so any death or suspicion here is false.
    ...falsePositives(spec, eventsSince(agents, marks)),
  };
  log(`${spec.kind}: idle RSS ${r.rss_kb.mean} kB, PSS ${r.pss_kb.mean} kB, CPU ${r.cpu_percent_of_core.mean} %, ` +
      `${r.bytes_per_s_per_agent} B/s per agent, false deaths ${r.false_deaths}`);
  return r;
}

// A new member joins through one ordinary member; the time until every sampled member's view lists
// it alive (polled), and until every member printed it as alive (its own event lines).
async function lateJoin(spec, agents, o, log) {
  const n = agents.length;
  const via = agents[Math.floor(n / 2)];
  const name = spec.prefix + n;
  const observers = sample(agents, o.observers);
  const fromEvents = new Map();
  const t0 = performance.now();
  for (const a of agents)
    a.watch = (e) => {
      if (e.member === name && spec.state[e.kind] === 'alive' && !fromEvents.has(a.name)) fromEvents.set(a.name, e.t - t0);
    };
  log(`${spec.kind}: ${name} joins through ${via.name}; polling ${observers.length} of ${n} views`);
  const r = { member: name, via: via.name, observers: observers.length, sampled: observers.length < n };
  let newcomer = null;
  const started = startAgent(spec, agents, n, [via.index], o.joinTimeout).then((a) => {
    newcomer = a;
    r.newcomer_joined_ms = Math.round(performance.now() - t0);
  }, (e) => { r.error = e.message; });
  const polled = await pollUntil(spec, observers, (view) => view[name] === 'alive',
                                 { t0, timeoutS: o.joinTimeout, poll: viewLimiter(o), only: name, log, what: `${name} joining` });
  await started;
  // Event lines arrive without polling, so they usually are all in by now; bounded anyway.
  await waitFor(() => fromEvents.size >= n, 10000, 'join events', 50).catch(() => {});
  for (const a of agents) a.watch = null;
  const times = [...polled.times.values()];
  if (polled.pending.length) r.error = `timed out after ${o.joinTimeout} s: ${polled.pending.length} views never listed ` +
                                       `${name} alive (${polled.pending.slice(0, 10).join(', ')})`;
  else {
    r.all_ms = Math.round(Math.max(...times));
    // The last observer learned it no earlier than this: the bracket's width is the polls' resolution.
    r.all_after_ms = Math.round(Math.max(...polled.after.values()));
  }
  r.median_ms = times.length ? Math.round(quantile(times, 0.5)) : null;
  r.events_seen_by = fromEvents.size;
  if (fromEvents.size >= n) r.events_all_ms = Math.round(Math.max(...fromEvents.values()));
  log(`${spec.kind}: ${name} alive in ${polled.times.size}/${observers.length} sampled views, the last between ` +
      `${r.all_after_ms ?? '-'} and ${r.all_ms ?? '-'} ms (event lines: all ${n} after ${r.events_all_ms ?? '-'} ms)`);
  if (!newcomer && r.error) throw new Error(r.error);
  return r;
}

async function detection(spec, agents, o, log) {
  const seeds = seedCount(agents.length - 1);
  // Victims: never a seed (the others join through them) nor the late joiner (the last agent).
  const candidates = agents.slice(seeds, -1);
  const trials = [];
  for (let k = 0; k < o.kills; ++k) {
    const victim = candidates[(k * 7) % candidates.length];
    const survivors = agents.filter((a) => a !== victim);
    const mark = survivors.map((a) => a.events.length);
    const tKill = performance.now();
    victim.kill();
    const seen = () => survivors.map((a, i) => a.events.slice(mark[i]).find((e) => e.member === victim.name && e.kind === spec.dead));
    const trial = { victim: victim.name, survivors: survivors.length };
    try {
      await waitFor(() => seen().every(Boolean), o.detectTimeout * 1000,
                    `${spec.kind}: all survivors to mark ${victim.name} ${spec.dead}`, 100);  // times come from the lines
      const times = seen().map((e) => e.t - tKill);
      trial.first_ms = Math.round(Math.min(...times));
      trial.all_ms = Math.round(Math.max(...times));
      trial.per_survivor_median_ms = Math.round(quantile(times, 0.5));
      // The event lines gave the times; the (sampled) views confirm the end state.
      trial.views_confirm = await viewsAgree(spec, sample(survivors, o.observers), (v) => v[victim.name] === spec.dead, o, log,
                                             `${victim.name} ${spec.dead}`);
    } catch (e) {
      trial.error = e.message;
      log(e.message);
    }
    trials.push(trial);
    log(`${spec.kind}: kill ${k + 1}/${o.kills} ${victim.name}: first ${trial.first_ms} ms, all ${trial.all_ms} ms` +
        (trial.views_confirm === false ? ' (views did not confirm)' : ''));
    await waitFor(() => !victim.alive, 5000, `${victim.name} to exit`, 20);
    await startAgent(spec, agents, victim.index, victim.joins, o.startTimeout);
    try {
      await waitAgreement(spec, agents, 120, `${spec.kind}: ${victim.name} back alive everywhere`, log);
    } catch (e) {
      trial.rejoin_error = e.message;
      log(e.message);
    }
    await sleep(Math.min(5000, o.settleSeconds * 1000));  // let the refutation gossip die down
  }
  const ok = trials.filter((t) => t.all_ms !== undefined);
  const q = (key, p) => quantile(ok.map((t) => t[key]), p);
  return {
    trials,
    failed_trials: trials.length - ok.length,
    all_survivors_ms: { median: q('all_ms', 0.5), p99: q('all_ms', 0.99) },
    first_survivor_ms: { median: q('first_ms', 0.5), p99: q('first_ms', 0.99) },
  };
}

// Every agent stays alive, so every death and every accusation is a false positive.
async function loss(spec, agents, o, log) {
  log(`${spec.kind}: ${o.lossPercent} % UDP loss for ${o.lossMinutes} min`);
  const poll = limiter(o.pollConcurrency, o.pollRate);
  const metrics = () => Promise.all(agents.map((a) => poll(() => spec.metrics(a))));
  const marks = agents.map((a) => a.events.length);
  const m0 = spec.metrics ? await metrics() : null;
  const lc0 = nftCounters(spec.kind);
  const lt0 = agents.map((a) => cpuTicks(a.pid));
  const tl = performance.now();
  setLoss(o.lossPercent);
  await sleep(o.lossMinutes * 60000);
  setLoss(0);
  const lossS = (performance.now() - tl) / 1000;
  const lcpu = cpuOver(agents, lt0, lossS);
  const lc1 = nftCounters(spec.kind);
  const m1 = spec.metrics ? await metrics() : null;
  const evs = eventsSince(agents, marks);
  const sum = (key) => m1.reduce((s, m, i) => s + m[key] - m0[i][key], 0);
  const r = {
    seconds: round(lossS),
    loss_percent: o.lossPercent,
    agents: agents.length,
    agents_running_at_end: agents.filter((a) => a.alive).length,
    ...falsePositives(spec, evs),
    // accusations (suspect or dead) that reached a live member and that it refuted.
    refutations: spec.metrics ? sum('refutations') : evs.filter((e) => e.kind === 'refuted').length,
    // probes of a live member that got no ack at all (direct, relayed, TCP) and so suspected it.
    failed_probes: spec.metrics ? sum('failed_probes') : evs.filter((e) => e.kind === 'failed_probe').length,
    cpu_percent_of_core: stat(lcpu, 3),
    ...traffic(lc0, lc1, lossS, agents.length),
  };
  // memberlist's TCP ping fallback: probes whose UDP legs all failed but that a TCP ping saved.
  if (!spec.metrics) r.probes_saved_by_tcp = evs.filter((e) => e.kind === 'tcp_saved').length;
  else {
    r.suspicions_started = sum('suspicions');
  }
  r.views_recovered = await waitAgreement(spec, agents, 120, 'recovery', log).then(() => true, () => false);
  log(`${spec.kind}: false deaths ${r.false_deaths}, refutations ${r.refutations}, failed probes ${r.failed_probes}`);
  return r;
}

export async function runPoint(kind, n, o, log) {
  const spec = kindSpec(kind, o);
  const agents = [];
  const result = { kind, agents: n };
  try {
    log(`${kind}: starting ${n} agents (${seedCount(n)} seed${seedCount(n) > 1 ? 's' : ''}, ` +
        `${o.startConcurrency} at a time)`);
    result.start = await startCluster(spec, o, n, agents, log);
    result.start.agreement_s = await waitAgreement(spec, agents, 120 + 0.3 * n,
                                                   `${kind}: every agent to see all ${n} alive`, log);
    const tc = performance.now();
    result.start.views_confirm = await viewsAgree(spec, sample(agents, o.observers),
                                                  (v, a) => agents.every((b) => b === a || v[b.name] === 'alive'), o, log,
                                                  'all alive');
    result.start.views_confirm_s = round((performance.now() - tc) / 1000);
    log(`${kind}: ${n} agents started in ${result.start.seconds} s, all agree after ${result.start.agreement_s} s more ` +
        `(sampled views ${result.start.views_confirm ? 'confirm' : 'DO NOT confirm'} in ${result.start.views_confirm_s} s); ` +
        `settling ${o.settleSeconds} s`);
    await sleep(o.settleSeconds * 1000);  // let the join traffic die down before measuring
    result.idle = await idle(spec, agents, o, log);
    result.join = await lateJoin(spec, agents, o, log);
    result.detection = await detection(spec, agents, o, log);
    if (o.lossMinutes > 0) result.loss = await loss(spec, agents, o, log);
  } catch (e) {
    result.error = e.message;
    log(`N=${n}: ${e.message}`);
  } finally {
    for (const a of agents) if (a) a.kill();
    await waitFor(() => agents.every((a) => !a || !a.alive), 10000, `${kind} agents to exit`, 50)
      .catch(() => log(`${kind}: some agents did not exit within 10 s of kill -9`));
  }
  return result;
}
