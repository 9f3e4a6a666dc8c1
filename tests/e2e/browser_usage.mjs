// What a headless Chromium costs the machine: CPU time and memory of the browser process and
// all its children (renderers, GPU, network...), read from /proc. Linux only.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { launchBrowser } from './harness.mjs';

const kTicksPerSecond = 100;  // USER_HZ on Linux

function read(path) {
  try { return readFileSync(path, 'utf8'); } catch { return null; }  // processes come and go
}

function pids() {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
}

// Launches Chromium with the harness's flags and a marker that finds its main process.
export async function launchMeasuredBrowser() {
  const marker = `--vigil-measured=${randomUUID()}`;
  const browser = await launchBrowser([marker]);
  const root = pids().find((p) => {
    const cmd = read(`/proc/${p}/cmdline`);
    return cmd && cmd.includes(marker) && !cmd.includes('--type=');
  });
  if (!root) throw new Error('cannot find the browser process');
  return { browser, root };
}

function tree(root) {
  const children = new Map();
  for (const p of pids()) {
    const stat = read(`/proc/${p}/stat`);
    if (!stat) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(p);
  }
  const out = [];
  const walk = (p) => { out.push(p); for (const c of children.get(p) || []) walk(c); };
  walk(root);
  return out;
}

// CPU seconds so far, resident memory summed over processes (shared pages counted in each) and
// proportional set size (each shared page split between its users: what the browser really
// holds), in MB.
export function usage(root) {
  let ticks = 0, rssKb = 0, pssKb = 0;
  for (const p of tree(root)) {
    const stat = read(`/proc/${p}/stat`);
    const status = read(`/proc/${p}/status`);
    const rollup = read(`/proc/${p}/smaps_rollup`);
    if (!stat || !status || !rollup) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);  // utime + stime
    rssKb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] || 0);
    pssKb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] || 0);
  }
  return { cpuSeconds: ticks / kTicksPerSecond, rssMB: rssKb / 1024, pssMB: pssKb / 1024 };
}
