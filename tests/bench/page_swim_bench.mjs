// The SWIM engine in the demo page against the same engine natively, in one run: the page
// (`?demo=swim&n=1000&profile=lan&loss=1&embed=1` in headless Chromium) simulates a fixed number
// of probe periods, then `vigil_bench_swim` simulates the same scenario; page and native runs
// alternate, since this machine's speed drifts within minutes. The page's rate is its simulated
// datagrams per second spent in the panel's advance() (window.vigil.state().app_perf), which
// leaves the panel's construction out (state().setup_ms) as the native bench reports its setup
// apart; the figure with construction is printed too.
//   node tests/bench/page_swim_bench.mjs --vigil build/bin/vigil --bench build-bench/bin/vigil_bench_swim \
//        --web build/web [--runs 3] [--periods 46] [--speed 1] [--native-repeats 3] [--wasm-bench swim_bench.js]
// A native run of 46 periods lasts a few tenths of a second, so each pair's native figure is the
// median of --native-repeats runs back to back. --wasm-bench adds the same engine as WebAssembly
// under Node (built as docs/benchmarks.md shows) to each pair, median of as many runs.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { launchBrowser, openPage, startServer, waitForFrames } from '../e2e/harness.mjs';

const run = promisify(execFile);

function parseArgs(argv) {
  const args = { runs: '3', periods: '46', 'native-repeats': '3' };
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) throw new Error(`bad argument ${argv[i]}`);
    args[argv[i].slice(2)] = argv[i + 1];
  }
  for (const key of ['vigil', 'bench', 'web'])
    if (!args[key]) throw new Error(`missing --${key}`);
  return args;
}

const args = parseArgs(process.argv.slice(2));
const runs = Number(args.runs);
const periods = Number(args.periods);
const probeIntervalMs = 1000;  // the LAN profile's
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// One page run: open the demo, wait until it has simulated `periods` probe periods, read its
// counters. Frame costs are sampled along the way (app_perf keeps the last 120 frames only).
async function pageRun(browser, url) {
  const { page, errors } = await openPage(browser, { width: 1280, height: 800 });
  try {
    await page.goto(url);
    await waitForFrames(page, 2, 60000);
    const target = periods * probeIntervalMs;
    const medians = [], p95s = [];
    // Real time needed is target / speed; allow four times that plus a minute for slow frames.
    const deadline = Date.now() + (4 * target) / Number(args.speed || 1) + 60000;
    let s;
    for (;;) {
      // Once a second: building the state costs the page a few milliseconds of its own.
      s = await page.evaluate(() => {
        const st = window.vigil.state();
        return { sim_ms: st.sim_ms, datagrams: st.datagrams, perf: st.app_perf,
                 setup_ms: st.setup_ms, setup_datagrams: st.setup_datagrams };
      });
      if (s.perf.frames_measured >= 60) {
        medians.push(s.perf.frame_cost_ms_median);
        p95s.push(s.perf.frame_cost_ms_p95);
      }
      if (s.sim_ms >= target) break;
      if (Date.now() > deadline) throw new Error(`the page reached only ${s.sim_ms} ms of ${target}`);
      await new Promise((r) => setTimeout(r, 1000));  // the poll interval, not a synchronisation
    }
    if (errors.length) throw new Error(`console errors: ${errors.join(' | ')}`);
    // Datagrams of a warm-up run while the panel was built (&kill=...) are not in advance().
    const setupMs = s.setup_ms ?? 0;
    const simulated = s.datagrams - (s.setup_datagrams ?? 0);
    const advanceMs = s.perf.advance_ms_total;
    return {
      sim_ms: s.sim_ms,
      datagrams: simulated,
      advance_s: advanceMs / 1000,
      setup_s: setupMs / 1000,
      rate: simulated / (advanceMs / 1000),
      rate_with_setup: s.datagrams / ((advanceMs + setupMs) / 1000),
      frame_median: median(medians),
      frame_p95: median(p95s),
    };
  } finally {
    await page.close();
  }
}

// The median of --native-repeats runs of the bench: `command` and the arguments before its own.
async function benchRuns(command, prefix) {
  const results = [];
  for (let i = 0; i < Number(args['native-repeats']); ++i) {
    const { stdout } = await run(command, [...prefix, '--nodes', '1000', '--periods', String(periods), '--loss', '0.01'],
                                 { maxBuffer: 1 << 20 });
    results.push(JSON.parse(stdout));
  }
  const r = results.sort((a, b) => a.msgs_per_s - b.msgs_per_s)[(results.length - 1) >> 1];
  return { datagrams: r.datagrams, run_s: r.run_s, setup_s: r.setup_s, rate: r.msgs_per_s,
           rates: results.map((x) => Math.round(x.msgs_per_s)) };
}

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
const pairs = [];
try {
  const speed = args.speed ? `&speed=${args.speed}` : '';
  const url = `${server.url}?demo=swim&n=1000&profile=lan&loss=1&embed=1${speed}`;
  for (let i = 0; i < runs; ++i) {
    const page = await pageRun(browser, url);
    const native = await benchRuns(args.bench, []);
    const wasm = args['wasm-bench'] ? await benchRuns(process.execPath, [args['wasm-bench']]) : null;
    const ratio = page.rate / native.rate;
    pairs.push({ page, native, wasm, ratio });
    console.log(`run ${i + 1}: page ${page.rate.toFixed(0)} datagrams/s (${page.datagrams} in ` +
                `${page.advance_s.toFixed(2)} s of advance(), ${(page.sim_ms / 1000).toFixed(1)} simulated s; ` +
                `${page.rate_with_setup.toFixed(0)}/s counting the ${page.setup_s.toFixed(2)} s construction; ` +
                `frame cost median ${page.frame_median.toFixed(1)} ms, p95 ${page.frame_p95.toFixed(1)} ms), ` +
                `native ${native.rate.toFixed(0)} datagrams/s (median of ${native.rates.join(', ')}; ` +
                `${native.datagrams} in ${native.run_s.toFixed(3)} s, setup ${native.setup_s.toFixed(2)} s), ` +
                (wasm ? `wasm under Node ${wasm.rate.toFixed(0)} (median of ${wasm.rates.join(', ')}; ` +
                        `ratio ${(wasm.rate / native.rate).toFixed(3)}), ` : '') +
                `ratio ${ratio.toFixed(3)}`);
  }
} finally {
  await browser.close();
  server.stop();
}
const summary = {
  periods,
  runs,
  page_datagrams_per_s: pairs.map((p) => Math.round(p.page.rate)),
  native_datagrams_per_s: pairs.map((p) => Math.round(p.native.rate)),
  ratios: pairs.map((p) => Number(p.ratio.toFixed(3))),
  median_ratio: Number(median(pairs.map((p) => p.ratio)).toFixed(3)),
  ratios_counting_construction: pairs.map((p) => Number((p.page.rate_with_setup / p.native.rate).toFixed(3))),
  ...(args['wasm-bench'] ? {
    wasm_ratios: pairs.map((p) => Number((p.wasm.rate / p.native.rate).toFixed(3))),
    page_to_wasm_ratios: pairs.map((p) => Number((p.page.rate / p.wasm.rate).toFixed(3))),
  } : {}),
  frame_cost_ms_median: Number(median(pairs.map((p) => p.page.frame_median)).toFixed(1)),
  frame_cost_ms_p95: Number(median(pairs.map((p) => p.page.frame_p95)).toFixed(1)),
};
console.log(JSON.stringify(summary));
