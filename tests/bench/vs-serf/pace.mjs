// Bounded waiting and bounded concurrency: every wait of the benchmark ends, and polling hundreds
// of agents never runs more than a few requests at once nor more than a set number per second.
import { performance } from 'node:perf_hooks';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function waitFor(probe, timeoutMs, what, intervalMs = 200) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (performance.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(intervalMs);
  }
}

// A queue that starts at most `concurrency` tasks at a time and at most `perSecond` per second.
export function limiter(concurrency, perSecond) {
  let active = 0;
  let nextStart = 0;
  let timer = null;
  const queue = [];
  const pump = () => {
    while (active < concurrency && queue.length) {
      const wait = nextStart - performance.now();
      if (wait > 0) {
        if (!timer) timer = setTimeout(() => { timer = null; pump(); }, wait);
        return;
      }
      nextStart = Math.max(nextStart, performance.now()) + 1000 / perSecond;
      const { fn, resolve, reject } = queue.shift();
      ++active;
      Promise.resolve().then(fn).then(resolve, reject).finally(() => { --active; pump(); });
    }
  };
  return (fn) => new Promise((resolve, reject) => { queue.push({ fn, resolve, reject }); pump(); });
}

// Calls `report()` at most every `everyMs` while a long phase runs.
export function progress(everyMs, report) {
  let last = performance.now();
  return () => {
    if (performance.now() - last < everyMs) return;
    last = performance.now();
    report();
  };
}
