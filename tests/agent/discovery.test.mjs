// Discovery for viewers: every agent advertises its live view's URL in its memberlist metadata,
// as the Serf tag vigil-view, and every members list (/v1/members, WebSocket snapshots) carries
// each vigil member's "view". Three agents: each lists the other two with a view that answers
// /v1/self under the right name, and the metadata stays within memberlist's 512 bytes.
import { spawn, spawnSync } from 'node:child_process';
import { Cluster, Viewer, check, freePort, installCleanup, parseArgs, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const cluster = new Cluster(args.vigil);
installCleanup(cluster);
await cluster.start(3);
await waitFor(() => cluster.allSee('alive'), 20000, 'all three agents to see each other alive');

const selfAt = async (view) => {
  const response = await fetch(new URL('/v1/self', view), { signal: AbortSignal.timeout(2000) });
  return response.json();
};

for (const observer of cluster.agents) {
  const members = await cluster.members(observer);
  for (const other of cluster.agents) {
    if (other === observer) continue;
    const m = members[other.name];
    check(m.view === `http://127.0.0.1:${other.httpPort}`,
          `${observer.name} lists ${other.name} with its live view ${m.view}`);
    check(m.tags['vigil-view'] === m.view && Object.keys(m.tags).length === 1,
          `as the one tag vigil-view (${JSON.stringify(m.tags)})`);
    const self = await selfAt(m.view);
    check(self.name === other.name, `${m.view}/v1/self answers as ${self.name}`);
  }
}

// The agent's own metadata, measured as memberlist carries it: the magic byte 0xFF, then a
// MessagePack map of one string to one string.
const self = await selfAt(`http://127.0.0.1:${cluster.agents[0].httpPort}`);
check(self.view === `http://127.0.0.1:${cluster.agents[0].httpPort}`, `/v1/self names its own view (${self.view})`);
const raw = (s) => (s.length < 32 ? 1 : s.length < 256 ? 2 : 3) + Buffer.byteLength(s);
const metaBytes = 1 + 1 + raw('vigil-view') + raw(self.view);
check(metaBytes < 512, `the metadata is ${metaBytes} bytes, under memberlist's 512`);

// A WebSocket snapshot carries the same fields.
const viewer = new Viewer(cluster.agents[1]);
await viewer.open;
const snapshot = await viewer.next((m) => m.type === 'snapshot', 5000, 'a snapshot');
const peer = snapshot.members.find((m) => m.name === 'agent-2');
check(peer.view === `http://127.0.0.1:${cluster.agents[2].httpPort}` && peer.tags['vigil-view'] === peer.view,
      `a snapshot lists agent-2 with its view and tags (${peer.view})`);
viewer.close();

// A URL given with --advertise-http is what the others see, and a bad one is refused.
const port = await freePort(), httpPort = await freePort();
const argv = ['agent', '--name', 'agent-3', '--bind', `127.0.0.1:${port}`, '--http', `127.0.0.1:${httpPort}`,
              '--profile', 'local', '--token-file', cluster.tokenFile, '--web', 'none', '--quiet',
              '--join', `127.0.0.1:${cluster.agents[0].port}`];
const extra = spawn(args.vigil, [...argv, '--advertise-http', 'https://view.example:8443'], { stdio: 'ignore' });
try {
  await waitFor(async () => (await cluster.members(cluster.agents[0]))['agent-3']?.state === 'alive', 20000,
                'agent-3 to join');
  const advertised = (await cluster.members(cluster.agents[0]))['agent-3'];
  check(advertised.view === 'https://view.example:8443', `--advertise-http is advertised (${advertised.view})`);
} finally {
  extra.kill('SIGKILL');
}
const refused = spawnSync(args.vigil, [...argv, '--advertise-http', 'ftp://view.example'], { encoding: 'utf8', timeout: 5000 });
check(refused.status === 2 && /advertise-http/.test(refused.stderr),
      `--advertise-http ftp://... is refused (exit ${refused.status}: ${refused.stderr.trim()})`);
cluster.stop();
process.exit(0);
