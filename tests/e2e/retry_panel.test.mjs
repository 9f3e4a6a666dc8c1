// The retry-storm panel in headless Chromium: each of its four views renders, advances, and shows
// the numbers `vigil lab retry ...` prints for the same parameters.
import { execFileSync } from 'node:child_process';
import { artifact, check, launchBrowser, openPage, parseArgs, screenshotStats, startServer,
         waitForFrames } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));

// The CLI's JSON report (its progress bar goes to stderr, which is dropped).
function cli(argv) {
  const out = execFileSync(args.vigil, [...argv, '--format', 'json'],
                           { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return JSON.parse(out);
}

// Same number to within rounding: the page runs on WebAssembly's libm, the CLI on glibc's.
function close(a, b, rel = 1e-9) {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= rel * Math.max(1, Math.abs(b));
}

async function state(page) {
  return page.evaluate(() => window.vigil.state());
}

async function open(browser, query, viewport) {
  const opened = await openPage(browser, viewport);
  await opened.page.goto(`${server.url}?demo=retry&${query}`);
  await waitForFrames(opened.page, 2);
  return opened;
}

async function notBlank(browser, page, name) {
  const stats = await screenshotStats(browser, page, artifact(args, name));
  check(stats.colors > 200 && stats.nonBackground > 0.05,
        `${name} is not blank (${stats.colors} colours, ${(stats.nonBackground * 100).toFixed(1)}% drawn)`);
}

function frameTimes(s, what) {
  const perf = s.app_perf || {};
  console.log(`# ${what}: panel advance up to ${s.perf.advance_ms_max.toFixed(1)} ms a frame, draw ${s.perf.draw_ms.toFixed(1)} ms` +
              (perf.frame_cost_ms_median !== undefined
                ? `; frame cost median ${perf.frame_cost_ms_median.toFixed(1)} ms, p95 ${perf.frame_cost_ms_p95.toFixed(1)} ms`
                : ''));
}

const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();
const errors = [];
try {
  // 1. The hysteresis loop: the sweep finishes in the page and finds the expected loop.
  for (const query of ['view=hysteresis', 'view=hysteresis&gamma=3&timeout=60&step=50']) {
    const { page, errors: pageErrors } = await open(browser, query);
    const started = Date.now();
    await page.waitForFunction(() => {
      const s = window.vigil.state();
      return s.hysteresis && s.hysteresis.done && s.hysteresis.equilibria_done;
    }, null, { timeout: 60000, polling: 100 });
    const s = await state(page);
    const h = s.hysteresis;
    check(s.demo === 'retry' && s.view === 'hysteresis', `${query}: the retry demo's hysteresis view`);
    console.log(`# ${query}: ${h.points} loads swept in ${Date.now() - started} ms ` +
                `(${h.compute_ms.toFixed(0)} ms of compute)`);
    check(h.points === h.total && h.progress === 1, `all ${h.total} loads swept`);
    check(h.collapse_load > h.recovery_load,
          `collapse ${h.collapse_load} > recovery ${h.recovery_load} req/s`);
    const p = h.params;
    const expected = cli(['lab', 'retry', 'hysteresis', '--timeout', String(p.timeout),
      '--mu-max', String(p.mu_max), '--l0', String(p.l0), '--alpha', String(p.alpha),
      '--beta', String(p.beta), '--gamma', String(p.gamma), '--kappa', String(p.kappa),
      '--eta', String(p.eta), '--max-latency', String(p.max_latency),
      '--lambda-min', String(p.lambda_min), '--lambda-max', String(p.lambda_max),
      '--step', String(p.step)]);
    check(h.collapse_load === expected.collapse_load && h.recovery_load === expected.recovery_load,
          `the CLI agrees: collapse ${expected.collapse_load}, recovery ${expected.recovery_load}`);
    check(h.sweep.lambda0.length === expected.sweep.length, 'as many loads as the CLI');
    let worst = 0;
    check(expected.sweep.every((row, i) => row.lambda0 === h.sweep.lambda0[i] &&
                                           (row.direction === 'up') === h.sweep.up[i]),
          'the same loads in the same order, up then down');
    expected.sweep.forEach((row, i) => {
      worst = Math.max(worst, Math.abs(row.latency_ms - h.sweep.latency_ms[i]) / row.latency_ms,
                       Math.abs(row.goodput - h.sweep.goodput[i]) / Math.max(1, row.goodput));
    });
    check(worst <= 1e-6, `every settled latency and goodput equals the CLI's (worst relative difference ${worst})`);
    if (query === 'view=hysteresis') {
      check(h.collapse_load === 950 && h.recovery_load === 325, 'the defaults: 950 and 325 req/s');
      check(h.equilibria.unstable > 0, `unstable equilibria drawn between the branches (${h.equilibria.unstable})`);
      frameTimes(s, 'hysteresis');
      await notBlank(browser, page, 'retry_hysteresis.png');
    } else {
      check(p.gamma === 3 && p.timeout === 60 && p.step === 50, 'URL parameters reach the model');
    }
    errors.push(...pageErrors);
    await page.close();
  }

  // 2. Chain amplification for one setting given by the URL (a row of the reference table).
  {
    const { page, errors: pageErrors } = await open(browser, 'view=chain&depth=5&tries=3&fail=0.3');
    const c = (await state(page)).chain;
    check(c.depth === 5 && c.tries === 3 && c.fail === 0.3, 'URL parameters reach the chain');
    const expected = cli(['lab', 'retry', 'chain', '--depth', '5', '--retries', '3', '--fail', '0.3']);
    for (const key of ['calls_per_request', 'amplification', 'worst_case', 'success'])
      check(close(c[key], expected[key], 1e-12), `chain ${key}: page ${c[key]} = CLI ${expected[key]}`);
    check(c.reference_row === 3, 'the current setting is highlighted as the reference table\'s fourth row');
    await notBlank(browser, page, 'retry_chain.png');
    errors.push(...pageErrors);
    await page.close();
  }

  // 3. The client fleet, playing: time advances and jitter keeps the peak down.
  {
    const { page, errors: pageErrors } = await open(browser, 'view=fleet&autoplay=1&speed=15');
    await page.waitForFunction(() => window.vigil.state().fleet.second >= 2, null, { timeout: 30000, polling: 50 });
    const first = (await state(page)).fleet.second;
    await page.waitForFunction((t) => window.vigil.state().fleet.second > t, first, { timeout: 30000, polling: 50 });
    check(true, `the fleets advance on their own (second ${first} and on)`);
    await page.waitForFunction(() => window.vigil.state().fleet.finished, null, { timeout: 60000, polling: 100 });
    const s = await state(page);
    const f = s.fleet;
    check(f.second === f.seconds, `the run ends at ${f.seconds} s`);
    const st = f.strategies;
    check(st['full-jitter'].peak_rps < st.exponential.peak_rps,
          `full jitter peaks lower (${st['full-jitter'].peak_rps} req/s) than exponential without jitter (${st.exponential.peak_rps})`);
    check(st['full-jitter'].unfinished === 0 && st.exponential.unfinished > 0,
          'full jitter serves everyone; synchronised exponential retries leave clients waiting');
    for (const name of ['full-jitter', 'exponential', 'none']) {
      const expected = cli(['lab', 'retry', 'fleet', '--strategy', name]);
      const got = st[name];
      check(got.peak_rps === expected.peak_rps && got.total_calls === expected.total_calls &&
            got.unfinished === expected.unfinished &&
            JSON.stringify(got.offered) === JSON.stringify(expected.per_second.map((r) => r.offered)),
            `${name}: peak ${got.peak_rps}, calls ${got.total_calls}, unfinished ${got.unfinished} and every second equal the CLI's`);
    }
    frameTimes(s, 'fleet');
    await notBlank(browser, page, 'retry_fleet.png');
    errors.push(...pageErrors);
    await page.close();
  }

  // 4. The metastable server with every mitigation, against none, playing.
  {
    const { page, errors: pageErrors } = await open(browser, 'view=server&mitigations=all&autoplay=1&speed=30');
    // What the page was doing, for a wait that ends without the server having moved.
    const stalled = async (what) => {
      const st = await state(page);
      const frames = await page.evaluate(() => window.vigil.frames());
      return `${what}: second ${st.server.second}, finished ${st.server.finished}, ${frames} frames drawn`;
    };
    const started = await page.waitForFunction(() => window.vigil.state().server.second >= 2, null,
                                               { timeout: 60000, polling: 50 }).then(() => true, () => false);
    check(started, started ? 'autoplay starts the server' : await stalled('autoplay did not reach second 2 in 60 s'));
    const first = (await state(page)).server.second;
    const moved = await page.waitForFunction((t) => window.vigil.state().server.second > t, first,
                                             { timeout: 60000, polling: 50 }).then(() => true, () => false);
    check(moved, moved ? `the server advances on its own (second ${first} and on)` : await stalled('stopped'));
    await page.waitForFunction(() => window.vigil.state().server.finished, null, { timeout: 60000, polling: 100 });
    const s = await state(page);
    const v = s.server;
    check(v.mitigations === 'all', 'mitigations=all reaches the server');
    check(v.summary.recovered === true, `with every mitigation it recovers (goodput ${v.summary.goodput_before.toFixed(0)} before, ${v.summary.goodput_after.toFixed(0)} after)`);
    check(v.baseline && v.baseline.summary.recovered === false,
          `without them it stays down (goodput after ${v.baseline.summary.goodput_after})`);
    check(v.goodput > 0 && v.throughput >= v.goodput, `last second: throughput ${v.throughput} >= goodput ${v.goodput}`);
    for (const [run, mitigation] of [[v.run, 'all'], [v.baseline, 'none']]) {
      const expected = cli(['lab', 'retry', 'server', '--mitigation', mitigation]);
      const keys = ['goodput_before', 'goodput_during', 'goodput_after', 'retry_share', 'wasted_share'];
      check(keys.every((k) => close(run.summary[k], expected[k], 1e-6)) &&
            run.summary.recovered === expected.recovered,
            `mitigation ${mitigation}: the summary equals the CLI's (${keys.map((k) => `${k} ${expected[k].toFixed(3)}`).join(', ')})`);
      check(JSON.stringify(run.goodput) === JSON.stringify(expected.series.map((r) => r.goodput)),
            `mitigation ${mitigation}: goodput second by second equals the CLI's`);
    }
    frameTimes(s, 'server');
    await notBlank(browser, page, 'retry_server.png');
    errors.push(...pageErrors);
    await page.close();
  }

  // 5. Embedded in a small iframe-sized window: only the panel, still drawn.
  {
    const { page, errors: pageErrors } = await open(browser, 'view=hysteresis&embed=1', { width: 900, height: 560 });
    await page.waitForFunction(() => window.vigil.state().hysteresis.done, null, { timeout: 60000, polling: 100 });
    const s = await state(page);
    check(s.embed === true && s.hysteresis.collapse_load === 950, 'embedded, the same loop');
    await notBlank(browser, page, 'retry_embed.png');
    errors.push(...pageErrors);
    await page.close();
  }

  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
} finally {
  await browser.close();
  server.stop();
}
