// How busy the whole machine is: the share of CPU time, over all cores, not spent idle or waiting
// for I/O between two readings of /proc/stat.
import { readFileSync } from 'node:fs';

export function cpuTimes() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number);
  return { idle: idle + iowait, total: user + nice + system + idle + iowait + irq + softirq + steal };
}

// The busy share, 0..1, from `before` (a cpuTimes() reading) to now.
export function busySince(before, now = cpuTimes()) {
  const total = now.total - before.total;
  return total > 0 ? 1 - (now.idle - before.idle) / total : 0;
}
