#!/usr/bin/env node
// Runs the lab experiments whose numbers the explainer (assets/explainer.html) states, and writes
// them to one JSON file the page reads: { experiments: { key: { command, result } } }.
//
//   node scripts/explainer_data.mjs <path to vigil> <output.json>
//
// Every experiment has a fixed seed (the lab's defaults), so the file is the same on every run.
// tests/e2e/explainer.test.mjs reruns this and checks that the page shows what it produced.
import { execFile } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

// The heartbeat trace the explainer tunes on: two real agents, recorded by
// scripts/capture_trace.mjs (its first lines say how) and served next to the page.
export const trace = 'assets/traces/lan-loss10-pauses.csv';

// key -> arguments after `vigil lab`, or {command} for another vigil command (--format json is
// added; a path under assets/ is read from this repository).
export const experiments = {
  phi_example: ['phi', '--mean', '1000', '--std', '50', '--silence', '1200'],
  phi_example_exponential: ['phi', '--mean', '1000', '--std', '50', '--silence', '1200', '--model', 'exponential'],
  detectors: ['detectors', '--scenario', 'all'],
  timeouts: ['timeouts'],
  heartbeats: ['heartbeats'],
  gossip_table: ['gossip', '--table'],
  gossip_pull: ['gossip', '--nodes', '1000', '--mode', 'pull'],
  gossip_pushpull: ['gossip', '--nodes', '1000', '--mode', 'pushpull'],
  membership: ['membership'],
  swim_probe_5_0: ['swim-probe', '--loss', '0.05', '--indirect', '0'],
  swim_probe_5_3: ['swim-probe', '--loss', '0.05', '--indirect', '3'],
  swim_probe_20_0: ['swim-probe', '--loss', '0.2', '--indirect', '0'],
  swim_probe_20_3: ['swim-probe', '--loss', '0.2', '--indirect', '3'],
  swim_crash: ['swim', '--nodes', '100', '--kill', '1'],
  cost: ['cost'],
  lifeguard_off: ['swim', '--nodes', '20', '--slow', '1', '--periods', '300', '--lifeguard', 'off'],
  lifeguard_on: ['swim', '--nodes', '20', '--slow', '1', '--periods', '300', '--lifeguard', 'on'],
  fencing: ['fencing'],
  fencing_off: ['fencing', '--fencing', 'off'],
  chain_table: ['retry', 'chain', '--table'],
  hysteresis: ['retry', 'hysteresis'],
  fleet_none: ['retry', 'fleet', '--strategy', 'none'],
  fleet_exponential: ['retry', 'fleet', '--strategy', 'exponential'],
  fleet_full_jitter: ['retry', 'fleet', '--strategy', 'full-jitter'],
  server_none: ['retry', 'server', '--mitigation', 'none'],
  server_all: ['retry', 'server', '--mitigation', 'all'],
  trace_detectors: ['detectors', '--trace', trace],
  trace_tune: { command: ['tune', '--trace', trace, '--max-mistakes-per-hour', '10', '--nodes', '5'] },
};

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const argv = (spec) => (Array.isArray(spec) ? ['lab', ...spec] : spec.command);

async function main() {
  const [vigil, out] = process.argv.slice(2);
  if (!vigil || !out) {
    console.error('usage: node scripts/explainer_data.mjs <path to vigil> <output.json>');
    process.exit(2);
  }
  const keys = Object.keys(experiments);
  const results = {};
  let done = 0;
  // Two at a time: the build machines have two cores.
  const queue = [...keys];
  const worker = async () => {
    for (let key = queue.shift(); key; key = queue.shift()) {
      const shown = argv(experiments[key]);
      const args = [...shown.map((a) => (a.startsWith('assets/') ? path.join(repo, a) : a)), '--format', 'json'];
      let stdout;
      try {
        ({ stdout } = await run(vigil, args, { maxBuffer: 64 << 20 }));
      } catch (e) {
        throw new Error(`vigil ${args.join(' ')} failed: ${e.stderr || e.message}`, { cause: e });
      }
      // As a reader would type it next to the page: the trace is served from traces/.
      const command = `vigil ${shown.map((a) => a.replace(/^assets\//, '')).join(' ')}`;
      results[key] = { command, result: JSON.parse(stdout) };
      ++done;
      process.stderr.write(`explainer data: ${done}/${keys.length} ${key}\n`);
    }
  };
  await Promise.all([worker(), worker()]);
  const ordered = Object.fromEntries(keys.map((k) => [k, results[k]]));
  mkdirSync(path.dirname(out), { recursive: true });
  // Written whole, then renamed: a reader never sees half a file.
  writeFileSync(`${out}.tmp`, JSON.stringify({ experiments: ordered }, null, 1));
  renameSync(`${out}.tmp`, out);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e.message);
    process.exit(1);
  });
}
