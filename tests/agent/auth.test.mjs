// Wrong tokens are limited per remote address, across connections: many connections from
// 127.0.0.1 guessing as fast as they may get at most the limiter's burst plus its rate checked;
// the rest are refused unchecked with `auth-rate-limited`; /metrics counts both; the right token
// works again once the address's allowance refills; the log says so once per interval.
import { Cluster, Viewer, check, httpGet, installCleanup, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
// The agent's limits (native/agent/auth_limiter.hpp): wrong tokens per second and burst.
const RATE = 2;
const BURST = 10;
const BATCH = 10;            // connections at once (more than max_clients would be refused)
const GUESSES = 20;          // per connection, within its own message burst (40)
const FLOOD_MS = 3000;       // long enough for the rate, not only the burst, to show
const MAX_CONNECTIONS = 400;
const PAUSE_MS = 100;        // between batches: the pace of the flood, not a wait for anything

const cluster = new Cluster(args.vigil);
installCleanup(cluster);
const [agent] = (await cluster.start(1)).agents;

async function metric(name) {
  const r = await httpGet(agent.httpPort, '/metrics');
  const m = r.body.match(new RegExp(`^${name} (\\d+)$`, 'm'));
  if (!m) throw new Error(`no ${name} in /metrics`);
  return Number(m[1]);
}
check(await metric('vigil_auth_failures_total') === 0 && await metric('vigil_auth_rate_limited_total') === 0,
      'no token failures counted at start');

// One connection's guesses: all sent at once, then every reply awaited. The agent handled every
// guess between the first reply and the last send, at least: a span the lower bound may use.
let firstReply = null;
let lastSent = null;
async function guesser(i) {
  const v = new Viewer(agent);
  await v.open;
  for (let g = 0; g < GUESSES; ++g) v.send({ type: 'pause', ms: 1, token: `wrong-${i}-${g}` });
  lastSent = Date.now();
  v.ws.on('message', (d) => { if (JSON.parse(d.toString()).type === 'error') firstReply ??= Date.now(); });
  await waitFor(() => v.messages.filter((m) => m.type === 'error').length >= GUESSES, 10000,
                `replies on connection ${i}`, 20);
  v.close();
  return v.messages.filter((m) => m.type === 'error').map((m) => m.code);
}
const started = Date.now();
const codes = [];
let connections = 0;
while (Date.now() - started < FLOOD_MS && connections < MAX_CONNECTIONS) {
  if (connections > 0) await new Promise((r) => setTimeout(r, PAUSE_MS));
  const batch = Array.from({ length: BATCH }, (_, k) => guesser(connections + k));
  connections += BATCH;
  codes.push(...(await Promise.all(batch)).flat());
}
const elapsed = (Date.now() - started) / 1000;
const checked = codes.filter((c) => c === 'unauthorized').length;
const limited = codes.filter((c) => c === 'auth-rate-limited').length;
const attempts = connections * GUESSES;
console.log(`${attempts} wrong guesses over ${connections} connections in ${elapsed.toFixed(2)} s: ` +
            `${checked} checked, ${limited} refused unchecked`);
check(checked + limited === attempts, 'every guess was answered unauthorized or auth-rate-limited');
const bound = BURST + RATE * elapsed + 1;
check(checked <= bound, `guesses checked ${checked} <= burst + rate x elapsed + 1 = ${bound.toFixed(1)}`);
// Guessing never pauses long enough for the allowance to fill up again, so every attempt that
// refills is used: at least the rate over the span the agent surely spent handling guesses.
const span = (lastSent - firstReply) / 1000;
check(checked >= BURST + RATE * span - 1,
      `guesses checked ${checked} >= burst + rate x ${span.toFixed(2)} s - 1 = ${(BURST + RATE * span - 1).toFixed(1)}`);
check(limited > 0, `the rest were refused unchecked: ${limited}`);
check(await metric('vigil_auth_failures_total') === checked, `vigil_auth_failures_total = ${checked}`);
check(await metric('vigil_auth_rate_limited_total') === limited, `vigil_auth_rate_limited_total = ${limited}`);

// The right token from a fresh connection: refused while the address is out of attempts (those
// refusals are counted too), carried out once a wrong-token allowance has refilled.
const fresh = new Viewer(agent);
await fresh.open;
let sent = 0;
const ok = await waitFor(() => {
  const done = fresh.messages.find((m) => m.type === 'ok' && m.command === 'inject');
  if (done) return done;
  if (sent < 40 && fresh.messages.length >= sent) {  // one command in flight at a time
    fresh.send({ type: 'inject', loss: 0, token: cluster.token });
    ++sent;
  }
  return false;
}, 10000, 'the right token to be accepted again', 100);
const refusedRight = fresh.messages.filter((m) => m.code === 'auth-rate-limited').length;
check(ok && refusedRight < sent, `the right token is accepted again after ${sent} tries (${refusedRight} refused while the address was out of attempts)`);
check(await metric('vigil_auth_rate_limited_total') === limited + refusedRight, 'refusals of the right token are counted too');
check(await metric('vigil_auth_failures_total') === checked, 'a right token is no failure');
fresh.close();

// Logged once per interval, not once per event: at most a line at once and one per 10 s per kind.
const failureLines = (agent.log.match(/wrong or missing token/g) || []).length;
const refusalLines = (agent.log.match(/refused unchecked/g) || []).length;
const allowed = 1 + Math.ceil((Date.now() - started) / 10000);
check(failureLines >= 1 && failureLines <= allowed, `${failureLines} log line(s) about wrong tokens (at most ${allowed})`);
check(refusalLines >= 1 && refusalLines <= allowed, `${refusalLines} log line(s) about refusals (at most ${allowed})`);
check(/from 127\.0\.0\.1/.test(agent.log), 'the log names the remote address');

cluster.stop();
console.log('auth: all checks passed');
