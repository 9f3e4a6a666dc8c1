// What an agent process costs, read from /proc (Linux): resident memory, its high-water mark
// sampled all along, and CPU time; and every sample of its /metrics at once.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { httpGet } from './harness.mjs';

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

export function rssKB(pid) {
  return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)[1]);
}

// User and kernel time, in seconds.
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) / ticksPerSecond, system: Number(fields[12]) / ticksPerSecond };
}

// RSS sampled every 20 ms, so a peak between two checks is seen too.
export function rssSampler(pid) {
  const s = { peakKB: rssKB(pid) };
  const timer = setInterval(() => { try { s.peakKB = Math.max(s.peakKB, rssKB(pid)); } catch { /* exited */ } }, 20);
  s.stop = () => clearInterval(timer);
  return s;
}

// Every unlabelled sample of /metrics, by name.
export async function metrics(agent, timeoutMs = 5000) {
  const text = (await httpGet(agent.httpPort, '/metrics', timeoutMs)).body;
  const out = {};
  for (const m of text.matchAll(/^(vigil_\w+) (\d+)$/gm)) out[m[1]] = Number(m[2]);
  return out;
}
