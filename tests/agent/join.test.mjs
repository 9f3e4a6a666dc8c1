// Joining as Serf and Consul do: --join retried every --retry-interval until a seed answers,
// --retry-max attempts before exiting 1, names resolved by the system on every attempt (every
// address tried), and IPv6 literals.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Viewer, check, freePort, getJson, httpGet, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-join-'));
const agents = [];

function startAgent(name, flags, { wrap = null } = {}) {
  const argv = ['agent', '--name', name, '--profile', 'local', '--web', 'none', ...flags];
  const [cmd, cmdArgs] = wrap ? wrap(args.vigil, argv) : [args.vigil, argv];
  const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  const agent = { name, child, log: '', alive: true, code: null, startedAt: Date.now() };
  child.stdout.on('data', (c) => { agent.log += c; });
  child.stderr.on('data', (c) => { agent.log += c; });
  child.on('exit', (code) => { agent.alive = false; agent.code = code; });
  agents.push(agent);
  return agent;
}

async function serving(agent, httpPort, host = '127.0.0.1') {
  await waitFor(async () => {
    if (!agent.alive) throw new Error(`${agent.name} exited: ${agent.log}`);
    try { return (await httpGetAt(host, httpPort, '/v1/self')).status === 200; } catch { return false; }
  }, 10000, `${agent.name} to serve /v1/self`);
}

function httpGetAt(host, port, urlPath) {
  if (host === '127.0.0.1') return httpGet(port, urlPath, 1000);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port }, () => {
      socket.write(`GET ${urlPath} HTTP/1.1\r\nHost: [${host}]:${port}\r\nConnection: close\r\n\r\n`);
    });
    let data = '';
    socket.setTimeout(1000, () => socket.destroy(new Error('timeout')));
    socket.on('data', (c) => { data += c; });
    socket.on('end', () => {
      const status = Number(data.split(' ')[1]);
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
    socket.on('error', reject);
  });
}

async function sees(httpPort, other, state = 'alive') {
  try {
    const list = await getJson(httpPort, '/v1/members');
    return list.some((m) => m.name === other && m.state === state);
  } catch { return false; }
}

function cleanup() { for (const a of agents) if (a.alive) a.child.kill('SIGKILL'); }
const bail = (err) => {
  console.error(err && err.stack ? err.stack : err);
  for (const a of agents) console.error(`--- ${a.name} ---\n${a.log.slice(-3000)}`);
  cleanup();
  process.exit(1);
};
process.on('uncaughtException', bail);
process.on('unhandledRejection', bail);

// ------------------------------------------------------------- bad flags: usage errors (exit 2)
for (const [flags, expected] of [
  [['--join', '127.0.0.1:7946', '--retry-interval', '5'], '--retry-interval'],
  [['--join', '127.0.0.1:7946', '--retry-interval', '1x'], 'unknown unit'],
  [['--join', '127.0.0.1:7946', '--retry-interval', '0s'], '--retry-interval'],
  [['--join', '127.0.0.1:7946', '--retry-max', '-1'], '--retry-max'],
  [['--join', '::1:7946'], 'brackets'],
  [['--join', '[::1:7946'], '[IPV6]:PORT'],
  [['--bind', 'no-such-host.invalid:7946'], 'cannot resolve'],
]) {
  const r = spawnSync(args.vigil, ['agent', '--name', 'x', '--web', 'none', ...flags], { encoding: 'utf8', timeout: 10000 });
  check(r.status === 2 && r.stderr.includes(expected), `${flags.slice(-2).join(' ')}: exit 2 naming ${expected}`);
}

// ----------------------------------------- retry until the seed starts (2 s late, 1 s interval)
const seedPort = await freePort();
const seedHttp = await freePort();
const lateHttp = await freePort();
const intervalMs = 1000;
const late = startAgent('late', ['--bind', `127.0.0.1:${await freePort()}`, '--http', `127.0.0.1:${lateHttp}`,
                                 '--join', `127.0.0.1:${seedPort}`, '--retry-interval', '1s']);
await serving(late, lateHttp);
await waitFor(() => /join attempt 1 failed: 127\.0\.0\.1:\d+: Connection refused; next attempt in 1s/.test(late.log),
              5000, 'the first failed attempt to be logged');
check(true, 'a failed attempt is logged with the seed tried, the reason and the next attempt');
// The scenario itself: the seed comes up 2 s after the joining agent.
await new Promise((r) => setTimeout(r, Math.max(0, late.startedAt + 2000 - Date.now())));
const seedStart = Date.now();
const seed = startAgent('seed', ['--bind', `127.0.0.1:${seedPort}`, '--http', `127.0.0.1:${seedHttp}`]);
await serving(seed, seedHttp);
const viewer = new Viewer({ httpPort: seedHttp });
await viewer.open;
const probeMs = (await viewer.next((m) => m.type === 'snapshot', 5000, 'the seed\'s snapshot')).config.probe_interval_ms;
viewer.close();
await waitFor(async () => (await sees(lateHttp, 'seed')) && (await sees(seedHttp, 'late')), 10000,
              'the late agent and the seed to see each other alive', 20);
const joinLatency = Date.now() - seedStart;
// The next attempt comes at most one interval after the seed is up; two intervals bound it, plus
// half a probe period for starting the seed process and polling.
const joinBound = 2 * intervalMs + probeMs / 2;
console.log(`# join latency after the seed started: ${joinLatency} ms (bound ${joinBound} ms)`);
check(joinLatency <= joinBound, `member within 2 retry intervals of the seed starting (${joinLatency} ms <= ${joinBound} ms)`);
await waitFor(() => /join attempt \d+ succeeded: 127\.0\.0\.1:\d+ answered/.test(late.log), 2000, 'the success log line');
const failures = (late.log.match(/join attempt \d+ failed/g) || []).length;
check(failures >= 2, `${failures} failed attempts before the seed came up, each logged`);
check(!/join attempt/.test(late.log.split(/join attempt \d+ succeeded/)[1]), 'no attempt after the success');

// -------------------------------------------------- --retry-max 2 against nothing: exit 1
const nowhere = await freePort();
const giveUpHttp = await freePort();
const giveUp = startAgent('give-up', ['--bind', `127.0.0.1:${await freePort()}`, '--http', `127.0.0.1:${giveUpHttp}`,
                                      '--join', `127.0.0.1:${nowhere}`, '--retry-max', '2', '--retry-interval', '300ms']);
await waitFor(() => !giveUp.alive, 10000, '--retry-max 2 to give up');
const giveUpMs = Date.now() - giveUp.startedAt;
check(giveUp.code === 1, `exit status 1 after the last attempt (${giveUp.code})`);
check(/join attempt 1\/2 failed: 127\.0\.0\.1:\d+: Connection refused; next attempt in 300ms/.test(giveUp.log),
      'attempt 1/2 logged');
check(/join attempt 2\/2 failed: .*giving up after 2 attempts/.test(giveUp.log), 'attempt 2/2 logged, giving up');
check(!/join attempt 3/.test(giveUp.log), 'no third attempt');
check(/could not join the cluster in 2 attempts/.test(giveUp.log), 'a closing message');
check(giveUpMs >= 300, `one interval passed between the attempts (${giveUpMs} ms in all)`);

// ------------------------------ a name that does not resolve is a failed attempt, retried
const unresolved = startAgent('unresolved', ['--bind', `127.0.0.1:${await freePort()}`, '--http',
                                             `127.0.0.1:${await freePort()}`, '--join', 'no-such-host.invalid:7946',
                                             '--retry-max', '2', '--retry-interval', '100ms']);
await waitFor(() => !unresolved.alive, 10000, 'the unresolvable join to give up');
check(unresolved.code === 1 &&
      (unresolved.log.match(/no-such-host\.invalid:7946: cannot resolve \(/g) || []).length === 2,
      'resolution failures are logged and retried, then exit 1');

// -------------------------------------------------------------------- joining by host name
const byNameHttp = await freePort();
const byName = startAgent('by-name', ['--bind', `127.0.0.1:${await freePort()}`, '--http', `127.0.0.1:${byNameHttp}`,
                                      '--join', `localhost:${seedPort}`, '--retry-interval', '1s']);
await serving(byName, byNameHttp);
await waitFor(async () => (await sees(byNameHttp, 'seed')) && (await sees(seedHttp, 'by-name')), 10000,
              'the agent joined through localhost to be a member');
check(new RegExp(`join attempt 1 succeeded: 127\\.0\\.0\\.1:${seedPort} answered`).test(byName.log),
      'localhost resolved by the system resolver, joined at the first attempt');

// A name with two addresses (a hosts file of its own, in a mount namespace): both are tried.
const root = process.getuid && process.getuid() === 0;
const canUnshare = root && spawnSync('unshare', ['--mount', 'true']).status === 0;
if (!canUnshare) {
  console.log('# skipped: a name with several addresses (needs root and unshare --mount for a private /etc/hosts)');
} else {
  const hosts = path.join(dir, 'hosts');
  writeFileSync(hosts, `127.0.0.2 seeds.vigil.test\n127.0.0.1 seeds.vigil.test\n127.0.0.1 localhost\n`);
  const multiHttp = await freePort();
  const wrap = (cmd, argv) => ['unshare', ['--mount', 'sh', '-c', 'mount --bind "$0" /etc/hosts && exec "$@"',
                                          hosts, cmd, ...argv]];
  const multi = startAgent('multi', ['--bind', `127.0.0.1:${await freePort()}`, '--http', `127.0.0.1:${multiHttp}`,
                                     '--join', `seeds.vigil.test:${seedPort}`], { wrap });
  await serving(multi, multiHttp);
  await waitFor(async () => (await sees(multiHttp, 'seed')) && (await sees(seedHttp, 'multi')), 10000,
                'the agent joined through a two-address name to be a member');
  check(new RegExp(`join attempt 1 succeeded: 127\\.0\\.0\\.1:${seedPort} answered ` +
                   `\\(and 127\\.0\\.0\\.2:${seedPort}: Connection refused\\)`).test(multi.log),
        'every address of the name was tried: one answered, the other refused');
  check(readFileSync('/etc/hosts', 'utf8').indexOf('seeds.vigil.test') < 0, 'the host\'s own /etc/hosts untouched');
}

// --------------------------------------------------------------------- IPv6 on [::1]
const hasV6Loopback = existsSync('/proc/net/if_inet6') &&
  readFileSync('/proc/net/if_inet6', 'utf8').split('\n').some((l) => l.startsWith('00000000000000000000000000000001'));
if (!hasV6Loopback) {
  console.log('# skipped: IPv6 agents (this machine has no IPv6 loopback ::1)');
} else {
  const p1 = await freePort(), p2 = await freePort(), h1 = await freePort(), h2 = await freePort();
  const a = startAgent('v6-a', ['--bind', `[::1]:${p1}`, '--http', `[::1]:${h1}`]);
  await serving(a, h1, '::1');
  const b = startAgent('v6-b', ['--bind', `[::1]:${p2}`, '--http', `127.0.0.1:${h2}`, '--join', `[::1]:${p1}`]);
  await serving(b, h2);
  await waitFor(async () => {
    const fromA = JSON.parse((await httpGetAt('::1', h1, '/v1/members')).body);
    const fromB = await getJson(h2, '/v1/members');
    return fromA.some((m) => m.name === 'v6-b' && m.state === 'alive' && m.address === `[::1]:${p2}`) &&
           fromB.some((m) => m.name === 'v6-a' && m.state === 'alive' && m.address === `[::1]:${p1}`);
  }, 10000, 'two agents on [::1] to see each other alive');
  check(true, 'two agents on [::1] join and see each other alive at their IPv6 addresses');
  check(/live view http:\/\/\[::1\]:\d+\//.test(a.log), 'the live view on [::1] is announced with brackets');
  // Probes travel over IPv6 and succeed: a few probes of each other, none failed.
  const metric = (text, name) => Number((text.match(new RegExp(`^${name} (\\d+)`, 'm')) || [])[1]);
  const probed = await waitFor(async () => {
    const text = (await httpGetAt('::1', h1, '/metrics')).body;
    const probes = metric(text, 'vigil_probes_total');
    return probes >= 3 ? { probes, failed: metric(text, 'vigil_probes_failed_total') } : null;
  }, 10 * probeMs, 'three probes over IPv6');
  check(probed.failed === 0, `${probed.probes} probes over IPv6, ${probed.failed} failed`);
}

cleanup();
console.log('ok - join');
