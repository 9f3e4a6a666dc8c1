// Soak: 20 agents (local profile) on loopback under a seeded schedule of faults — kill -9 and
// restart, SIGSTOP/SIGCONT, one-way blocks, partitions (blocks both ways between two groups) and
// injected loss — then quiet. Within a bound computed from the configuration every survivor's
// view must be identical and correct: every running agent alive in every view, every killed one
// dead or forgotten, and each agent's own incarnation at least what the others hold for it.
//
//   node tests/agent/soak.test.mjs --vigil build/bin/vigil [--long] [--seconds S] [--seed N] [--agents N]
//
// The default (CTest) runs 60 s of faults; --long runs 300 s. The same seed gives the same fault
// schedule (what the agents make of it depends on timing). Blocks (the agent's `block` command)
// drop UDP datagrams only: a partition still lets push-pull exchanges over TCP through.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { check, freePort, getJson, httpGet, waitFor } from './harness.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
};
const vigil = option('vigil');
if (!vigil) throw new Error('missing --vigil');
const long = argv.includes('--long');
const faultSeconds = Number(option('seconds', long ? 300 : 60));
const seed = Number(option('seed', 8));
const agentCount = Number(option('agents', 20));
const maxDead = 3;     // killed and not yet restarted, at once
const maxStopped = 2;  // SIGSTOPped at once
const started = Date.now();
const elapsed = () => ((Date.now() - started) / 1000).toFixed(1);

// mulberry32: a small seeded PRNG, so the schedule of faults is the same on every run.
let prngState = seed >>> 0;
function random() {
  prngState = (prngState + 0x6d2b79f5) >>> 0;
  let t = prngState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const uniform = (lo, hi) => lo + (hi - lo) * random();
const pick = (list) => list[Math.floor(random() * list.length)];
function pickWeighted(weights) {
  const total = Object.values(weights).reduce((a, b) => a + b, 0);
  let r = random() * total;
  for (const [k, w] of Object.entries(weights)) if ((r -= w) < 0) return k;
  return Object.keys(weights)[0];
}
function sample(list, n) {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; --i) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
}

const counts = {
  kills: 0, restarts: 0, restart_failures: 0, pauses: 0, blocks: 0, blocks_refused: 0, partitions: 0,
  partition_blocks: 0, losses: 0, commands: 0, command_errors: 0, suspicions: 0, refutations: 0,
};

// ------------------------------------------------------------------------------------ agents

const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-soak-'));
const token = 'soak-token-' + Math.random().toString(16).slice(2);
const tokenFile = path.join(dir, 'token');
writeFileSync(tokenFile, token + '\n');

const agents = [];
const running = () => agents.filter((a) => a.proc);
const awake = () => running().filter((a) => !a.stopped);

async function launch(agent, joinTo) {
  const args = ['agent', '--name', agent.name, '--bind', `127.0.0.1:${agent.port}`,
                '--http', `127.0.0.1:${agent.httpPort}`, '--profile', 'local', '--token-file', tokenFile,
                '--web', 'none', '--quiet'];
  if (joinTo.length) args.push('--join', joinTo.map((a) => `127.0.0.1:${a.port}`).join(','));
  const child = spawn(vigil, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = { child, log: '', exited: false };
  child.stdout.on('data', (c) => { proc.log = (proc.log + c).slice(-4000); });
  child.stderr.on('data', (c) => { proc.log = (proc.log + c).slice(-4000); });
  child.on('exit', () => { proc.exited = true; });
  agent.proc = proc;
  agent.stopped = false;
  agent.baseline = null;
  ++agent.generation;
  try {
    await waitFor(async () => {
      if (proc.exited) throw new Error(`${agent.name} exited: ${proc.log}`);
      try { return (await httpGet(agent.httpPort, '/v1/self', 500)).status === 200; } catch { return false; }
    }, 10000, `${agent.name} to serve /v1/self`);
  } catch (e) {
    child.kill('SIGKILL');
    agent.proc = null;
    throw e;
  }
  agent.control = new Control(agent);
  await agent.control.open;
}

// One WebSocket per running agent: its commands, one at a time (paced under the agent's rate
// limit of 20 a second, so every command gets its own reply), and its counters from the stats
// stream. Nothing else is kept: 20 agents × 10 stats a second add up.
class Control {
  constructor(agent) {
    this.agent = agent;
    this.queue = Promise.resolve();
    this.waiter = null;
    this.closed = false;
    this.ws = new WebSocket(`ws://127.0.0.1:${agent.httpPort}/ws`, 'vigil.v1');
    this.ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type === 'stats' || m.type === 'snapshot') agent.counters = m.counters;
      if (m.type === 'snapshot' && !agent.baseline)
        agent.baseline = { incarnation: m.self.incarnation, refutations: m.counters.refutations };
      if (this.waiter && this.waiter.accepts(m)) {
        const w = this.waiter;
        this.waiter = null;
        w.resolve(m);
      }
    });
    this.ws.on('close', () => this.shut());
    this.ws.on('error', () => this.shut());
    this.open = new Promise((resolve, reject) => {
      this.ws.once('open', resolve);
      this.ws.once('error', reject);
    });
  }

  shut() {
    this.closed = true;
    if (this.waiter) this.waiter.resolve({ type: 'error', code: 'closed' });
    this.waiter = null;
  }

  // Resolves with the agent's reply ({type: ok|error|snapshot}); a closed connection or an agent
  // that does not answer within the timeout (longer than any SIGSTOP) gives an error.
  command(body) {
    const run = async () => {
      if (this.closed) return { type: 'error', code: 'closed' };
      const wanted = body.type === 'snapshot' ? ['snapshot'] : ['ok', 'error'];
      const reply = new Promise((resolve) => {
        this.waiter = { accepts: (m) => wanted.includes(m.type), resolve };
      });
      this.ws.send(JSON.stringify(body.type === 'snapshot' ? body : { ...body, token }));
      ++counts.commands;
      const timeout = new Promise((resolve) => setTimeout(() => resolve({ type: 'error', code: 'timeout' }), 20000));
      const r = await Promise.race([reply, timeout]);
      this.waiter = null;
      if (r.type === 'error') ++counts.command_errors;
      await new Promise((resolve) => setTimeout(resolve, 60));  // 16 a second: under the limit
      return r;
    };
    const result = this.queue.then(run);
    this.queue = result.then(() => {}, () => {});
    return result;
  }

  close() {
    this.closed = true;
    this.ws.terminate();
  }
}

// Counters of finished generations of each agent, plus the live one's latest.
function harvest(agent) {
  if (!agent.counters) return;
  counts.suspicions += agent.counters.suspicions;
  counts.refutations += agent.counters.refutations;
  agent.counters = null;
}

function bail(err) {
  console.error(err && err.stack ? err.stack : err);
  for (const a of agents) {
    if (a.proc && a.proc.log) console.error(`--- ${a.name} ---\n${a.proc.log.slice(-2000)}`);
    if (a.proc) {
      if (a.stopped) a.proc.child.kill('SIGCONT');
      a.proc.child.kill('SIGKILL');
    }
  }
  process.exit(1);
}
process.on('uncaughtException', bail);
process.on('unhandledRejection', bail);

for (let i = 0; i < agentCount; ++i) {
  const agent = { name: `agent-${i}`, port: await freePort(), httpPort: await freePort(), proc: null,
                  stopped: false, generation: 0, counters: null, control: null };
  agents.push(agent);
  await launch(agent, i === 0 ? [] : [agents[0]]);
}

async function views() {
  const out = new Map();
  for (const a of running()) {
    const members = await getJson(a.httpPort, '/v1/members');
    const self = await getJson(a.httpPort, '/v1/self');
    out.set(a.name, { self, members: Object.fromEntries(members.map((m) => [m.name, m])) });
  }
  return out;
}

async function allAlive() {
  const v = await views();
  return running().every((x) => running().every((y) => x === y ||
                                                      v.get(x.name).members[y.name]?.state === 'alive'));
}
// Joins through one seed spread by gossip; push-pull anti-entropy (15 s here) bounds the rest.
await waitFor(allAlive, 45000, 'all agents to see each other alive', 500);
check(true, `${agentCount} agents converged (${elapsed()} s)`);
const config = (await running()[0].control.command({ type: 'snapshot' })).config;

// ------------------------------------------------------------------------------------ faults

// Undo actions by due time; each is a function run once.
let undos = [];
const later = (ms, what) => undos.push({ at: Date.now() + ms, what });
const blocks = new Map();  // "a>b" -> true while a drops datagrams to b
const lossy = new Set();   // agents with injected loss
let partitionActive = false;
const resumes = new Set();  // of SIGSTOPped agents, each run once

async function block(a, b) {
  const r = await a.control.command({ type: 'block', peer: b.name });
  if (r.type === 'ok') blocks.set(`${a.name}>${b.name}`, { a, b, generation: a.generation });
  else ++counts.blocks_refused;  // a does not know b (yet, or any more): nothing to undo
  return r.type === 'ok';
}
async function unblock(a, b) {
  const key = `${a.name}>${b.name}`;
  const entry = blocks.get(key);
  if (!entry) return;
  blocks.delete(key);
  // A block lives in the agent's process: a restarted agent has none.
  if (entry.generation !== a.generation || !a.proc) return;
  const r = await a.control.command({ type: 'unblock', peer: b.name });
  if (r.type !== 'ok') throw new Error(`unblock ${key} failed: ${JSON.stringify(r)}`);
}

const actions = {
  async kill() {
    const victim = pick(awake());
    // Its peers stop dropping datagrams to it first: a restarted agent reuses the address, and
    // a block outliving the kill would be a fault nobody scheduled.
    await Promise.all([...blocks.values()].filter((e) => e.b === victim).map((e) => unblock(e.a, e.b)));
    for (const key of [...blocks.keys()]) if (key.startsWith(`${victim.name}>`)) blocks.delete(key);
    lossy.delete(victim);
    harvest(victim);
    victim.control.close();
    victim.proc.child.kill('SIGKILL');
    victim.proc = null;
    ++counts.kills;
    console.log(`# ${elapsed()} s: kill -9 ${victim.name}`);
  },
  async restart() {
    const agent = pick(agents.filter((a) => !a.proc));
    try {
      await launch(agent, sample(awake(), 3));
      ++counts.restarts;
      console.log(`# ${elapsed()} s: restart ${agent.name}`);
    } catch (e) {
      ++counts.restart_failures;  // e.g. its port was taken meanwhile: it stays dead
      console.log(`# ${elapsed()} s: restart of ${agent.name} failed: ${e.message.split('\n')[0]}`);
    }
  },
  async pause() {
    const agent = pick(awake());
    const ms = Math.round(uniform(500, 4000));
    agent.proc.child.kill('SIGSTOP');
    agent.stopped = true;
    ++counts.pauses;
    console.log(`# ${elapsed()} s: SIGSTOP ${agent.name} for ${ms} ms`);
    // On a timer of its own, not in the schedule: the schedule may be waiting for this very
    // agent to answer a command.
    const resume = () => {
      clearTimeout(timer);
      resumes.delete(resume);
      agent.proc.child.kill('SIGCONT');
      agent.stopped = false;
    };
    const timer = setTimeout(resume, ms);
    resumes.add(resume);
  },
  async block() {
    const [a, b] = sample(awake(), 2);
    if (blocks.has(`${a.name}>${b.name}`)) return;
    if (await block(a, b)) {
      ++counts.blocks;
      console.log(`# ${elapsed()} s: block ${a.name} -> ${b.name}`);
      later(Math.round(uniform(2000, 8000)), () => unblock(a, b));
    }
  },
  async partition() {
    if (partitionActive) return;
    const members = awake();
    const side = new Set(sample(members, Math.round(uniform(3, 7))));
    const pairs = [];
    for (const a of members)
      for (const b of members)
        if (side.has(a) !== side.has(b) && !blocks.has(`${a.name}>${b.name}`)) pairs.push([a, b]);
    partitionActive = true;
    ++counts.partitions;
    console.log(`# ${elapsed()} s: partition {${[...side].map((a) => a.name).join(' ')}} | the other ${members.length - side.size}`);
    const ok = await Promise.all(pairs.map(([a, b]) => block(a, b)));
    counts.partition_blocks += ok.filter(Boolean).length;
    later(Math.round(uniform(3000, 10000)), async () => {
      await Promise.all(pairs.map(([a, b]) => unblock(a, b)));
      partitionActive = false;
    });
  },
  async loss() {
    const agent = pick(awake());
    if (lossy.has(agent)) return;
    const loss = Number(uniform(0.1, 0.5).toFixed(2));
    const direction = pick(['send', 'receive', 'both']);
    const r = await agent.control.command({ type: 'inject', loss, direction });
    if (r.type !== 'ok') return;
    lossy.add(agent);
    ++counts.losses;
    console.log(`# ${elapsed()} s: ${loss * 100} % loss (${direction}) at ${agent.name}`);
    const generation = agent.generation;
    later(Math.round(uniform(2000, 8000)), async () => {
      if (!lossy.delete(agent) || agent.generation !== generation || !agent.proc) return;
      const c = await agent.control.command({ type: 'inject', loss: 0 });
      if (c.type !== 'ok') throw new Error(`clearing loss on ${agent.name} failed: ${JSON.stringify(c)}`);
    });
  },
};

async function runDue(all) {
  const now = Date.now();
  const due = undos.filter((u) => all || u.at <= now);
  undos = undos.filter((u) => !due.includes(u));
  for (const u of due) await u.what();
}

const faultEnd = Date.now() + faultSeconds * 1000;
const stepMs = 1000;
let step = 0;
while (Date.now() < faultEnd) {
  await runDue(false);
  const dead = agents.filter((a) => !a.proc).length;
  const stopped = running().filter((a) => a.stopped).length;
  const weights = { block: 3, loss: 2, pause: stopped < maxStopped ? 2 : 0,
                    kill: dead < maxDead ? 1.5 : 0, restart: dead > 0 ? 1.5 : 0, partition: partitionActive ? 0 : 0.7,
                    none: 1.5 };
  const action = pickWeighted(weights);
  if (action !== 'none') await actions[action]();
  ++step;
  // Steps on a fixed grid: a slow command does not shift the schedule that follows.
  const next = started + Math.ceil((Date.now() - started) / stepMs) * stepMs;
  await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
}
// End every fault: resume, unblock, clear loss (each waits for the agent's ok). A run that
// happened to end with every agent running loses one more, so that death is checked too.
for (const resume of [...resumes]) resume();
await runDue(true);
if (agents.every((a) => a.proc)) await actions.kill();
for (const a of running()) {
  const snap = await a.control.command({ type: 'snapshot' });
  if (!(snap.type === 'snapshot' && snap.faults.blocked.length === 0 && snap.faults.loss === 0 && !snap.self.paused))
    check(false, `${a.name}: a fault is left in force: ${JSON.stringify(snap.faults ?? snap)}`);
}
check(true, `no fault left in force at any of the ${running().length} running agents`);
const quietStart = Date.now();
const dead = agents.filter((a) => !a.proc);
console.log(`# ${elapsed()} s: quiet; ${running().length} running, dead: ${dead.map((a) => a.name).join(' ')}`);

// ------------------------------------------------------------------------------- convergence

// The bound, from the configuration (local profile, N agents), each term a stage that news of
// the last faults may have to pass through one after the other:
//  - detection: a killed agent is probed by every live member once per round-robin pass over
//    the N-1 others, so within (N-1) probe intervals of the quiet start someone probes it;
//  - suspicion: Lifeguard's timeout is at most suspicion_max_timeout_mult × the minimum
//    suspicion_mult × max(1, log10 N) × probe interval (it shrinks with confirmations);
//  - healing: members that declared each other dead behind a partition meet again through the
//    reconnect loop (one exchange with a member believed dead per reconnect interval), and a
//    member told it is dead refutes at once;
//  - spreading: gossip carries each verdict and refutation to everyone in a few gossip intervals
//    (retransmit_mult × ⌈log10(N+1)⌉ sends by each holder); whoever it misses gets it from the
//    push-pull anti-entropy exchange, within one push-pull interval;
//  - slack of 5 probe intervals: Lifeguard's local health stretches the probing of an agent
//    whose probes failed during the faults until a few succeed.
const T = config.probe_interval_ms;
const suspicionMin = config.suspicion_mult * Math.max(1, Math.log10(agentCount)) * T;
const suspicionMax = config.suspicion_max_timeout_mult * suspicionMin;
const boundMs = Math.round((agentCount - 1) * T + suspicionMax + config.reconnect_interval_ms +
                           config.push_pull_interval_ms + 5 * T);
console.log(`# bound: ${(agentCount - 1) * T} (detection) + ${Math.round(suspicionMax)} (suspicion max) + ` +
            `${config.reconnect_interval_ms} (reconnect) + ${config.push_pull_interval_ms} (push-pull) + ${5 * T} ` +
            `(slack) = ${boundMs} ms`);

// What is wrong with the views now ([] when they are identical and correct).
async function problems() {
  const v = await views();
  const live = running();
  const out = [];
  for (const x of live) {
    const view = v.get(x.name).members;
    for (const name of Object.keys(view))
      if (!agents.some((a) => a.name === name)) out.push(`${x.name} knows a stranger ${name}`);
    for (const y of live) {
      if (y === x) continue;
      const m = view[y.name];
      if (!m || m.state !== 'alive') out.push(`${x.name} sees ${y.name} ${m ? m.state : 'absent'}`);
      else if (m.address !== `127.0.0.1:${y.port}`) out.push(`${x.name} has ${y.name} at ${m.address}`);
    }
    for (const k of dead) {
      const m = view[k.name];
      if (m && m.state !== 'dead') out.push(`${x.name} sees killed ${k.name} ${m.state}`);
    }
  }
  // Identical: everyone holds the same incarnation for each live agent, and no more than the
  // agent's own (only the agent itself raises it, by refuting).
  for (const y of live) {
    const own = v.get(y.name).self.incarnation;
    const held = new Set(live.filter((x) => x !== y).map((x) => v.get(x.name).members[y.name]?.incarnation));
    if (held.size !== 1) out.push(`${y.name}'s incarnation differs between views: ${[...held].join(', ')}`);
    const highest = Math.max(...[...held].filter((i) => i !== undefined));
    if (highest > own) out.push(`${y.name} is held at incarnation ${highest} above its own ${own}`);
  }
  return out;
}

let last = [];
let first = null;
const converged = await waitFor(async () => {
  last = await problems();
  first ??= last;
  return last.length === 0 && Date.now();
}, boundMs, 'identical, correct views', 500).catch((e) => {
  console.error(`# still wrong: ${last.slice(0, 20).join('; ')}`);
  throw e;
});
const convergenceMs = converged - quietStart;
console.log(`# at the quiet start: ${first.length} discrepancies between the views and the truth` +
            (first.length ? ` (${first.slice(0, 3).join('; ')}${first.length > 3 ? '; …' : ''})` : ''));
check(true, `every view identical and correct ${(convergenceMs / 1000).toFixed(1)} s after the faults ` +
            `(bound ${(boundMs / 1000).toFixed(1)} s)`);
// And it stays so: two more probe intervals of ordinary protocol traffic change nothing.
const settledAt = Date.now();
await waitFor(() => Date.now() - settledAt > 2 * T, 3 * T + 1000, 'two probe intervals', 250);
const again = await problems();
check(again.length === 0, `the views stay correct (${again.join('; ') || 'no change'})`);

const final = await views();
const incarnations = running().map((a) => final.get(a.name).self.incarnation);
// Only refuting raises an agent's own incarnation, by at least one each time: since its
// connection's first snapshot, each agent rose at least as many steps as it refuted, and rose
// only if it refuted.
for (const a of running()) {
  const own = final.get(a.name).self.incarnation;
  const rose = own - a.baseline.incarnation;
  const refuted = a.counters.refutations - a.baseline.refutations;
  if (!(rose >= refuted && (rose > 0) === (refuted > 0)))
    check(false, `${a.name}: incarnation ${a.baseline.incarnation} -> ${own} with ${refuted} refutations`);
}
check(true, 'every agent\'s incarnation rose exactly when it refuted, at least one step per refutation');
for (const a of running()) harvest(a);
for (const a of running()) {
  a.control.close();
  a.proc.child.kill('SIGKILL');
}
console.log(`# soak: seed ${seed}, ${faultSeconds} s of faults over ${agentCount} agents, ${step} steps`);
console.log(`# faults: kills ${counts.kills}, restarts ${counts.restarts} (${counts.restart_failures} failed), ` +
            `pauses ${counts.pauses}, one-way blocks ${counts.blocks} (${counts.blocks_refused} refused: peer unknown), ` +
            `partitions ${counts.partitions} (${counts.partition_blocks} blocks), loss injections ${counts.losses}`);
console.log(`# protocol: suspicions ${counts.suspicions}, refutations ${counts.refutations}, ` +
            `highest incarnation ${Math.max(...incarnations)}; ${counts.commands} commands (${counts.command_errors} errors)`);
console.log(`# convergence: ${(convergenceMs / 1000).toFixed(1)} s after the quiet start (bound ${(boundMs / 1000).toFixed(1)} s)`);
process.exit(0);
