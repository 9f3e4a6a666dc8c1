// Three hosts, each a network namespace with its own address on a bridge (veth pairs, not
// loopback), its own /etc/hosts (ip netns exec mounts /etc/netns/NS/hosts over it), one agent
// on the lan profile. Hosts 2 and 3 bind and join by host name; host 3 loses every tenth
// incoming UDP datagram to an nftables rule. Every view must converge, a kill -9 must be seen by both
// survivors within the lan profile's bound, and nobody alive may be declared dead meanwhile.
// Needs root and `ip netns`; skips otherwise.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { check, parseArgs, waitFor } from './harness.mjs';
import { addNamespace, namespaceName, sh, skipUnlessNetns, teardownNamespaces } from './netns.mjs';

const args = parseArgs(process.argv.slice(2));

skipUnlessNetns('the multi-host test');
if (spawnSync('nft', ['--version']).status !== 0)
  throw new Error('nft not found: install nftables (scripts/setup.sh does)');

const subnet = `10.231.${1 + Math.floor(Math.random() * 250)}`;
const sw = namespaceName('sw');  // holds the bridge: the root namespace's firewall stays out of it
const hosts = [1, 2, 3].map((i) => ({ i, ns: namespaceName(`h${i}`), name: `host${i}`, ip: `${subnet}.${i}` }));
const lossy = hosts[2];
const victim = hosts[1];
const port = 7946;
const httpPort = 8081;
const agents = [];
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));
const bail = (err) => {
  console.error(err && err.stack ? err.stack : err);
  for (const a of agents) console.error(`--- ${a.name} ---\n${a.log.slice(-3000)}`);
  process.exit(1);
};
process.on('uncaughtException', bail);
process.on('unhandledRejection', bail);

// ------------------------------------------------------------------------------- the network
const t0 = Date.now();
addNamespace('sw');
sh('ip', ['-n', sw, 'link', 'add', 'br0', 'type', 'bridge']);
sh('ip', ['-n', sw, 'link', 'set', 'br0', 'up']);
for (const h of hosts) {
  addNamespace(`h${h.i}`);
  sh('ip', ['-n', sw, 'link', 'add', `p${h.i}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', h.ns]);
  sh('ip', ['-n', sw, 'link', 'set', `p${h.i}`, 'master', 'br0', 'up']);
  sh('ip', ['-n', h.ns, 'addr', 'add', `${h.ip}/24`, 'dev', 'eth0']);
  sh('ip', ['-n', h.ns, 'link', 'set', 'eth0', 'up']);
  sh('ip', ['-n', h.ns, 'link', 'set', 'lo', 'up']);
  mkdirSync(`/etc/netns/${h.ns}`, { recursive: true });
  writeFileSync(`/etc/netns/${h.ns}/hosts`,
                `127.0.0.1 localhost\n${hosts.map((o) => `${o.ip} ${o.name}`).join('\n')}\n`);
}
for (const h of hosts)
  check(sh('ip', ['netns', 'exec', h.ns, 'getent', 'hosts', 'host1']).startsWith(`${hosts[0].ip} `),
        `${h.name} (${h.ns}) resolves host1 to ${hosts[0].ip} through its own /etc/hosts`);

sh('ip', ['netns', 'exec', lossy.ns, 'nft', '-f', '-'], `
table inet vigil_loss {
  chain input {
    type filter hook input priority 0; policy accept;
    meta l4proto udp counter
    meta l4proto udp numgen inc mod 10 == 0 counter drop
  }
}
`);
// Every tenth datagram rather than a random tenth: a three-member cluster receives only a few
// dozen datagrams in the test, too few for random loss to drop any with certainty, and a fixed
// pattern lets the test check the drop count exactly.
check(/numgen inc mod 10 0/.test(sh('ip', ['netns', 'exec', lossy.ns, 'nft', 'list', 'table', 'inet', 'vigil_loss'])),
      `${lossy.name} drops every tenth incoming UDP datagram (nftables)`);

// ------------------------------------------------------------------------------- the agents
function startAgent(h) {
  const flags = ['agent', '--name', h.name, '--profile', 'lan', '--web', 'none', '--http', `127.0.0.1:${httpPort}`];
  // Host 1 binds its address; the others bind and join by name.
  if (h.i === 1) flags.push('--bind', `${h.ip}:${port}`);
  else flags.push('--bind', `${h.name}:${port}`, '--join', `host1:${port}`, '--retry-interval', '1s');
  const child = spawn('ip', ['netns', 'exec', h.ns, args.vigil, ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
  const agent = { ...h, child, log: '', alive: true };
  child.stdout.on('data', (c) => { agent.log += c; });
  child.stderr.on('data', (c) => { agent.log += c; });
  child.on('exit', () => { agent.alive = false; });
  agents.push(agent);
  return agent;
}

function members(agent) {
  return new Promise((resolve) => {
    execFile('ip', ['netns', 'exec', agent.ns, args.vigil, 'members', '--http', `127.0.0.1:${httpPort}`, '--format', 'json'],
             { encoding: 'utf8', timeout: 3000 }, (err, stdout) => {
               if (err) return resolve(null);
               try { resolve(Object.fromEntries(JSON.parse(stdout).map((m) => [m.name, m]))); } catch { resolve(null); }
             });
  });
}

const falseDeaths = [];
let suspicions = 0;
// One round of every running agent's view; records any live agent seen dead.
async function views() {
  const running = agents.filter((a) => a.alive);
  const all = await Promise.all(running.map((a) => members(a)));
  const out = new Map();
  running.forEach((a, k) => {
    if (!all[k]) return;
    out.set(a.name, all[k]);
    for (const other of running) {
      const seen = all[k][other.name]?.state;
      if (seen === 'dead' && other.alive) falseDeaths.push(`${a.name} saw ${other.name} dead`);
      if (seen === 'suspect') ++suspicions;
    }
  });
  return out;
}

for (const h of hosts) startAgent(h);
const startedAt = Date.now();
await waitFor(async () => {
  for (const a of agents) if (!a.alive) throw new Error(`${a.name} exited: ${a.log}`);
  const v = await views();
  return v.size === 3 && agents.every((a) => agents.every((o) => o === a || v.get(a.name)[o.name]?.state === 'alive'));
}, 20000, 'all three views to show all three alive', 200);
const convergedMs = Date.now() - startedAt;
console.log(`# converged ${convergedMs} ms after the agents started`);
check(true, 'every view converges: each agent sees the other 2 alive (its own list leaves itself out)');
for (const a of agents.slice(1))
  check(/join attempt \d+ succeeded: .*:7946 answered/.test(a.log) &&
        new RegExp(`protocol ${subnet.replace(/\./g, '\\.')}\\.${a.i}:${port}`).test(a.log),
        `${a.name} bound ${a.ip} and joined host1 by name`);

// Ten seconds under loss: the lossy host's probes are lost 1 in 10, yet nobody is declared dead.
const quietUntil = Date.now() + 10000;
await waitFor(async () => { await views(); return Date.now() >= quietUntil; }, 15000, 'ten seconds under loss', 250);
check(falseDeaths.length === 0, `no false deaths in 10 s losing every tenth datagram at ${lossy.name} (suspect sightings: ${suspicions})`);

// ------------------------------------------------------------------------------- a crash
// The bound for the lan profile, N = 3 (T = probe interval):
//  - every survivor probes each member once per round-robin pass; across two passes a member
//    can wait up to 2(N-1)-1 probe periods, and the probe itself ends within a period: (2N-1)T;
//  - then the suspicion timeout: suspicion_mult * max(1, log10 N) * T = 4 T; with N - 2 fewer
//    than suspicion_mult - 2 expected confirmations, Lifeguard starts at that minimum, not at
//    suspicion_max_timeout_mult times it;
//  - and one second for the verdict to reach the other survivor by gossip.
// The profile as host 1's agent reports it in its live view's snapshot (read inside its namespace).
const wsPath = createRequire(import.meta.url).resolve('ws');
const readConfig = `const WebSocket = require(${JSON.stringify(wsPath)}); ` +
  `const ws = new WebSocket('ws://127.0.0.1:${httpPort}/ws', 'vigil.v1'); ` +
  `ws.on('message', (d) => { const m = JSON.parse(d); ` +
  `if (m.type === 'snapshot') { process.stdout.write(JSON.stringify(m.config)); process.exit(0); } }); ` +
  `setTimeout(() => process.exit(1), 5000);`;
const config = JSON.parse(sh('ip', ['netns', 'exec', hosts[0].ns, process.execPath, '-e', readConfig]));
check(config.profile === 'lan', `the agents run the lan profile (probe interval ${config.probe_interval_ms} ms)`);
const T = config.probe_interval_ms;
const N = 3;
const suspicionMin = config.suspicion_mult * Math.max(1, Math.log10(N)) * T;
const suspicion = N - 2 < config.suspicion_mult - 2 ? suspicionMin : suspicionMin * config.suspicion_max_timeout_mult;
const boundMs = (2 * N - 1) * T + suspicion + 1000;
console.log(`# bound: (2N-1)T + suspicion + gossip = ${(2 * N - 1) * T} + ${suspicion} + 1000 = ${boundMs} ms`);

const dead = agents.find((a) => a.name === victim.name);
dead.child.kill('SIGKILL');
await waitFor(() => !dead.alive, 2000, `${dead.name} to exit`);
const killedAt = Date.now();
const survivors = agents.filter((a) => a.alive);
const seenDeadAt = {};
await waitFor(async () => {
  const v = await views();
  for (const s of survivors)
    if (!seenDeadAt[s.name] && v.get(s.name)?.[dead.name]?.state === 'dead') seenDeadAt[s.name] = Date.now() - killedAt;
  return survivors.every((s) => seenDeadAt[s.name] !== undefined);
}, boundMs + 5000, `both survivors to see ${dead.name} dead`, 200);
const detectionMs = Math.max(...Object.values(seenDeadAt));
console.log(`# detection: ${survivors.map((s) => `${s.name} ${seenDeadAt[s.name]} ms`).join(', ')}`);
check(detectionMs <= boundMs, `both survivors see the kill -9 as dead within the bound (${detectionMs} ms <= ${boundMs} ms)`);
check(falseDeaths.length === 0, `no false deaths before that${falseDeaths.length ? ': ' + falseDeaths.join('; ') : ''}`);
const survivorsView = await views();
check(survivors.every((s) => survivors.every((o) => o === s || survivorsView.get(s.name)?.[o.name]?.state === 'alive')),
      'the survivors still see each other alive');

const counts = [...sh('ip', ['netns', 'exec', lossy.ns, 'nft', 'list', 'table', 'inet', 'vigil_loss'])
  .matchAll(/packets (\d+)/g)].map((m) => Number(m[1]));
const [received, dropped] = counts;
console.log(`# nftables dropped ${dropped} of ${received} UDP datagrams at ${lossy.name}; whole test ${Date.now() - t0} ms`);
check(counts.length === 2 && received > 0 && dropped === Math.ceil(received / 10),
      `the loss rule dropped every tenth datagram (${dropped} of ${received})`);
for (const a of agents) if (a.alive) a.child.kill('SIGKILL');
teardownNamespaces();
check(!sh('ip', ['netns', 'list']).includes(namespaceName('')), 'namespaces removed');
console.log('ok - multihost');
