// The two kinds of agent: how to start one, when it has joined, how to read its view, and what its
// output lines say. Each agent's own event lines also keep a cheap view of the cluster (`seen`),
// which lets the benchmark wait for hundreds of agents without polling each one over and over.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { httpGet } from '../../agent/harness.mjs';
import { PLAN } from './net.mjs';

export function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);  // utime + stime, all threads
}

// RSS counts every shared page in full in every process; PSS divides each page among the processes
// that map it, so N agents' PSS sums to what they really take together.
export function memoryKb(pid) {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const get = (key) => Number((text.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm')) || [0, NaN])[1]);
  return { rss: get('Rss'), pss: get('Pss') };
}

const kAgentNice = 19;
export const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

// Only these event kinds are kept as a list; joins and updates (N² lines while N agents start) only
// update `seen`.
const KEPT = new Set(['suspect', 'dead', 'failed', 'refuted', 'failed_probe', 'tcp_saved', 'left', 'leave']);

export function kindSpec(kind, o) {
  const p = PLAN[kind];
  if (kind === 'vigil') {
    return {
      kind, dead: 'dead', prefix: 'v',
      command(i, joins) {
        const args = ['agent', '--name', `v${i}`, '--bind', `127.0.0.1:${p.gossip + i}`,
                      '--http', `127.0.0.1:${p.control + i}`, '--profile', 'lan', '--web', 'none'];
        if (joins.length) args.push('--join', joins.map((j) => `127.0.0.1:${p.gossip + j}`).join(','));
        return [o.vigil, args];
      },
      joinedLine: /join attempt \S+ succeeded|join: already a member/,
      runningLine: null,
      async ready(a) {
        if (!a.joined && a.joins.length) return false;
        try { return (await httpGet(p.control + a.index, '/v1/self', 1000)).status === 200; } catch { return false; }
      },
      async view(a) {
        const list = JSON.parse((await httpGet(p.control + a.index, '/v1/members', 5000)).body);
        return Object.fromEntries(list.map((m) => [m.name, m.state]));
      },
      // Without --quiet the agent prints one line per change of its view: "[self] time dead member #inc".
      event(line) {
        const m = line.match(/^\[\S+\]\s+\S+ (\w+) (\S+) #/);
        return m ? { kind: m[1], member: m[2] } : null;
      },
      state: { join: 'alive', alive: 'alive', suspect: 'suspect', dead: 'dead', left: 'left', removed: 'gone' },
      async metrics(a) {
        const body = (await httpGet(p.control + a.index, '/metrics', 5000)).body;
        const get = (name) => Number((body.match(new RegExp(`^${name} (\\d+)`, 'm')) || [0, 0])[1]);
        return { suspicions: get('vigil_suspicions_total'), refutations: get('vigil_refutations_total'),
                 failed_probes: get('vigil_probes_failed_total') };
      },
    };
  }
  return {
    kind, dead: 'failed', prefix: 's',
    command(i, joins) {
      const args = ['agent', `-node=s${i}`, `-bind=127.0.0.1:${p.gossip + i}`, `-rpc-addr=127.0.0.1:${p.control + i}`,
                    '-profile=lan', '-log-level=info'];
      for (const j of joins) args.push(`-join=127.0.0.1:${p.gossip + j}`);
      return [o.serf, args];
    },
    joinedLine: /Join completed/,
    runningLine: /Serf agent running!/,
    async ready(a) { return a.running && (a.joined || !a.joins.length); },
    // `only`: ask for one member (serf members -name), which keeps the answer small.
    async view(a, only) {
      const args = ['members', `-rpc-addr=127.0.0.1:${p.control + a.index}`, '-format=json'];
      if (only) args.push(`-name=^${only}$`);
      const out = await new Promise((resolve, reject) => {
        const c = spawn(o.serf, args, { stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
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
    state: { join: 'alive', failed: 'failed', leave: 'left', reap: 'gone' },
    metrics: null,
  };
}

// Every agent this process started, so that one exit handler can kill them all.
export const running = new Set();
process.on('exit', () => { for (const a of running) a.kill(); });

export class Agent {
  constructor(spec, index, joins) {
    this.spec = spec;
    this.index = index;
    this.joins = joins;
    this.name = spec.prefix + index;
    this.start();
  }

  start() {
    const [cmd, args] = this.spec.command(this.index, this.joins);
    this.log = '';
    this.events = [];  // { t (ms, performance.now), kind, member }, kinds in KEPT
    this.seen = new Map();  // member -> { state, t }, from this agent's own event lines
    this.watch = null;  // (event) => void, for a trial that wants every event as it arrives
    this.joined = false;
    this.running = false;
    this.alive = true;
    this.startedAt = performance.now();
    this.child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.pid = this.child.pid;
    // Agents of both kinds run at the lowest priority: on a saturated machine the harness that
    // reads their event lines and timestamps them must not be the process that waits.
    try { os.setPriority(this.pid, kAgentNice); } catch { /* gone already, or not permitted */ }
    running.add(this);
    // One unfinished line per stream: an agent's event lines come in batches that a pipe read can
    // cut anywhere, and a line of stderr must not land in the middle of one of stdout.
    const partial = { stdout: '', stderr: '' };
    const onData = (stream, chunk) => {
      const t = performance.now();  // arrival time: both kinds write their event lines unbuffered
      const text = partial[stream] + chunk.toString();
      const lines = text.split('\n');
      partial[stream] = lines.pop();
      for (const line of lines) {
        if (!this.joined && this.spec.joinedLine.test(line)) this.joined = true;
        if (!this.running && this.spec.runningLine && this.spec.runningLine.test(line)) this.running = true;
        const e = this.spec.event(line);
        if (!e) continue;
        const ev = { t, ...e };
        const state = this.spec.state[e.kind];
        if (state === 'gone') this.seen.delete(e.member);
        else if (state) this.seen.set(e.member, { state, t });
        if (KEPT.has(e.kind)) this.events.push(ev);
        if (this.watch) this.watch(ev);
      }
      this.log = (this.log + chunk.toString()).slice(-4000);
    };
    this.child.stdout.on('data', (chunk) => onData('stdout', chunk));
    this.child.stderr.on('data', (chunk) => onData('stderr', chunk));
    this.child.on('exit', (code, signal) => { this.alive = false; this.exit = signal || code; running.delete(this); });
    this.child.on('error', (e) => { this.alive = false; this.log += `\nspawn error: ${e.message}`; running.delete(this); });
  }

  kill() {
    if (this.alive) try { process.kill(this.pid, 'SIGKILL'); } catch { /* gone */ }
  }
}
