#!/usr/bin/env node
// Side-by-side benchmark of `vigil agent` against HashiCorp memberlist as shipped in `serf agent`
// N agents of each kind, LAN profile, on loopback inside a network namespace this script
// creates. Needs root (network namespace, nft). Not a pass/fail test: it reports numbers and ratios.
//
// The outer process checks the tools, creates the namespace and re-runs itself inside it; on exit or
// Ctrl-C it kills whatever still runs in the namespace and deletes it. The inner process runs one
// phase per kind, one kind at a time, so the two never compete for the CPU.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { httpGet } from '../../agent/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');

const USAGE = `usage: node tests/bench/vs-serf/vs-serf.mjs [options]   (as root)

Benchmarks N vigil agents against N serf agents (LAN profile both), on loopback inside a network
namespace it creates and deletes, one kind at a time:
  idle        RSS (VmRSS) and CPU (utime+stime) per agent, bytes/s per agent on the gossip ports
  detection   kill -9 one agent, time until every survivor marks it dead (vigil) / failed (serf)
  loss        random UDP loss for a while: live agents marked dead/failed, accusations refuted

options:
  --vigil PATH          vigil binary                                  (default build/bin/vigil)
  --serf PATH           serf binary (installed with apt-get if absent) (default serf on PATH)
  --out PATH            JSON result                                   (default build/vs-serf.json)
  --agents N            agents of each kind                           (default 20)
  --idle-seconds S      idle measurement window                       (default 60)
  --settle-seconds S    quiet time after convergence, before measuring (default 10)
  --kills N             kill -9 trials per kind (victim restarted after each) (default 5)
  --detect-timeout S    bound on one detection trial                  (default 120)
  --loss-minutes M      length of the loss phase                      (default 5)
  --loss-percent P      UDP datagrams dropped at random               (default 15)
  --only vigil|serf     run one kind only (no ratios)
  --help                this text`;

const DEFAULTS = {
  vigil: path.join(repo, 'build/bin/vigil'), serf: 'serf', out: path.join(repo, 'build/vs-serf.json'),
  agents: '20', 'idle-seconds': '60', 'settle-seconds': '10', kills: '5', 'detect-timeout': '120',
  'loss-minutes': '5', 'loss-percent': '15', only: '', inner: '',
};

function fail(message, code = 2) {
  process.stderr.write(`vs-serf: ${message}\n`);
  process.exit(code);
}

function parseOptions(argv) {
  const o = { ...DEFAULTS };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    const eq = a.indexOf('=');
    const key = a.startsWith('--') ? a.slice(2, eq > 0 ? eq : undefined) : '';
    if (!(key in DEFAULTS)) fail(`unknown option '${a}' (see --help)`);
    const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined) fail(`--${key}: missing value`);
    o[key] = value;
  }
  const num = (key, min, max, integer) => {
    const v = Number(o[key]);
    if (!Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v)))
      fail(`--${key}: expected ${integer ? 'an integer' : 'a number'} in [${min}, ${max}], got '${o[key]}'`);
    return v;
  };
  // The port plan below gives each kind 100 protocol ports and 100 HTTP/RPC ports.
  o.agents = num('agents', 3, 100, true);
  o.idleSeconds = num('idle-seconds', 1, 3600, false);
  o.settleSeconds = num('settle-seconds', 0, 600, false);
  o.kills = num('kills', 0, 100, true);
  o.detectTimeout = num('detect-timeout', 5, 1200, false);
  o.lossMinutes = num('loss-minutes', 0, 120, false);
  o.lossPercent = num('loss-percent', 0, 99, true);
  if (o.only && o.only !== 'vigil' && o.only !== 'serf') fail(`--only: expected vigil or serf, got '${o.only}'`);
  for (const k of ['vigil', 'out']) o[k] = path.resolve(o[k]);
  return o;
}

const opts = parseOptions(process.argv.slice(2));
const log = (msg) => process.stderr.write(`[vs-serf ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------------------------------ outer

function have(cmd) { return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0; }

function ensurePackage(cmd, pkg) {
  if (have(cmd)) return;
  log(`'${cmd}' not found: installing Debian package '${pkg}' with apt-get`);
  const r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', pkg], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0 || !have(cmd))
    fail(`cannot install '${pkg}' (apt-get install -y ${pkg} failed); install it and run again`, 1);
}

async function outer(o) {
  if (process.getuid && process.getuid() !== 0) fail('needs root (it creates a network namespace and nft rules)', 1);
  if (o.only !== 'serf') try {
    execFileSync(o.vigil, ['agent', '--help'], { stdio: 'ignore' });
  } catch {
    fail(`--vigil: '${o.vigil}' does not run 'agent --help' (build it: cmake --build build --target vigil)`, 1);
  }
  ensurePackage('ip', 'iproute2');
  ensurePackage('nft', 'nftables');
  if (o.serf === 'serf') ensurePackage('serf', 'serf');
  else if (spawnSync(o.serf, ['version'], { stdio: 'ignore' }).status !== 0) fail(`--serf: '${o.serf}' does not run`, 1);

  const ns = `vs-serf-${process.pid}`;
  let cleaned = false;
  const cleanup = () => {
    if (cleaned) return;
    cleaned = true;
    // Everything in the namespace was started by this run: the inner process and its agents.
    try {
      const pids = execFileSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).split(/\s+/).filter(Boolean);
      for (const pid of pids) try { process.kill(Number(pid), 'SIGKILL'); } catch { /* already gone */ }
    } catch { /* no namespace */ }
    spawnSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
  };
  process.on('exit', cleanup);

  execFileSync('ip', ['netns', 'add', ns]);
  execFileSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  log(`network namespace ${ns} created`);

  const args = [fileURLToPath(import.meta.url), '--inner', ns];
  for (const [k, v] of Object.entries(o))
    if (k in DEFAULTS && k !== 'inner' && v !== '') args.push(`--${k}`, String(v));
  const child = spawn('ip', ['netns', 'exec', ns, process.execPath, ...args], { stdio: 'inherit' });
  let interrupted = false;
  const onSignal = (sig) => {
    if (interrupted) return;
    interrupted = true;
    log(`${sig}: stopping`);
    try { child.kill(sig); } catch { /* gone */ }
    // Bounded: the inner process gets a moment to stop its agents, then everything is killed.
    setTimeout(() => { cleanup(); process.exit(130); }, 3000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 130 : 1))));
  cleanup();
  log(`network namespace ${ns} deleted`);
  process.exit(code);
}

// ------------------------------------------------------------------------------------------ inner

// Port plan: protocol ports and HTTP/RPC ports in separate ranges per kind, all below the kernel's
// ephemeral range (32768+), so the nft counters can tell gossip from the benchmark's own polling.
const PLAN = {
  vigil: { gossip: 31000, control: 31100 },
  serf: { gossip: 32000, control: 32100 },
};

function nft(script) { execFileSync('nft', ['-f', '-'], { input: script }); }

function nftSetup() {
  let rules = '';
  let counters = '';
  for (const [kind, p] of Object.entries(PLAN)) {
    const range = `${p.gossip}-${p.gossip + 99}`;
    for (const proto of ['udp', 'tcp']) {
      counters += `  counter ${kind}_${proto} {}\n`;
      // Each packet crosses `output` once on lo: count it when it leaves a gossip port, or when it
      // enters one from elsewhere (TCP streams from ephemeral ports) — never twice.
      rules += `    ${proto} sport ${range} counter name ${kind}_${proto}\n`;
      rules += `    ${proto} dport ${range} ${proto} sport != ${range} counter name ${kind}_${proto}\n`;
    }
  }
  nft(`table inet vsb {\n${counters}  chain count { type filter hook output priority 0; policy accept;\n${rules}  }\n` +
      `  chain loss { type filter hook output priority 10; policy accept; }\n}\n`);
}

function nftCounters(kind) {
  const j = JSON.parse(execFileSync('nft', ['-j', 'list', 'counters'], { encoding: 'utf8' }));
  const out = { udp: { bytes: 0, packets: 0 }, tcp: { bytes: 0, packets: 0 } };
  for (const item of j.nftables)
    if (item.counter && item.counter.name.startsWith(`${kind}_`))
      out[item.counter.name.slice(kind.length + 1)] = { bytes: item.counter.bytes, packets: item.counter.packets };
  return out;
}

const setLoss = (percent) => {
  execFileSync('nft', ['flush', 'chain', 'inet', 'vsb', 'loss']);
  if (percent > 0)
    execFileSync('nft', ['add', 'rule', 'inet', 'vsb', 'loss', 'meta', 'l4proto', 'udp', 'numgen', 'random', 'mod', '100',
                         '<', String(percent), 'drop']);
};

function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);  // utime + stime, all threads
}
function rssKb(pid) { return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]); }
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

// What differs between the kinds: how to start one, read its view, and recognise its events.
function kindSpec(kind, o) {
  const p = PLAN[kind];
  if (kind === 'vigil') {
    return {
      kind, dead: 'dead',
      command(i) {
        const args = ['agent', '--name', `v${i}`, '--bind', `127.0.0.1:${p.gossip + i}`,
                      '--http', `127.0.0.1:${p.control + i}`, '--profile', 'lan', '--web', 'none'];
        if (i > 0) args.push('--join', `127.0.0.1:${p.gossip}`);
        return [o.vigil, args];
      },
      async ready(a) {
        try { return (await httpGet(p.control + a.index, '/v1/self', 1000)).status === 200; } catch { return false; }
      },
      async view(a) {
        const list = JSON.parse((await httpGet(p.control + a.index, '/v1/members', 3000)).body);
        return Object.fromEntries(list.map((m) => [m.name, m.state]));
      },
      // Without --quiet the agent prints one line per change of its view: "[self] time dead member #inc".
      event(line) {
        const m = line.match(/^\[\S+\]\s+\S+ (\w+) (\S+) #/);
        return m ? { kind: m[1], member: m[2] } : null;
      },
      async metrics(a) {
        const body = (await httpGet(p.control + a.index, '/metrics', 3000)).body;
        const get = (name) => Number((body.match(new RegExp(`^${name} (\\d+)`, 'm')) || [0, 0])[1]);
        return { suspicions: get('vigil_suspicions_total'), refutations: get('vigil_refutations_total'),
                 failed_probes: get('vigil_probes_failed_total') };
      },
    };
  }
  return {
    kind, dead: 'failed',
    command(i) {
      const args = ['agent', `-node=s${i}`, `-bind=127.0.0.1:${p.gossip + i}`, `-rpc-addr=127.0.0.1:${p.control + i}`,
                    '-profile=lan', '-log-level=info'];
      if (i > 0) args.push(`-join=127.0.0.1:${p.gossip}`);
      return [o.serf, args];
    },
    async ready(a) { return a.log.includes('Serf agent running!') && (a.index === 0 || a.log.includes('Join completed')); },
    async view(a) {
      const out = await new Promise((resolve, reject) => {
        const c = spawn(o.serf, ['members', `-rpc-addr=127.0.0.1:${p.control + a.index}`, '-format=json'],
                        { stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
        let s = '';
        c.stdout.on('data', (d) => { s += d; });
        c.on('error', reject);
        c.on('exit', (code) => (code === 0 ? resolve(s) : reject(new Error(`serf members exited ${code}`))));
      });
      return Object.fromEntries(JSON.parse(out).members.map((m) => [m.name, m.status]));
    },
    // memberlist/serf log lines (log level info) for the events the benchmark counts.
    event(line) {
      let m = line.match(/serf: EventMember(Failed|Join|Leave|Update|Reap): (\S+)/);
      if (m) return { kind: m[1] === 'Failed' ? 'failed' : m[1].toLowerCase(), member: m[2] };
      m = line.match(/memberlist: Suspect (\S+) has failed, no acks received/);
      if (m) return { kind: 'failed_probe', member: m[1] };
      m = line.match(/memberlist: Was able to connect to (\S+) /);
      if (m) return { kind: 'tcp_saved', member: m[1] };
      m = line.match(/memberlist: Refuting a (suspect|dead) message/);
      if (m) return { kind: 'refuted', member: '' };
      return null;
    },
    metrics: null,
  };
}

class Agent {
  constructor(spec, index) {
    this.spec = spec;
    this.index = index;
    this.name = (spec.kind === 'vigil' ? 'v' : 's') + index;
    this.events = [];  // { t (ms, performance.now), kind, member }
    this.log = '';
    this.start();
  }

  start() {
    const [cmd, args] = this.spec.command(this.index);
    this.log = '';
    this.alive = true;
    this.child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.pid = this.child.pid;
    let partial = '';
    const onData = (chunk) => {
      const t = performance.now();  // arrival time: both kinds write their event lines unbuffered
      const text = partial + chunk.toString();
      const lines = text.split('\n');
      partial = lines.pop();
      for (const line of lines) {
        const e = this.spec.event(line);
        if (e) this.events.push({ t, ...e });
      }
      this.log = (this.log + chunk.toString()).slice(-8000);
    };
    this.child.stdout.on('data', onData);
    this.child.stderr.on('data', onData);
    this.child.on('exit', () => { this.alive = false; });
    this.child.on('error', (e) => { this.alive = false; this.log += `\nspawn error: ${e.message}`; });
  }

  kill() {
    if (this.alive) try { process.kill(this.pid, 'SIGKILL'); } catch { /* gone */ }
  }
}

async function waitFor(probe, timeoutMs, what, intervalMs = 200) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (performance.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(intervalMs);
  }
}

async function startAgent(spec, agents, i) {
  const a = new Agent(spec, i);
  agents[i] = a;
  await waitFor(async () => {
    if (!a.alive) throw new Error(`${a.name} exited:\n${a.log.slice(-2000)}`);
    return spec.ready(a);
  }, 20000, `${a.name} to start`);
  return a;
}

// Every running agent sees every other running agent alive.
async function converged(spec, agents) {
  for (const a of agents) {
    if (!a.alive) continue;
    let view;
    try { view = await spec.view(a); } catch { return false; }
    for (const b of agents) if (b !== a && view[b.name] !== 'alive') return false;
  }
  return true;
}

const mean = (xs) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null);
function quantile(xs, q) {
  // Nearest rank: with fewer than 100 samples p99 is the largest.
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
const round = (x, digits = 1) => (x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits);
const stat = (xs, digits = 1) => ({ mean: round(mean(xs), digits), max: round(Math.max(...xs), digits) });

function traffic(c0, c1, seconds, agents) {
  const per = (proto, field) => (c1[proto][field] - c0[proto][field]) / seconds / agents;
  return {
    bytes_per_s_per_agent: round(per('udp', 'bytes') + per('tcp', 'bytes')),
    udp_bytes_per_s_per_agent: round(per('udp', 'bytes')),
    tcp_bytes_per_s_per_agent: round(per('tcp', 'bytes')),
    packets_per_s_per_agent: round(per('udp', 'packets') + per('tcp', 'packets'), 2),
  };
}

function cpuOver(agents, ticks0, seconds) {
  return agents.map((a, i) => ((cpuTicks(a.pid) - ticks0[i]) / CLK_TCK / seconds) * 100);
}

async function runKind(kind, o) {
  const spec = kindSpec(kind, o);
  const n = o.agents;
  const agents = [];
  const result = { kind, agents: n };
  process.on('exit', () => agents.forEach((a) => a && a.kill()));
  try {
    log(`${kind}: starting ${n} agents`);
    for (let i = 0; i < n; ++i) await startAgent(spec, agents, i);
    const tc = performance.now();
    await waitFor(() => converged(spec, agents), 180000, `${kind}: every agent to see all ${n} alive`, 1000);
    result.convergence_s = round((performance.now() - tc) / 1000);
    log(`${kind}: converged; settling ${o.settleSeconds} s`);
    await sleep(o.settleSeconds * 1000);  // let the join traffic die down before measuring

    // ---- idle: nothing but the agents' own gossip; the script only reads /proc every 5 s.
    log(`${kind}: idle window ${o.idleSeconds} s`);
    const load0 = os.loadavg()[0];
    const c0 = nftCounters(kind);
    const ticks0 = agents.map((a) => cpuTicks(a.pid));
    const t0 = performance.now();
    const rssSamples = agents.map(() => []);
    while (performance.now() - t0 < o.idleSeconds * 1000) {
      agents.forEach((a, i) => rssSamples[i].push(rssKb(a.pid)));
      await sleep(Math.min(5000, Math.max(0, o.idleSeconds * 1000 - (performance.now() - t0))));
    }
    const idleS = (performance.now() - t0) / 1000;
    const cpu = cpuOver(agents, ticks0, idleS);
    const c1 = nftCounters(kind);
    agents.forEach((a, i) => rssSamples[i].push(rssKb(a.pid)));
    result.idle = {
      seconds: round(idleS),
      rss_kb: stat(rssSamples.map((s) => mean(s)), 0),
      cpu_percent_of_core: stat(cpu, 3),
      ...traffic(c0, c1, idleS, n),
      loadavg_1m: [round(load0, 2), round(os.loadavg()[0], 2)],
    };
    log(`${kind}: idle RSS ${result.idle.rss_kb.mean} kB, CPU ${result.idle.cpu_percent_of_core.mean} %, ` +
        `${result.idle.bytes_per_s_per_agent} B/s per agent`);

    // ---- detection: kill -9 a victim, wait for every survivor's view to declare it, restart it.
    const trials = [];
    for (let k = 0; k < o.kills; ++k) {
      const victim = agents[1 + ((k * 7) % (n - 1))];  // never agent 0, which the others join through
      const survivors = agents.filter((a) => a !== victim);
      const mark = survivors.map((a) => a.events.length);
      const tKill = performance.now();
      victim.kill();
      const seen = () => survivors.map((a, i) => a.events.slice(mark[i]).find((e) => e.member === victim.name &&
                                                                            e.kind === spec.dead));
      const trial = { victim: victim.name, survivors: survivors.length };
      try {
        await waitFor(() => seen().every(Boolean), o.detectTimeout * 1000, `${kind}: all survivors to mark ${victim.name} ${spec.dead}`, 20);
        const times = seen().map((e) => e.t - tKill);
        trial.first_ms = Math.round(Math.min(...times));
        trial.all_ms = Math.round(Math.max(...times));
        trial.per_survivor_ms = times.map(Math.round);
        // The event stream gave the times; the views confirm the end state.
        trial.views_confirm = await waitFor(async () => {
          for (const a of survivors) if ((await spec.view(a).catch(() => ({})))[victim.name] !== spec.dead) return false;
          return true;
        }, 15000, 'views', 500).catch(() => false);
      } catch (e) {
        trial.error = e.message;
        log(e.message);
      }
      trials.push(trial);
      log(`${kind}: kill ${k + 1}/${o.kills} ${victim.name}: first ${trial.first_ms} ms, all ${trial.all_ms} ms` +
          (trial.views_confirm === false ? ' (views did not confirm)' : ''));
      await waitFor(() => !victim.alive, 5000, `${victim.name} to exit`, 20);
      await startAgent(spec, agents, victim.index);
      try {
        await waitFor(() => converged(spec, agents), 120000, `${kind}: ${victim.name} back alive everywhere`, 1000);
      } catch (e) {
        trial.rejoin_error = e.message;
        log(e.message);
      }
      await sleep(Math.min(5000, o.settleSeconds * 1000));  // let the refutation gossip die down
    }
    const ok = trials.filter((t) => t.all_ms !== undefined);
    result.detection = {
      trials,
      failed_trials: trials.length - ok.length,
      all_survivors_ms: { median: quantile(ok.map((t) => t.all_ms), 0.5), p99: quantile(ok.map((t) => t.all_ms), 0.99) },
      first_survivor_ms: { median: quantile(ok.map((t) => t.first_ms), 0.5), p99: quantile(ok.map((t) => t.first_ms), 0.99) },
      per_survivor_ms: { median: quantile(ok.flatMap((t) => t.per_survivor_ms), 0.5),
                         p99: quantile(ok.flatMap((t) => t.per_survivor_ms), 0.99) },
    };

    // ---- loss: every agent stays alive, so every death and every accusation is a false positive.
    if (o.lossMinutes > 0) {
      log(`${kind}: ${o.lossPercent} % UDP loss for ${o.lossMinutes} min`);
      const marks = agents.map((a) => a.events.length);
      const m0 = spec.metrics ? await Promise.all(agents.map((a) => spec.metrics(a))) : null;
      const lc0 = nftCounters(kind);
      const lt0 = agents.map((a) => cpuTicks(a.pid));
      const tl = performance.now();
      setLoss(o.lossPercent);
      await sleep(o.lossMinutes * 60000);
      setLoss(0);
      const lossS = (performance.now() - tl) / 1000;
      const lcpu = cpuOver(agents, lt0, lossS);
      const lc1 = nftCounters(kind);
      const m1 = spec.metrics ? await Promise.all(agents.map((a) => spec.metrics(a))) : null;
      const evs = agents.flatMap((a, i) => a.events.slice(marks[i]).map((e) => ({ ...e, observer: a.name })));
      const deaths = evs.filter((e) => e.kind === spec.dead);
      const sum = (key) => m1.reduce((s, m, i) => s + m[key] - m0[i][key], 0);
      result.loss = {
        seconds: round(lossS),
        loss_percent: o.lossPercent,
        agents_running_at_end: agents.filter((a) => a.alive).length,
        // (observer, member) pairs: a live member declared dead/failed in one agent's view.
        false_deaths: deaths.length,
        members_falsely_declared: [...new Set(deaths.map((e) => e.member))].length,
        // accusations (suspect or dead) that reached a live member and that it refuted.
        refutations: spec.metrics ? sum('refutations') : evs.filter((e) => e.kind === 'refuted').length,
        // probes of a live member that got no ack at all (direct, relayed, TCP) and so suspected it.
        failed_probes: spec.metrics ? sum('failed_probes') : evs.filter((e) => e.kind === 'failed_probe').length,
        cpu_percent_of_core: stat(lcpu, 3),
        ...traffic(lc0, lc1, lossS, n),
      };
      // memberlist's TCP ping fallback: probes whose UDP legs all failed but that a TCP ping saved.
      if (!spec.metrics) result.loss.probes_saved_by_tcp = evs.filter((e) => e.kind === 'tcp_saved').length;
      if (spec.metrics) {
        result.loss.suspicions_started = sum('suspicions');
        result.loss.suspect_views = evs.filter((e) => e.kind === 'suspect').length;
      }
      result.loss.views_recovered = await waitFor(() => converged(spec, agents), 120000, 'recovery', 1000).catch(() => false);
      log(`${kind}: false deaths ${result.loss.false_deaths}, refutations ${result.loss.refutations}, ` +
          `failed probes ${result.loss.failed_probes}`);
    }
  } finally {
    agents.forEach((a) => a && a.kill());
    await waitFor(() => agents.every((a) => !a || !a.alive), 10000, `${kind} agents to exit`, 50).catch(() => {});
  }
  return result;
}

function row(label, v, s, target, unit = '') {
  const ratio = v !== null && s !== null && s > 0 ? v / s : v === 0 && s === 0 ? 0 : null;
  const limit = target;
  const met = ratio === null ? (v !== null && s !== null && v <= s * limit) : ratio <= limit + 1e-12;
  return { metric: label, unit, vigil: v, serf: s, ratio: ratio === null ? null : round(ratio, 3),
           target: `<= ${limit === 1 ? '' : limit + ' x '}serf`, met };
}

function table(result) {
  const v = result.vigil;
  const s = result.serf;
  const rows = [
    row('RSS per agent', v.idle.rss_kb.mean, s.idle.rss_kb.mean, 0.25, 'kB'),
    row('CPU per agent', v.idle.cpu_percent_of_core.mean, s.idle.cpu_percent_of_core.mean, 0.5, '% of a core'),
    row('bytes per second per agent', v.idle.bytes_per_s_per_agent, s.idle.bytes_per_s_per_agent, 1, 'B/s'),
    row('detection, all survivors, median', v.detection.all_survivors_ms.median, s.detection.all_survivors_ms.median, 1, 'ms'),
    row('detection, all survivors, p99', v.detection.all_survivors_ms.p99, s.detection.all_survivors_ms.p99, 1, 'ms'),
  ];
  if (v.loss && s.loss) {
    rows.push(row('false deaths under loss', v.loss.false_deaths, s.loss.false_deaths, 1, 'views'));
    rows.push(row('accusations refuted under loss', v.loss.refutations, s.loss.refutations, 1, 'count'));
  }
  return rows;
}

function printTable(result, rows) {
  const c = result.config;
  const lines = [];
  lines.push(`vigil vs serf: ${c.agents} agents of each kind, LAN profile, loopback in a network namespace;`);
  lines.push(`kinds run one after the other on a shared ${result.machine.cores}-core machine ` +
             `(load average ${result.machine.loadavg_1m_at_start} at start).`);
  if (result.vigil.loss)
    lines.push(`loss phase: ${c.loss_percent} % random UDP loss for ${c.loss_minutes} min; detection: ${c.kills} kill -9 trials per kind.`);
  const head = ['metric', 'unit', 'vigil', 'serf', 'vigil/serf', 'target', ''];
  const body = rows.map((r) => [r.metric, r.unit, String(r.vigil), String(r.serf), r.ratio === null ? 'n/a' : r.ratio.toFixed(3),
                                r.target, r.met ? 'met' : 'NOT MET']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const fmt = (cells) => cells.map((x, i) => (i >= 2 && i <= 4 ? x.padStart(widths[i]) : x.padEnd(widths[i]))).join('  ').trimEnd();
  lines.push('', fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...body.map(fmt));
  console.log(lines.join('\n'));
}

function gitDescribe() {
  const r = spawnSync('git', ['-C', repo, 'describe', '--always', '--dirty'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown';
}

async function inner(o) {
  let stopping = false;
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    log(`${sig}: killing agents`);
    process.exit(130);  // the 'exit' handlers kill every agent
  });
  nftSetup();
  const serfVersion = (spawnSync(o.serf, ['version'], { encoding: 'utf8' }).stdout || '').split('\n')[0];
  const result = {
    benchmark: 'vigil agent vs serf agent',
    date: new Date().toISOString(),
    machine: { cores: os.cpus().length, cpu: os.cpus()[0] && os.cpus()[0].model, loadavg_1m_at_start: round(os.loadavg()[0], 2),
               note: 'shared machine; the kinds run one after the other, never together' },
    versions: { vigil: o.vigil, vigil_tree: gitDescribe(), serf: serfVersion },
    config: { agents: o.agents, profile: 'lan', idle_seconds: o.idleSeconds, settle_seconds: o.settleSeconds, kills: o.kills,
              loss_minutes: o.lossMinutes, loss_percent: o.lossPercent },
    method: {
      rss: 'VmRSS from /proc/<pid>/status, sampled every 5 s over the idle window, mean per agent',
      cpu: 'utime+stime from /proc/<pid>/stat over the idle window, percent of one core',
      bytes: 'nft counters on the output hook of the namespace lo: UDP+TCP packets (IP headers included) leaving ' +
             'or entering the kind\'s gossip ports, each packet once; HTTP/RPC polling is on other ports',
      detection: 'kill -9 at t0; per survivor, arrival of its own event line (vigil: "dead <victim>", serf: ' +
                 '"EventMemberFailed: <victim>"); all_survivors = the last survivor; confirmed by each view ' +
                 '(GET /v1/members state dead, serf members status failed); victim restarted and rejoined after each ' +
                 'trial; p99 by nearest rank (with fewer than 100 trials it is the largest)',
      loss: 'nft rule "meta l4proto udp numgen random mod 100 < P drop" on output in the namespace; every agent ' +
            'stays alive, so false_deaths counts (observer, member) views declaring a live member dead/failed, ' +
            'refutations the accusations a live member refuted (vigil_refutations_total; serf "Refuting a ... ' +
            'message" log lines), failed_probes the probes that ended in a suspicion (vigil_probes_failed_total; ' +
            'memberlist "Suspect X has failed, no acks received")',
    },
  };
  for (const kind of o.only ? [o.only] : ['vigil', 'serf']) result[kind] = await runKind(kind, o);
  if (!o.only) {
    result.targets = table(result);
    result.ratios = Object.fromEntries(result.targets.map((r) => [r.metric, r.ratio]));
  }
  mkdirSync(path.dirname(o.out), { recursive: true });
  writeFileSync(o.out, JSON.stringify(result, null, 2) + '\n');
  log(`wrote ${o.out}`);
  if (!o.only) printTable(result, result.targets);
  else console.log(JSON.stringify(result[o.only], null, 2));
  process.exit(0);
}

if (opts.inner) await inner(opts);
else await outer(opts);
