// The WebSocket protocol of an agent: snapshot, events, authorisation, malformed input, and a
// one-way block that indirect probes see through.
import { Cluster, Viewer, check, getJson, httpGet, installCleanup, parseArgs, waitFor } from './harness.mjs';

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

// An oversized frame is refused, and the connection survives it.
viewer.send(JSON.stringify({ type: 'snapshot', padding: 'x'.repeat(70 * 1024) }));
await viewer.next((m) => m.type === 'error' && m.code === 'too-large', 3000, 'too-large');
check(true, 'an oversized message gets a too-large error');

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
await viewer.next((m, i) => m.type === 'event' && m.kind === 'suspect' && m.member === 'agent-3', 15000, 'suspect event');
await viewer.next((m) => m.type === 'event' && m.kind === 'dead' && m.member === 'agent-3', 25000, 'dead event');
check(viewer.messages.length > eventsBefore, 'a viewer receives suspect, then dead events when a member dies');

// Plain HTTP endpoints.
const metrics = (await httpGet(a.httpPort, '/metrics')).body;
check(/vigil_members\{state="alive"\} \d+/.test(metrics) && /vigil_probes_total \d+/.test(metrics) &&
      /vigil_local_health_multiplier \d+/.test(metrics), '/metrics speaks Prometheus text');
check((await httpGet(a.httpPort, '/v1/nope')).status === 404, 'unknown API paths are 404');
const selfView = await getJson(a.httpPort, '/v1/self');
check(selfView.name === 'agent-0' && selfView.incarnation >= 1, '/v1/self describes the agent');

viewer.close();
cluster.stop();
