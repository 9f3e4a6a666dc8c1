// The benchmark's network: a port plan and nft counters and loss inside the namespace.
import { execFileSync } from 'node:child_process';

// Agents of one kind get indices 0..MAX_AGENTS-1, plus index N for the member that joins late.
export const MAX_AGENTS = 1000;
const SPAN = MAX_AGENTS + 1;

// Protocol ports and HTTP/RPC ports in separate ranges per kind, all below the kernel's ephemeral
// range (32768+), so the nft counters can tell gossip from the benchmark's own polling.
export const PLAN = {
  vigil: { gossip: 20000, control: 22000 },
  serf: { gossip: 24000, control: 26000 },
};

function nft(script) { execFileSync('nft', ['-f', '-'], { input: script }); }

export function nftSetup() {
  let rules = '';
  let counters = '';
  for (const [kind, p] of Object.entries(PLAN)) {
    const range = `${p.gossip}-${p.gossip + SPAN - 1}`;
    for (const proto of ['udp', 'tcp']) {
      counters += `  counter ${kind}_${proto} {}\n`;
      // Each packet crosses `output` once on lo: count it when it leaves a gossip port, or when it
      // enters one from elsewhere (TCP streams from ephemeral ports) — never twice.
      rules += `    ${proto} sport ${range} counter name ${kind}_${proto}\n`;
      rules += `    ${proto} dport ${range} ${proto} sport != ${range} counter name ${kind}_${proto}\n`;
    }
  }
  nft(`table inet vsb {\n${counters}  chain count { type filter hook output priority 0; policy accept;\n${rules}  }\n` +
      `  chain loss { type filter hook output priority 10; policy accept; }\n}\n`);
}

export function nftCounters(kind) {
  const j = JSON.parse(execFileSync('nft', ['-j', 'list', 'counters'], { encoding: 'utf8' }));
  const out = { udp: { bytes: 0, packets: 0 }, tcp: { bytes: 0, packets: 0 } };
  for (const item of j.nftables)
    if (item.counter && item.counter.name.startsWith(`${kind}_`))
      out[item.counter.name.slice(kind.length + 1)] = { bytes: item.counter.bytes, packets: item.counter.packets };
  return out;
}

export function setLoss(percent) {
  execFileSync('nft', ['flush', 'chain', 'inet', 'vsb', 'loss']);
  if (percent > 0)
    execFileSync('nft', ['add', 'rule', 'inet', 'vsb', 'loss', 'meta', 'l4proto', 'udp', 'numgen', 'random', 'mod', '100',
                         '<', String(percent), 'drop']);
}
