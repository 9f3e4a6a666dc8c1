#!/usr/bin/env node
// Side-by-side benchmark of `vigil agent` against HashiCorp memberlist as shipped in `serf agent`,
// as a curve over cluster sizes: N agents of each kind, LAN profile, on loopback inside a network
// namespace this script creates. Needs root (network namespace, nft). Not a pass/fail test: it
// reports numbers, their spread over repeats, and ratios.
//
// The outer process checks the tools, creates the namespace and re-runs itself inside it; on exit or
// Ctrl-C it kills whatever still runs in the namespace and deletes it. The inner process runs one
// point (one kind, one N) at a time, so the two kinds never compete for the CPU, and interleaves
// the points so that the machine's drift over a long run hits both kinds alike.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { MAX_AGENTS, nftSetup } from './net.mjs';
import { markdown } from './plot.mjs';
import { runPoint } from './point.mjs';
import { round, spread } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');

const USAGE = `usage: node tests/bench/vs-serf/vs-serf.mjs [options]   (as root)

Benchmarks N vigil agents against N serf agents (LAN profile both), for each N of --agents, on
loopback inside a network namespace it creates and deletes. One kind runs at a time; each repeat
runs every N with both kinds, alternating which kind goes first. Per point (one kind, one N):
  idle        RSS and PSS (/proc/PID/smaps_rollup) and CPU (utime+stime) per agent, bytes/s per
              agent on the gossip ports
  join        one more agent joins through one member: time until every (sampled) member's view
              lists it alive
  detection   kill -9 one agent, time until every survivor marks it dead (vigil) / failed (serf)
  loss        random UDP loss for a while: live agents marked dead/failed, accusations refuted
Reports the median and range (min-max) over the repeats of every metric, and vigil/serf ratios of
the medians. tests/bench/vs-serf/plot.mjs turns the JSON into a Markdown table and an SVG plot.

options:
  --vigil PATH            vigil binary                                  (default build/bin/vigil)
  --serf PATH             serf binary (installed with apt-get if absent) (default serf on PATH)
  --out PATH              JSON result, rewritten after every point      (default build/vs-serf.json)
  --agents N[,N...]       agents of each kind, one point per N, 3-${MAX_AGENTS}    (default 20)
  --repeats R             runs of every point, interleaved              (default 3)
  --idle-seconds S        idle measurement window                       (default 60)
  --settle-seconds S      quiet time after the agents agree, before measuring (default 10)
  --kills K               kill -9 trials per point (victim restarted after each) (default 5)
  --detect-timeout S      bound on one detection trial                  (default 120)
  --join-timeout S        bound on the late joiner's trial              (default 60)
  --observers K|all       members whose views are polled for the late joiner and to confirm
                          the end of each trial, spread evenly over the N (default 50)
  --poll-concurrency C    view requests (HTTP, serf members) at once     (default 4)
  --poll-rate R           view requests per second at most              (default 40)
  --start-concurrency C   agents starting at once, each joining through the seeds (default 8)
  --start-timeout S       bound on one agent's start and join           (default 60)
  --start-wave W          start the agents in waves of W, each once all running agents agree
                          and their gossip has settled, and the machine is
                          less than half busy
                          (0: one stream)                               (default 0)
  --loss-minutes M        length of the loss phase, 0 for none          (default 5)
  --loss-percent P        UDP datagrams dropped at random               (default 15)
  --only vigil|serf       run one kind only (no ratios)
  --serf-max N            skip Serf points above N agents (recorded as skipped): on a small
                          machine Serf stops holding well before vigil does (default: none)
  --help                  this text`;

const DEFAULTS = {
  vigil: path.join(repo, 'build/bin/vigil'), serf: 'serf', out: path.join(repo, 'build/vs-serf.json'),
  agents: '20', repeats: '3', 'idle-seconds': '60', 'settle-seconds': '10', kills: '5', 'detect-timeout': '120',
  'join-timeout': '60', observers: '50', 'poll-concurrency': '4', 'poll-rate': '40', 'start-concurrency': '8',
  'start-timeout': '60', 'start-wave': '0', 'loss-minutes': '5', 'loss-percent': '15', only: '', 'serf-max': '', inner: '',
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
    if (value === undefined || (eq < 0 && value.startsWith('--'))) fail(`--${key}: missing value`);
    o[key] = value;
  }
  const check = (key, text, min, max, integer) => {
    const v = Number(text);
    if (text.trim() === '' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v)))
      fail(`--${key}: expected ${integer ? 'an integer' : 'a number'} in [${min}, ${max}], got '${text}'`);
    return v;
  };
  const num = (key, min, max, integer) => check(key, o[key], min, max, integer);
  // The port plan gives each kind MAX_AGENTS + 1 protocol ports and as many HTTP/RPC ports.
  o.agentList = [...new Set(o.agents.split(',').map((s) => check('agents', s, 3, MAX_AGENTS, true)))].sort((a, b) => a - b);
  o.repeatCount = num('repeats', 1, 100, true);
  o.idleSeconds = num('idle-seconds', 1, 3600, false);
  o.settleSeconds = num('settle-seconds', 0, 600, false);
  o.kills = num('kills', 0, 100, true);
  o.detectTimeout = num('detect-timeout', 5, 1200, false);
  o.joinTimeout = num('join-timeout', 5, 1200, false);
  if (o.observers !== 'all' && !/^\d+$/.test(o.observers)) fail(`--observers: expected all or a count, got '${o.observers}'`);
  o.observers = o.observers === 'all' ? 0 : num('observers', 1, MAX_AGENTS, true);
  o.pollConcurrency = num('poll-concurrency', 1, 64, true);
  o.pollRate = num('poll-rate', 1, 10000, false);
  o.startConcurrency = num('start-concurrency', 1, 200, true);
  o.startTimeout = num('start-timeout', 5, 1200, false);
  o.startWave = num('start-wave', 0, MAX_AGENTS, true);
  o.lossMinutes = num('loss-minutes', 0, 120, false);
  o.lossPercent = num('loss-percent', 0, 99, true);
  o.serfMax = o['serf-max'] === '' ? Infinity : num('serf-max', 3, MAX_AGENTS, true);
  if (o.only && o.only !== 'vigil' && o.only !== 'serf') fail(`--only: expected vigil or serf, got '${o.only}'`);
  for (const k of ['vigil', 'out']) o[k] = path.resolve(o[k]);
  return o;
}

const opts = parseOptions(process.argv.slice(2));
const log = (msg) => process.stderr.write(`[vs-serf ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

// ------------------------------------------------------------------------------------------ outer

function have(cmd) { return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0; }

function ensurePackage(cmd, pkg) {
  if (have(cmd)) return;
  log(`'${cmd}' not found: installing Debian package '${pkg}' with apt-get`);
  const r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', pkg], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0 || !have(cmd))
    fail(`cannot install '${pkg}' (apt-get install -y ${pkg} failed); install it and run again`, 1);
}

// Rough resident sizes (serf about 15 MB, vigil about 8 MB) with a margin: a warning, not a limit.
function warnMemory(o) {
  const n = Math.max(...o.agentList) + 1;
  const needMb = n * (o.only === 'vigil' ? 12 : 25);
  const m = readFileSync('/proc/meminfo', 'utf8').match(/MemAvailable:\s+(\d+)/);
  if (m && needMb > Number(m[1]) / 1024)
    log(`warning: ${n} agents of one kind may need about ${needMb} MB; ${Math.round(Number(m[1]) / 1024)} MB available`);
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
  warnMemory(o);

  const ns = `vs-serf-${process.pid}`;
  let cleaned = false;
  const cleanup = () => {
    if (cleaned) return;
    cleaned = true;
    // Everything in the namespace was started by this run: the inner process, its agents and any
    // `serf members` still running. Killed by namespace, so none is missed however many there are.
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
    if (k in DEFAULTS && k !== 'inner' && v !== '') args.push(`--${k}`, k === 'observers' && v === 0 ? 'all' : String(v));
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

// The scalar metrics of one point that the summary gives a median and range for.
const METRICS = {
  bytes_per_s: { label: 'bytes/s per agent, idle', unit: 'B/s', get: (r) => r.idle?.bytes_per_s_per_agent },
  cpu_percent: { label: 'CPU per agent, idle', unit: '% of a core', get: (r) => r.idle?.cpu_percent_of_core.mean },
  rss_mb: { label: 'RSS per agent', unit: 'MB', get: (r) => r.idle && r.idle.rss_kb.mean / 1024 },
  pss_mb: { label: 'PSS per agent', unit: 'MB', get: (r) => r.idle && r.idle.pss_kb.mean / 1024 },
  join_s: { label: 'late joiner alive in every sampled view', unit: 's', get: (r) => r.join && r.join.all_ms / 1000 },
  join_after_s: { label: 'late joiner: the last sampled view changed no earlier than', unit: 's',
                  get: (r) => r.join && r.join.all_after_ms / 1000 },
  join_events_s: { label: 'late joiner alive in every member\'s event lines', unit: 's',
                   get: (r) => r.join && r.join.events_all_ms / 1000 },
  detection_s: { label: 'kill -9 to dead in every survivor, median of the trials', unit: 's',
                 get: (r) => r.detection && r.detection.all_survivors_ms.median / 1000 },
  detection_first_s: { label: 'kill -9 to dead in the first survivor, median of the trials', unit: 's',
                       get: (r) => r.detection && r.detection.first_survivor_ms.median / 1000 },
  start_s: { label: 'start of N agents until all agree', unit: 's',
             get: (r) => r.start && r.start.agreement_s !== undefined ? r.start.seconds + r.start.agreement_s : null },
  idle_false_deaths: { label: 'live members declared dead while idle', unit: 'views', get: (r) => r.idle?.false_deaths },
  false_deaths: { label: 'live members declared dead under loss', unit: 'views', get: (r) => r.loss?.false_deaths },
  refutations: { label: 'accusations refuted under loss', unit: 'count', get: (r) => r.loss?.refutations },
};

function summarise(runs, o, kinds) {
  return o.agentList.map((n) => {
    const point = { agents: n };
    for (const kind of kinds) {
      const mine = runs.filter((r) => r.agents === n && r.kind === kind && !r.error && !r.skipped);
      point[kind] = Object.fromEntries(Object.entries(METRICS).map(([key, m]) => [key, spread(mine.map((r) => {
        const v = m.get(r);
        return typeof v === 'number' ? v : null;
      }))]));
      point[kind].failed_runs = runs.filter((r) => r.agents === n && r.kind === kind && r.error).length;
      point[kind].skipped_runs = runs.filter((r) => r.agents === n && r.kind === kind && r.skipped).length;
    }
    if (kinds.length === 2)
      point.ratio = Object.fromEntries(Object.keys(METRICS).map((key) => {
        const v = point.vigil[key].median;
        const s = point.serf[key].median;
        return [key, v !== null && s !== null && s > 0 ? round(v / s, 3) : null];
      }));
    return point;
  });
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
    process.exit(130);  // the 'exit' handler in agents.mjs kills every agent
  });
  nftSetup();
  const kinds = o.only ? [o.only] : ['vigil', 'serf'];
  const serfVersion = (spawnSync(o.serf, ['version'], { encoding: 'utf8' }).stdout || '').split('\n')[0];
  const result = {
    benchmark: 'vigil agent vs serf agent, scaling curve',
    date: new Date().toISOString(),
    machine: { cores: os.cpus().length, cpu: os.cpus()[0] && os.cpus()[0].model, loadavg_1m_at_start: round(os.loadavg()[0], 2),
               memory_mb: Math.round(os.totalmem() / 2 ** 20),
               note: 'one point (kind, N) at a time, never two kinds together; repeats interleaved' },
    versions: { vigil: o.vigil, vigil_tree: gitDescribe(), serf: serfVersion },
    config: { agents: o.agentList, repeats: o.repeatCount, profile: 'lan', idle_seconds: o.idleSeconds,
              settle_seconds: o.settleSeconds, kills: o.kills, observers: o.observers || 'all',
              poll_concurrency: o.pollConcurrency, poll_rate_per_s: o.pollRate, start_concurrency: o.startConcurrency,
              start_wave: o.startWave || null, serf_max: Number.isFinite(o.serfMax) ? o.serfMax : null,
              loss_minutes: o.lossMinutes, loss_percent: o.lossPercent },
    method: {
      order: 'for each repeat, for each N ascending, both kinds one after the other; odd repeats run vigil first, ' +
             'even repeats serf first',
      start: 'agents 0-2 are seeds (agent 0 alone below 6 agents), started one by one; every other agent joins ' +
             'through the seeds, at most start_concurrency starting at once and 20 a second; the agents agree ' +
             'when every agent\'s own event lines show every other alive, confirmed by the sampled views',
      rss_pss: 'Rss and Pss from /proc/<pid>/smaps_rollup, sampled every 5 s over the idle window, mean per agent; ' +
               'PSS shares each page among the processes that map it (the binary and libraries are shared by N agents)',
      cpu: 'utime+stime from /proc/<pid>/stat over the idle window, percent of one core',
      bytes: 'nft counters on the output hook of the namespace lo: UDP+TCP packets (IP headers included) leaving ' +
             'or entering the kind\'s gossip ports, each packet once; HTTP/RPC polling is on other ports',
      join: 'agent N is started joining through agent floor(N/2); each sampled member\'s view (GET /v1/members; ' +
            'serf members -name) is polled, poll_concurrency at once and poll_rate a second at most, each pending ' +
            'one at most every 100 ms, until it lists the newcomer alive; times count from the newcomer\'s spawn; ' +
            'all_ms is the arrival of the answer that showed it to the last of the sampled members (an upper ' +
            'bound), all_after_ms the sending of the last poll of the sampled members that did not (a lower bound ' +
            'on the last one): the gap is the polls\' resolution, wider for serf, whose every poll starts a ' +
            'serf members process. events_all_ms is the same from every member\'s own event ' +
            'line (vigil "join", serf "EventMemberJoin"), with no polling and no sample. The newcomer stays for the ' +
            'later phases',
      detection: 'kill -9 at t0; per survivor, arrival of its own event line (vigil: "dead <victim>", serf: ' +
                 '"EventMemberFailed: <victim>"); all_survivors = the last survivor, over every survivor; ' +
                 'confirmed by the sampled views (state dead / status failed); victim restarted and rejoined after ' +
                 'each trial; p99 by nearest rank (with fewer than 100 trials it is the largest)',
      loss: 'nft rule "meta l4proto udp numgen random mod 100 < P drop" on output in the namespace; every agent ' +
            'stays alive, so false_deaths counts (observer, member) views declaring a live member dead/failed, ' +
            'refutations the accusations a live member refuted (vigil_refutations_total; serf "Refuting a ... ' +
            'message" log lines), failed_probes the probes that ended in a suspicion (vigil_probes_failed_total; ' +
            'memberlist "Suspect X has failed, no acks received")',
      summary: 'per N and kind, median and range (min-max) over the repeats that completed; ratio = vigil median / ' +
               'serf median',
    },
    metrics: Object.fromEntries(Object.entries(METRICS).map(([k, m]) => [k, { label: m.label, unit: m.unit }])),
    runs: [],
  };
  const write = () => {
    result.summary = summarise(result.runs, o, kinds);
    mkdirSync(path.dirname(o.out), { recursive: true });
    writeFileSync(o.out, JSON.stringify(result, null, 2) + '\n');
  };
  const total = o.repeatCount * o.agentList.length * kinds.length;
  const tRun = performance.now();
  let done = 0;
  for (let repeat = 1; repeat <= o.repeatCount; ++repeat) {
    for (const n of o.agentList) {
      const order = repeat % 2 ? kinds : [...kinds].reverse();
      for (const kind of order) {
        const eta = done ? ` (about ${Math.round(((performance.now() - tRun) / done) * (total - done) / 60000)} min left)` : '';
        log(`point ${done + 1}/${total}: repeat ${repeat}/${o.repeatCount}, N=${n}, ${kind}${eta}`);
        if (kind === 'serf' && n > o.serfMax) {
          log(`serf at N=${n}: skipped (--serf-max ${o.serfMax})`);
          result.runs.push({ repeat, first: order[0] === kind, kind, agents: n, skipped: `above --serf-max ${o.serfMax}` });
          ++done;
          write();
          continue;
        }
        const t0 = performance.now();
        const r = await runPoint(kind, n, o, log);
        result.runs.push({ repeat, first: order[0] === kind, wall_s: round((performance.now() - t0) / 1000), ...r });
        ++done;
        write();
      }
    }
  }
  result.wall_s = round((performance.now() - tRun) / 1000);
  write();
  log(`wrote ${o.out} (${result.runs.length} points in ${Math.round(result.wall_s / 60)} min)`);
  console.log(markdown(result));
  const failed = result.runs.filter((r) => r.error).length;
  if (failed) log(`${failed} of ${result.runs.length} points failed; their errors are in ${o.out}`);
  process.exit(failed ? 1 : 0);
}

if (opts.inner) await inner(opts);
else await outer(opts);
