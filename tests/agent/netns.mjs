// Network namespaces for the tests that need hosts other than loopback: each test makes its own
// (`ip netns add`), and everything it made is gone when it exits, its processes killed first.
// Root and iproute2 are needed; a test without them is skipped (exit 77, CTest's
// SKIP_RETURN_CODE), not failed.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

export function skip(why) {
  console.log(`# skipped: ${why}`);
  process.exit(77);
}

export function skipUnlessNetns(what) {
  if (!process.getuid || process.getuid() !== 0) skip(`${what} needs root (network namespaces)`);
  if (spawnSync('ip', ['netns', 'list']).status !== 0) skip('`ip netns` is unavailable (iproute2)');
}

// Runs a command to completion, failing with its error output; returns its standard output.
export function sh(cmd, argv, input) {
  const r = spawnSync(cmd, argv, { encoding: 'utf8', input });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')}: ${r.stderr || r.error}`);
  return r.stdout;
}

// Names unique to this run ("vigil-3fa9c1-NAME"), so that runs side by side never meet.
const suffix = Math.random().toString(16).slice(2, 8);
const created = [];

export function namespaceName(name) {
  return `vigil-${suffix}-${name}`;
}

// Adds a namespace (and remembers it for the teardown); returns its full name.
export function addNamespace(name) {
  const ns = namespaceName(name);
  sh('ip', ['netns', 'add', ns]);
  created.push(ns);
  return ns;
}

// Kills what runs in each namespace made here, deletes it and its /etc/netns folder.
export function teardownNamespaces() {
  for (const ns of created) {
    spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).stdout?.split('\n').filter(Boolean)
      .forEach((pid) => { try { process.kill(Number(pid), 'SIGKILL'); } catch { /* already gone */ } });
    spawnSync('ip', ['netns', 'del', ns]);
    rmSync(`/etc/netns/${ns}`, { recursive: true, force: true });
  }
  created.length = 0;
}
process.on('exit', teardownNamespaces);
