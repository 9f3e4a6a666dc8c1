// The WebSocket protocol of an agent: snapshot, events, authorisation, malformed input, a
// one-way block that indirect probes see through, the rate limit, the frame cap and Origin checks.
import { spawn, spawnSync } from 'node:child_process';
import WebSocket from 'ws';
import { Cluster, Viewer, check, freePort, getJson, httpGet, installCleanup, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);
await cluster.start(4);
await waitFor(() => cluster.allSee('alive'), 35000, 'convergence (bounded by push-pull anti-entropy)');

const a = cluster.byName('agent-0');
const viewer = new Viewer(a);
await viewer.open;
const snapshot = await viewer.next((m) => m.type === 'snapshot', 3000, 'a snapshot');
check(snapshot.self.name === 'agent-0' && snapshot.members.length === 3, 'a new viewer gets a snapshot first');
check(viewer.messages[0].type === 'snapshot', 'the snapshot is the very first message');
check(typeof snapshot.config.probe_interval_ms === 'number' && snapshot.counters.probes >= 0,
      'the snapshot carries config and counters');
await viewer.next((m) => m.type === 'stats', 3000, 'periodic stats');
check(true, 'stats follow');

// Malformed JSON: an error reply, and the connection stays usable.
viewer.send('{not json');
await viewer.next((m) => m.type === 'error' && m.code === 'bad-json', 3000, 'a bad-json error');
viewer.send({ type: 'frobnicate' });
await viewer.next((m) => m.type === 'error' && m.code === 'unknown-command', 3000, 'an unknown-command error');
viewer.send({ type: 'snapshot' });
await waitFor(() => viewer.messages.filter((m) => m.type === 'snapshot').length === 2, 3000, 'a second snapshot');
check(true, 'errors are replies: the connection keeps working');

// Mutating without the token is refused.
viewer.send({ type: 'block', peer: 'agent-1' });
await viewer.next((m) => m.type === 'error' && m.code === 'unauthorized' && m.command === 'block', 3000, 'unauthorized');
viewer.send({ type: 'pause', ms: 1000, token: 'wrong' });
await viewer.next((m) => m.type === 'error' && m.code === 'unauthorized' && m.command === 'pause', 3000, 'unauthorized');
check(true, 'mutating commands without the right token are refused');
viewer.send({ type: 'inject', token: cluster.token, loss: 7 });
await viewer.next((m) => m.type === 'error' && m.code === 'invalid' && m.command === 'inject', 3000, 'invalid');
check(true, 'invalid parameters are refused with a message');

// An oversized frame is refused, and the connection survives it: even a megabyte is read and
// dropped (memory stays at the cap), then the next command is answered.
viewer.send(JSON.stringify({ type: 'snapshot', padding: 'x'.repeat(70 * 1024) }));
await viewer.next((m) => m.type === 'error' && m.code === 'too-large', 3000, 'too-large');
check(true, 'an oversized message gets a too-large error');
viewer.send(JSON.stringify({ type: 'snapshot', padding: 'x'.repeat(1024 * 1024) }));
await waitFor(() => viewer.messages.filter((m) => m.type === 'error' && m.code === 'too-large').length === 2,
              3000, 'a second too-large error');
viewer.send({ type: 'snapshot' });
await waitFor(() => viewer.messages.filter((m) => m.type === 'snapshot').length === 3, 3000, 'a third snapshot');
check(true, 'after a 1 MiB frame the connection is still open and answers');

// Rate limit: 20 messages a second per connection, bursts of 40 (LwsHost::Options). A burst of
// 100 gets 40 answers (plus what refills in the few milliseconds it takes to send), one
// rate-limited notice instead of 60 more replies, and the connection keeps working.
const flooder = new Viewer(a);
await flooder.open;
await flooder.next((m) => m.type === 'snapshot', 3000, 'the flooder\'s snapshot');
for (let i = 0; i < 100; ++i) flooder.send({ type: 'frobnicate' });
const limited = await flooder.next((m) => m.type === 'error' && m.code === 'rate-limited', 3000, 'rate-limited');
const answeredBurst = () => flooder.messages.filter((m) => m.type === 'error' && m.code === 'unknown-command').length;
await waitFor(() => answeredBurst() >= 40, 3000, 'the burst\'s answers');
check(answeredBurst() >= 40 && answeredBurst() <= 45,
      `a burst of 100 commands: ${answeredBurst()} answered (40 burst + refill), the rest dropped`);
check(limited.dropped >= 1 && /messages a second/.test(limited.message),
      `over the limit: one rate-limited error (${limited.dropped} dropped so far) instead of a reply each`);
// Other connections are not affected by one client's flood.
viewer.send({ type: 'snapshot' });
await waitFor(() => viewer.messages.filter((m) => m.type === 'snapshot').length === 4, 3000, 'a fourth snapshot');
check(true, 'another connection is answered at once');
// The flooder itself gets answers again once its bucket refills (a token every 50 ms).
const snapshotsBefore = flooder.messages.filter((m) => m.type === 'snapshot').length;
await waitFor(() => {
  if (flooder.messages.filter((m) => m.type === 'snapshot').length > snapshotsBefore) return true;
  flooder.send({ type: 'snapshot' });
  return false;
}, 5000, 'the rate-limited connection to answer again', 250);
check(flooder.messages.filter((m) => m.type === 'error' && m.code === 'rate-limited').length === 1,
      'the rate-limited connection is usable again, and was told about its flood once');
flooder.close();

// block a->b: a's pings to b are dropped, yet b stays alive in a's view through helpers.
viewer.send({ type: 'block', peer: 'agent-1', token: cluster.token });
await viewer.next((m) => m.type === 'ok' && m.command === 'block', 3000, 'block acknowledged');
const indirectBefore = (await viewer.next((m) => m.type === 'stats', 3000, 'stats')).counters.indirect_probes;
const blockedSince = viewer.messages.length;
// Enough probe periods for a to probe b a couple of times (round-robin over 3 peers).
await waitFor(async () => {
  const s = [...viewer.messages].reverse().find((m) => m.type === 'stats');
  return s && s.counters.indirect_probes >= indirectBefore + 2;
}, 15000, 'agent-0 to probe agent-1 indirectly');
const view = await cluster.members(a);
check(view['agent-1'].state === 'alive', 'blocked a->b, b stays alive in a\'s view');
check(!viewer.messages.slice(blockedSince).some((m) => m.type === 'event' && m.member === 'agent-1' &&
                                                      (m.kind === 'suspect' || m.kind === 'dead')),
      'a never suspected b: indirect probes carried the acks');
viewer.send({ type: 'unblock', peer: 'agent-1', token: cluster.token });
await viewer.next((m) => m.type === 'ok' && m.command === 'unblock', 3000, 'unblock acknowledged');

// Events when a member dies.
const eventsBefore = viewer.messages.length;
cluster.byName('agent-3').child.kill('SIGKILL');
await viewer.next((m) => m.type === 'event' && m.kind === 'suspect' && m.member === 'agent-3', 15000, 'suspect event');
await viewer.next((m) => m.type === 'event' && m.kind === 'dead' && m.member === 'agent-3', 25000, 'dead event');
check(viewer.messages.length > eventsBefore, 'a viewer receives suspect, then dead events when a member dies');

// Plain HTTP endpoints.
const metrics = (await httpGet(a.httpPort, '/metrics')).body;
check(/vigil_members\{state="alive"\} \d+/.test(metrics) && /vigil_probes_total \d+/.test(metrics) &&
      /vigil_local_health_multiplier \d+/.test(metrics) && /vigil_exchanges_unchanged_total \d+/.test(metrics),
      '/metrics speaks Prometheus text');
const metricIn = (text, name) => Number((text.match(new RegExp(`^${name} (\\d+)$`, 'm')) ?? [])[1]);
const counted = (name) => metricIn(metrics, name);
check(counted('vigil_ws_too_large_total') === 2, `/metrics counts the 2 oversized messages (${counted('vigil_ws_too_large_total')})`);
// Every unanswered command of the burst was dropped (retries while the bucket refilled may add a few).
const rateLimited = counted('vigil_ws_rate_limited_total');
check(rateLimited >= 100 - answeredBurst() && rateLimited <= 100,
      `/metrics counts every message the rate limit dropped (${rateLimited}; ${answeredBurst()} of 100 answered)`);
check(counted('vigil_ws_refused_origins_total') === 0, 'no Origin refused yet');
check((await httpGet(a.httpPort, '/v1/nope')).status === 404, 'unknown API paths are 404');
const selfView = await getJson(a.httpPort, '/v1/self');
check(selfView.name === 'agent-0' && selfView.incarnation >= 1, '/v1/self describes the agent');

// Origin: pages of other sites may not open the WebSocket (browsers send their origin); the
// agent's own pages, under 127.0.0.1 or localhost, may; programs (no Origin) always may.
function openWith(port, origin) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, 'vigil.v1', origin ? { origin } : {});
    const done = (result) => { ws.terminate(); resolve(result); };
    ws.once('message', (data) => done({ opened: true, first: JSON.parse(data.toString()).type }));
    ws.once('unexpected-response', (req, res) => done({ opened: false, status: res.statusCode }));
    ws.once('error', (e) => done({ opened: false, error: e.message }));
  });
}
for (const origin of ['http://evil.example', 'https://127.0.0.1:' + a.httpPort, `http://127.0.0.1:${a.httpPort + 1}`,
                      'null', 'not an origin']) {
  const r = await openWith(a.httpPort, origin);
  check(!r.opened && r.status === 403, `Origin ${origin} is refused with 403 (${JSON.stringify(r)})`);
}
const refusedNow = metricIn((await httpGet(a.httpPort, '/metrics')).body, 'vigil_ws_refused_origins_total');
check(refusedNow === 5, `/metrics counts the 5 refused Origins (${refusedNow})`);
for (const origin of [`http://127.0.0.1:${a.httpPort}`, `http://LOCALHOST:${a.httpPort}`, undefined]) {
  const r = await openWith(a.httpPort, origin);
  check(r.opened && r.first === 'snapshot', `Origin ${origin ?? '(none)'} is accepted and gets a snapshot`);
}

// --allow-origin lets another site's pages in (a port of * for any port); bad values are refused.
const extraPort = await freePort();
const extra = spawn(args.vigil, ['agent', '--name', 'extra', '--bind', `127.0.0.1:${await freePort()}`,
                                 '--http', `127.0.0.1:${extraPort}`, '--web', 'none', '--quiet',
                                 '--allow-origin', 'http://app.example:*,https://dash.example']);
await waitFor(async () => { try { return (await httpGet(extraPort, '/v1/self', 500)).status === 200; } catch { return false; } },
              10000, 'the extra agent');
for (const origin of ['http://app.example:8080', 'http://app.example', 'https://dash.example:443',
                      `http://localhost:${extraPort}`]) {
  const r = await openWith(extraPort, origin);
  check(r.opened, `--allow-origin: ${origin} is accepted`);
}
for (const origin of ['https://app.example:8080', 'http://dash.example', 'http://evil.example']) {
  const r = await openWith(extraPort, origin);
  check(!r.opened && r.status === 403, `--allow-origin: ${origin} is still refused`);
}
extra.kill('SIGKILL');
const bad = spawnSync(args.vigil, ['agent', '--name', 'bad', '--allow-origin', 'example.com'], { encoding: 'utf8' });
check(bad.status === 2 && /--allow-origin/.test(bad.stderr), `a bad --allow-origin is a usage error naming the flag (${bad.stderr.trim()})`);

viewer.close();
cluster.stop();
