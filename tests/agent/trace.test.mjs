// Heartbeat traces out of live agents: three agents on loopback, GET /v1/trace of a peer after a
// few probe periods (rows about one per probe period over all peers, increasing, parseable, in
// the contract's CSV), 400 and 404, a client asking for traces in a loop that must not grow the
// agent's memory, and `vigil trace` against a live agent.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { Cluster, check, httpGet, installCleanup, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const cluster = new Cluster(args.vigil, 'local');
installCleanup(cluster);
const startedAt = Date.now();
await cluster.start(3);
const [a, b, c] = cluster.agents;
await waitFor(() => cluster.allSee('alive'), 35000, 'all three to see each other alive');

// The whole answer with its headers (httpGet keeps only the status and body).
function fetchTrace(port, query) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: `/v1/trace${query}`, timeout: 5000, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

function parseCsv(text) {
  const lines = text.split('\n').filter((l) => l !== '');
  const comment = lines.filter((l) => l.startsWith('#'));
  const rest = lines.filter((l) => !l.startsWith('#'));
  if (rest[0] !== 'time_ms,sender') throw new Error(`bad header: ${rest[0]}`);
  const rows = rest.slice(1).map((l) => {
    const [time, sender] = l.split(',');
    if (!/^\d+\.\d{3}$/.test(time)) throw new Error(`bad time: ${l}`);
    return { time: Number(time), sender };
  });
  const interval = Number(/probe interval (\d+) ms/.exec(comment[0])[1]);
  return { comment, rows, interval };
}

async function metric(port, name) {
  const text = (await httpGet(port, '/metrics')).body;
  const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
  if (!m) throw new Error(`no ${name} in /metrics`);
  return Number(m[1]);
}

// ------------------------------------------------------------------ rows after a few periods

// Poll until a's traces of both peers span at least 8 probe periods together.
const traces = await waitFor(async () => {
  const rb = await fetchTrace(a.httpPort, `?peer=${b.name}`);
  const rc = await fetchTrace(a.httpPort, `?peer=${c.name}`);
  if (rb.status !== 200 || rc.status !== 200) return null;
  const tb = parseCsv(rb.body);
  const tc = parseCsv(rc.body);
  return tb.rows.length + tc.rows.length >= 9 ? { rb, tb, tc, at: Date.now() } : null;
}, 40000, 'a to trace 9 acks from its two peers', 250);
const { rb, tb, tc } = traces;
check(rb.headers['content-type'].startsWith('text/csv'), `Content-Type is ${rb.headers['content-type']}`);
check(rb.headers['content-disposition'] === `attachment; filename="trace-${b.name}.csv"`,
      `Content-Disposition: ${rb.headers['content-disposition']}`);
check(tb.comment[0] === `# vigil trace: ack arrivals from ${b.name} seen by ${a.name}, probe interval ${tb.interval} ms`,
      `the comment line names the peer, the observer and the interval: ${tb.comment[0]}`);
check(tb.interval === 1000, 'the local profile probes every 1000 ms');
check(tb.rows.every((r) => r.sender === b.name) && tc.rows.every((r) => r.sender === c.name),
      'every row names the peer it came from');
for (const t of [tb, tc]) {
  check(t.rows.every((r, i) => i === 0 || r.time > t.rows[i - 1].time), `${t.rows[0].sender}'s rows increase`);
  // Unix ms of this machine's clock: after the test began, not after now.
  check(t.rows[0].time >= startedAt - 50 && t.rows.at(-1).time <= traces.at + 50,
        `${t.rows[0].sender}'s times are Unix ms within the test's run`);
  const gaps = t.rows.slice(1).map((r, i) => r.time - t.rows[i].time);
  // Round-robin over 2 peers, shuffled each round: consecutive acks of one peer are 1 to 3
  // periods apart (plus the RTT's jitter), never twice in one period; a probe lost on a busy
  // machine may add a round or two.
  check(gaps.every((g) => g >= 0.5 * t.interval && g <= 8 * t.interval),
        `${t.rows[0].sender}'s gaps lie in [0.5, 8] probe periods: ${gaps.map((g) => g.toFixed(1)).join(' ')}`);
}
// One probe per period over all peers: the total rows is about the elapsed time over the period.
const all = [...tb.rows, ...tc.rows].map((r) => r.time).sort((x, y) => x - y);
const periods = (all.at(-1) - all[0]) / tb.interval;
check(all.length - 1 <= periods + 1 && all.length - 1 >= 0.6 * periods - 1,
      `${all.length} rows over ${periods.toFixed(2)} probe periods: one per period`);
console.log(`rows: ${tb.rows.length} from ${b.name}, ${tc.rows.length} from ${c.name} over ${periods.toFixed(2)} periods`);

// ------------------------------------------------------------------------------ 400 and 404

const missing = await fetchTrace(a.httpPort, '');
check(missing.status === 400 && JSON.parse(missing.body).error.includes('peer'), `no peer: 400 (${missing.body})`);
const empty = await fetchTrace(a.httpPort, '?peer=');
check(empty.status === 400, 'an empty peer name: 400');
const control = await fetchTrace(a.httpPort, '?peer=b%0Ac');
check(control.status >= 400 && control.status < 500, `a name with a control character: ${control.status}`);
const bad = await fetchTrace(a.httpPort, '?peer=a%zz');
check(bad.status >= 400 && bad.status < 500, `a malformed escape: ${bad.status}`);
const escaped = await fetchTrace(a.httpPort, '?peer=x%26y%3Dz&other=1');
check(escaped.status === 404 && JSON.parse(escaped.body).peer === 'x&y=z', 'an escaped & and = stay in the name');
const unknown = await fetchTrace(a.httpPort, '?peer=nobody-here');
check(unknown.status === 404 && JSON.parse(unknown.body).peer === 'nobody-here', `an unknown peer: 404 (${unknown.body})`);
const head = await new Promise((resolve, reject) => {
  const req = http.request({ host: '127.0.0.1', port: a.httpPort, path: `/v1/trace?peer=${b.name}`, method: 'HEAD', agent: false },
                           (res) => { res.resume(); res.on('end', () => resolve(res)); });
  req.on('error', reject);
  req.end();
});
check(head.statusCode === 200 && Number(head.headers['content-length']) > 0, 'HEAD answers the headers of the download');

// --------------------------------------------------------- an abusive client does not grow it

const pid = a.child.pid;
const rssKb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
const peersBefore = await metric(a.httpPort, 'vigil_trace_peers');
const rssBefore = rssKb();
let rssPeak = rssBefore;
let answered = 0;
// 600 requests, 6 at a time: traces of real peers, and names that do not exist.
for (let round = 0; round < 100; ++round) {
  const batch = [];
  for (let i = 0; i < 6; ++i) {
    const q = i % 2 === 0 ? `?peer=${i % 4 === 0 ? b.name : c.name}` : `?peer=stranger-${round}-${i}`;
    batch.push(fetchTrace(a.httpPort, q).then((r) => { if (r.status === 200 || r.status === 404) ++answered; }));
  }
  await Promise.all(batch);
  rssPeak = Math.max(rssPeak, rssKb());
}
const peersAfter = await metric(a.httpPort, 'vigil_trace_peers');
const entries = await metric(a.httpPort, 'vigil_trace_entries');
const bytes = await metric(a.httpPort, 'vigil_trace_bytes');
console.log(`abuse: ${answered}/600 answered; RSS ${rssBefore} kB -> peak ${rssPeak} kB; trace ${entries} rows, ${bytes} bytes`);
check(answered === 600, 'every request in the loop was answered');
check(peersAfter === peersBefore && peersAfter === 2, 'asking about strangers creates no records');
check(entries <= 2 * 4096 && bytes < 2 * (4096 * 8 + 512) + 1024, 'the record stays within its bound');
check(rssPeak - rssBefore < 8 * 1024, `the agent's memory grew by ${rssPeak - rssBefore} kB (< 8 MiB)`);
check(await metric(a.httpPort, 'vigil_trace_exports_total') >= 300, 'exports are counted');

// ---------------------------------------------------------------------------- `vigil trace`

const cli = spawnSync(args.vigil, ['trace', '--http', `127.0.0.1:${a.httpPort}`, '--peer', b.name], { encoding: 'utf8', timeout: 15000 });
check(cli.status === 0, `vigil trace exits 0 (${cli.stderr})`);
const viaCli = parseCsv(cli.stdout);
check(viaCli.rows.length >= tb.rows.length && viaCli.rows[0].sender === b.name, '`vigil trace` writes the CSV to stdout');
const cliUnknown = spawnSync(args.vigil, ['trace', '--http', `127.0.0.1:${a.httpPort}`, '--peer', 'nobody-here'], { encoding: 'utf8', timeout: 15000 });
check(cliUnknown.status === 1 && cliUnknown.stderr.includes('404') && cliUnknown.stdout === '',
      `an unknown peer: exit 1, nothing on stdout (${cliUnknown.stderr.trim()})`);
const cliNoPeer = spawnSync(args.vigil, ['trace', '--http', `127.0.0.1:${a.httpPort}`], { encoding: 'utf8', timeout: 15000 });
check(cliNoPeer.status === 2, 'no --peer: exit 2');
// A port nobody listens on: b's protocol port speaks UDP and push-pull, but c's UDP port has
// no HTTP; a closed loopback port refuses at once.
const closed = await new Promise((resolve) => {
  const s = http.createServer();
  s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
});
const cliRefused = spawnSync(args.vigil, ['trace', '--http', `127.0.0.1:${closed}`, '--peer', b.name], { encoding: 'utf8', timeout: 15000 });
check(cliRefused.status === 1 && /refused/i.test(cliRefused.stderr), `a refused connection: exit 1 (${cliRefused.stderr.trim()})`);
// A server that accepts and never answers: the timeout ends the wait.
const silent = http.createServer(() => {});
await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
const t0 = Date.now();
const cliTimeout = spawnSync(args.vigil, ['trace', '--http', `127.0.0.1:${silent.address().port}`, '--peer', b.name,
                                          '--timeout', '500ms'], { encoding: 'utf8', timeout: 15000 });
const waited = Date.now() - t0;
silent.close();
silent.closeAllConnections();
check(cliTimeout.status === 1 && /within 500 ms/.test(cliTimeout.stderr) && waited < 5000,
      `a silent server: exit 1 after ${waited} ms (${cliTimeout.stderr.trim()})`);

cluster.stop();
console.log('trace: all checks passed');
