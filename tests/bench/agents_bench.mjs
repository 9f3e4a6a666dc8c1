// Resource use of real agents: N agents (LAN profile) on loopback, measured over a quiet window.
// Prints one JSON document: RSS, CPU and bytes per second per agent (mean and max).
//   node tests/bench/agents_bench.mjs --vigil build/bin/vigil [--agents 20] [--seconds 60] [--profile lan]
import { readFileSync } from 'node:fs';
import { Cluster, httpGet, parseArgs, waitFor } from '../agent/harness.mjs';

const args = parseArgs(process.argv.slice(2));
const count = Number(args.agents || 20);
const seconds = Number(args.seconds || 60);
const cluster = new Cluster(args.vigil, args.profile || 'lan');
process.on('exit', () => cluster.stop());

const ticks = 100;  // USER_HZ on Linux
function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);  // utime + stime
}
function rssKb(pid) { return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]); }
async function bytesOut(agent) {
  return Number((await httpGet(agent.httpPort, '/metrics')).body.match(/vigil_bytes_sent_total (\d+)/)[1]);
}

await cluster.start(count);
await waitFor(() => cluster.allSee('alive'), 60000, 'convergence', 500);
const t0 = Date.now();
const cpu0 = cluster.agents.map((a) => cpuTicks(a.child.pid));
const bytes0 = await Promise.all(cluster.agents.map(bytesOut));
await new Promise((r) => setTimeout(r, seconds * 1000));  // the measurement window itself
const elapsed = (Date.now() - t0) / 1000;
const cpu = cluster.agents.map((a, i) => (cpuTicks(a.child.pid) - cpu0[i]) / ticks / elapsed * 100);
const bytes = (await Promise.all(cluster.agents.map(bytesOut))).map((b, i) => (b - bytes0[i]) / elapsed);
const rss = cluster.agents.map((a) => rssKb(a.child.pid));
const stat = (xs) => ({ mean: xs.reduce((s, x) => s + x, 0) / xs.length, max: Math.max(...xs) });
console.log(JSON.stringify({ agents: count, profile: cluster.profile, seconds: elapsed,
  rss_kb: stat(rss), cpu_percent: stat(cpu), bytes_sent_per_s: stat(bytes) }, null, 2));
cluster.stop();
