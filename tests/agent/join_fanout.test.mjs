// A join through a name that resolves to thousands of addresses. The agent runs under
// `ulimit -n 1024` and joins through two names: many.vigil.test (3,000 addresses: 2,000 whose
// connections nftables drops, so they hold until the stream timeout, and 1,000 that refuse at
// once) and live.vigil.test (one live agent). While that attempt is under way the agent must hold
// few descriptors, ask the live seed and join through it, let a third agent join through its own
// push-pull listener, and log each attempt on a short line. A second agent whose only name
// resolves to 1,000 refusing addresses shows later attempts moving on to addresses not yet asked.
//
// Each name gets its addresses from a hosts file of the test's own: the test re-runs itself in a
// network namespace (`ip netns exec` mounts /etc/netns/NS/hosts over /etc/hosts), where loopback
// and nftables are its own too. Needs root and `ip netns`; skips (exit 77) otherwise.
import { spawn, spawnSync } from 'node:child_process';
import dns from 'node:dns/promises';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { check, freePort, getJson, httpGet, parseArgs, waitFor } from './harness.mjs';
import { addNamespace, sh, skipUnlessNetns } from './netns.mjs';

const args = parseArgs(process.argv.slice(2));
const kDropped = 2000;     // 127.1.0.0/16: SYNs dropped, the connection waits for its timeout
const kRefused = 1000;     // 127.2.0.0/16: nothing listens, refused at once
const kRefusing = 1000;    // 127.3.0.0/16: the second agent's only name
const kDeadPort = 7946;    // where many.vigil.test and refusing.vigil.test are asked
const kFdBound = 64;       // descriptors the agent may hold during the attempt
const kLineBound = 400;    // bytes in one attempt's log line
const kPerAttempt = 8;     // JoinLimits::kMaxAddressesPerAttempt

const addressOf = (base, i) => `127.${base}.${Math.floor(i / 250)}.${(i % 250) + 1}`;

// ------------------------------------------------------------------------------ outside: set up
if (!process.env.VIGIL_FANOUT_NS) {
  skipUnlessNetns('the fan-out test (a network namespace with its own /etc/hosts)');
  if (spawnSync('nft', ['--version']).status !== 0) throw new Error('nft not found: install nftables (scripts/setup.sh does)');
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));
  const ns = addNamespace('fanout');
  sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  // Dropped and refusing addresses alternate, so whatever order the resolver returns them in,
  // every handful asked holds some that wait for their timeout.
  const lines = ['127.0.0.1 localhost', '127.0.0.1 live.vigil.test'];
  for (let i = 0; i < kDropped + kRefused; ++i)
    lines.push(`${i % 3 === 2 ? addressOf(2, i) : addressOf(1, i)} many.vigil.test`);
  for (let i = 0; i < kRefusing; ++i) lines.push(`${addressOf(3, i)} refusing.vigil.test`);
  mkdirSync(`/etc/netns/${ns}`, { recursive: true });
  writeFileSync(`/etc/netns/${ns}/hosts`, lines.join('\n') + '\n');
  sh('ip', ['netns', 'exec', ns, 'nft', '-f', '-'], `
table inet vigil_fanout {
  chain output {
    type filter hook output priority 0; policy accept;
    ip daddr 127.1.0.0/16 tcp dport ${kDeadPort} drop
  }
}
`);
  const inner = spawn('ip', ['netns', 'exec', ns, process.execPath, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
                      { stdio: 'inherit', env: { ...process.env, VIGIL_FANOUT_NS: ns } });
  inner.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await inside();
}

// ------------------------------------------------------------------------ inside the namespace
async function inside() {
  const resolved = (await dns.lookup('many.vigil.test', { all: true, family: 4 })).length;
  check(resolved === kDropped + kRefused, `many.vigil.test resolves to ${resolved} addresses in the namespace`);

  const agents = [];
  function startAgent(name, flags, { limit = null } = {}) {
    const argv = ['agent', '--name', name, '--profile', 'local', '--web', 'none', ...flags];
    const [cmd, cmdArgs] = limit ? ['sh', ['-c', `ulimit -n ${limit} && exec "$0" "$@"`, args.vigil, ...argv]]
                                 : [args.vigil, argv];
    const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    const agent = { name, child, log: '', alive: true, code: null, startedAt: Date.now() };
    child.stdout.on('data', (c) => { agent.log += c; });
    child.stderr.on('data', (c) => { agent.log += c; });
    child.on('exit', (code) => { agent.alive = false; agent.code = code; });
    agents.push(agent);
    return agent;
  }
  const bail = (err) => {
    console.error(err && err.stack ? err.stack : err);
    for (const a of agents) console.error(`--- ${a.name} ---\n${a.log.slice(0, 3000)}\n...\n${a.log.slice(-3000)}`);
    for (const a of agents) if (a.alive) a.child.kill('SIGKILL');
    process.exit(1);
  };
  process.on('uncaughtException', bail);
  process.on('unhandledRejection', bail);

  async function serving(agent, httpPort, timeoutMs = 10000) {
    await waitFor(async () => {
      if (!agent.alive) throw new Error(`${agent.name} exited: ${agent.log}`);
      try { return (await httpGet(httpPort, '/v1/self', 1000)).status === 200; } catch { return false; }
    }, timeoutMs, `${agent.name} to serve /v1/self`);
  }
  async function sees(httpPort, other) {
    try { return (await getJson(httpPort, '/v1/members')).some((m) => m.name === other && m.state === 'alive'); } catch { return false; }
  }
  const joinLines = (agent) => agent.log.split('\n').filter((l) => / join attempt \d+/.test(l));

  // The live seed.
  const livePort = await freePort(), liveHttp = await freePort();
  const live = startAgent('live', ['--bind', `127.0.0.1:${livePort}`, '--http', `127.0.0.1:${liveHttp}`]);
  await serving(live, liveHttp);

  // The agent under test: the big name first, the live one second.
  const fanPort = await freePort(), fanHttp = await freePort();
  const fan = startAgent('fan', ['--bind', `127.0.0.1:${fanPort}`, '--http', `127.0.0.1:${fanHttp}`,
                                 '--join', `many.vigil.test:${kDeadPort}`, '--join', `live.vigil.test:${livePort}`,
                                 '--retry-interval', '1s'], { limit: 1024 });
  const pid = fan.child.pid;
  let maxFds = 0;
  const sampler = setInterval(() => {
    try { maxFds = Math.max(maxFds, readdirSync(`/proc/${pid}/fd`).length); } catch { /* exited */ }
  }, 20);

  // A third agent joins through the one under test while its attempt holds connections open
  // (once the agent listens: its protocol port is bound before its live view answers).
  await serving(fan, fanHttp);
  const otherHttp = await freePort();
  const other = startAgent('other', ['--bind', `127.0.0.1:${await freePort()}`, '--http', `127.0.0.1:${otherHttp}`,
                                     '--join', `127.0.0.1:${fanPort}`, '--retry-interval', '1s']);
  let otherJoinedMs = null;
  try {
    await waitFor(async () => {
      if (!other.alive) throw new Error(`other exited: ${other.log}`);
      return sees(otherHttp, 'fan');
    }, 8000, 'the third agent to join through the one under test', 50);
    otherJoinedMs = Date.now() - other.startedAt;
  } catch (e) {
    console.log(`# ${e.message}`);
  }
  const otherJoinedDuringAttempt = otherJoinedMs !== null && joinLines(fan).length === 0;

  // The first attempt ends once its last connection has timed out (memberlist's 10 s TCP timeout).
  let firstLine = null;
  try {
    firstLine = await waitFor(() => joinLines(fan)[0], 15000, 'the first attempt to end', 20);
  } catch (e) {
    console.log(`# ${e.message}`);
  }
  const firstAttemptMs = firstLine ? Date.now() - fan.startedAt : null;
  let joinedLive = false;
  try {
    joinedLive = await waitFor(() => /join attempt [12] succeeded: .*127\.0\.0\.1:\d+.* answered/.test(fan.log) ||
                                      /join attempt [3-9]/.test(fan.log) || !fan.alive, 15000, 'a successful attempt', 50) &&
                 /join attempt [12] succeeded: .*127\.0\.0\.1:\d+.* answered/.test(fan.log);
  } catch (e) {
    console.log(`# ${e.message}`);
  }
  clearInterval(sampler);
  const lineBytes = Math.max(0, ...joinLines(fan).map((l) => Buffer.byteLength(l)));

  console.log(`# most descriptors held by the agent during the attempt: ${maxFds} (ulimit -n 1024)`);
  console.log(`# a third agent joined through it ${otherJoinedMs === null ? 'not within 8 s' : `after ${otherJoinedMs} ms`}` +
              `${otherJoinedDuringAttempt ? ', while the first attempt was under way' : ''}`);
  console.log(`# first attempt ended after ${firstAttemptMs} ms; joined through the live seed: ${joinedLive}`);
  console.log(`# longest join line: ${lineBytes} bytes: ${joinLines(fan)[0]?.slice(0, 300)}`);

  check(fan.alive, 'the agent under test keeps running');
  check(maxFds > 0 && maxFds < kFdBound, `it held at most ${maxFds} descriptors during the attempt (bound ${kFdBound})`);
  check(otherJoinedDuringAttempt, 'a third agent joined through its push-pull listener while the attempt was under way');
  check(/join attempt 1 succeeded/.test(other.log), 'at its first attempt');
  check(joinedLive, 'the live seed was asked and answered in the first or second attempt');
  await waitFor(async () => (await sees(fanHttp, 'live')) && (await sees(liveHttp, 'fan')) && (await sees(fanHttp, 'other')),
                10000, 'the agent, the live seed and the third agent to see each other');
  check(true, 'the agent sees the live seed and the third agent alive, the live seed sees it');
  check(firstAttemptMs !== null && firstAttemptMs < 12000,
        `the first attempt ended within the stream timeout (${firstAttemptMs} ms after the start)`);
  check(lineBytes < kLineBound, `each attempt's log line is short (${lineBytes} bytes < ${kLineBound})`);
  check(/and \d+ more/.test(joinLines(fan)[0]) && /not asked/.test(joinLines(fan)[0]),
        'the line names a few addresses and counts the others');
  const metricsText = (await httpGet(fanHttp, '/metrics', 2000)).body;
  const metric = (name) => Number((metricsText.match(new RegExp(`^${name} (\\d+)`, 'm')) || [])[1]);
  const attempts = joinLines(fan).length;
  const deferred = metric('vigil_join_addresses_deferred_total');
  const asked = metric('vigil_join_addresses_asked_total');
  check(asked === kPerAttempt * attempts && deferred === (kDropped + kRefused + 1 - kPerAttempt) * attempts,
        `/metrics counts ${asked} addresses asked and ${deferred} deferred in ${attempts} attempt(s)`);

  // ------------------------------------------- later attempts move on to addresses not yet asked
  const refusing = startAgent('refusing', ['--bind', `127.0.0.1:${await freePort()}`, '--http', `127.0.0.1:${await freePort()}`,
                                           '--join', `refusing.vigil.test:${kDeadPort}`, '--retry-max', '3',
                                           '--retry-interval', '100ms']);
  await waitFor(() => !refusing.alive, 10000, 'the agent with only refusing addresses to give up');
  const lines = joinLines(refusing);
  check(refusing.code === 1 && lines.length === 3, `it gave up after 3 attempts (exit ${refusing.code}, ${lines.length} lines)`);
  const named = lines.map((l) => [...l.matchAll(/(127\.3\.\d+\.\d+):\d+/g)].map((m) => m[1]));
  const all = named.flat();
  check(named.every((n) => n.length > 0) && new Set(all).size === all.length,
        `each attempt named addresses the earlier ones had not asked (${named.map((n) => n.join(' ')).join(' | ')})`);
  check(lines.every((l) => Buffer.byteLength(l) < kLineBound && l.includes(`${kPerAttempt} of ${kRefusing} addresses`)),
        `every line is short and says how many of the ${kRefusing} addresses it asked`);

  for (const a of agents) if (a.alive) a.child.kill('SIGKILL');
  console.log('ok - join_fanout');
  process.exit(0);
}
