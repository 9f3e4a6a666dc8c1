// Discovery in the live view: connected to ONE agent of four, the page lists the other three
// (each advertises its live view in its metadata), adds one with its button and the rest with
// "add all", and every row connects. Then one agent is killed with SIGKILL and a fresh page is
// given all four addresses: the dead agent gets no row (its column stays while the others list
// it), the default peer of fault injection is a live member's name, and "block -> peer" works.
// Screenshots at 1280 and 360 CSS px, dark and light, go to --shots (default: the artifacts).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { layoutProblems } from './layout_checks.mjs';
import { check, drawFrames, freePort, launchBrowser, parseArgs, waitForFrames } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const shots = args.shots || args.artifacts;
mkdirSync(shots, { recursive: true });
const token = 'discovery-' + Math.random().toString(16).slice(2);
const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-discovery-'));
const tokenFile = path.join(dir, 'token');
writeFileSync(tokenFile, token + '\n');

const agents = [];
const stopAll = () => { for (const a of agents) if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill('SIGKILL'); };
process.on('exit', stopAll);

// On a timeout, `explain` says what was seen last, so a failure in CI can be read from its log.
async function poll(probe, timeoutMs, what, explain = async () => '') {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${await explain().catch((e) => `: ${e}`)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
const getJson = async (port, p) => (await fetch(`http://127.0.0.1:${port}${p}`, { signal: AbortSignal.timeout(2000) })).json();

// agent-0 serves the web app; the others let its pages open their WebSockets.
async function startAgent(name, pageOrigin) {
  const port = await freePort(), httpPort = await freePort();
  const argv = ['agent', '--name', name, '--bind', `127.0.0.1:${port}`, '--http', `127.0.0.1:${httpPort}`,
                '--profile', 'local', '--token-file', tokenFile, '--quiet', '--web', agents.length ? 'none' : args.web];
  if (pageOrigin) argv.push('--allow-origin', pageOrigin);
  if (agents.length) argv.push('--join', `127.0.0.1:${agents[0].port}`);
  const child = spawn(args.vigil, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  const agent = { name, port, httpPort, child };
  agents.push(agent);
  await poll(async () => (await getJson(httpPort, '/v1/self')).name === name, 10000, `${name} to serve /v1/self`);
  return agent;
}

const a0 = await startAgent('agent-0');
const origin = `http://127.0.0.1:${a0.httpPort}`;
for (let i = 1; i < 4; ++i) await startAgent(`agent-${i}`, origin);

// A Serf agent in the cluster, when Serf is installed: a member with no live view of its own.
let serf = null;
try {
  execFileSync('serf', ['version'], { stdio: 'ignore' });
  const port = await freePort(), rpcPort = await freePort();
  serf = { name: 'serf-0', log: '', child: spawn('serf', ['agent', '-node=serf-0', `-bind=127.0.0.1:${port}`,
    `-rpc-addr=127.0.0.1:${rpcPort}`, '-profile=lan', '-tag', 'role=lab', `-join=127.0.0.1:${a0.port}`],
    { stdio: ['ignore', 'pipe', 'pipe'] }) };
  for (const stream of [serf.child.stdout, serf.child.stderr])
    stream.on('data', (chunk) => { serf.log = (serf.log + chunk).slice(-4000); });
  agents.push(serf);  // stopped with the others
} catch {
  console.log('note: serf is not installed; the observed-only column is not tested');
}
const others = serf ? 4 : 3;  // the members besides itself each vigil agent lists
// /v1/members lists the agent itself too: every name, Serf's included once it has joined.
const everyone = JSON.stringify(agents.map((a) => a.name).sort());
await poll(async () => {
  for (const a of agents.filter((x) => x.httpPort)) {
    const list = await getJson(a.httpPort, '/v1/members');
    if (JSON.stringify(list.map((m) => m.name).sort()) !== everyone ||
        !list.every((m) => m.state === 'alive' && (m.view || m.name === 'serf-0'))) return false;
  }
  return true;
}, 30000, 'every agent to see the others alive', async () => {
  const views = [];
  for (const a of agents.filter((x) => x.httpPort)) {
    const list = await getJson(a.httpPort, '/v1/members').catch((e) => String(e));
    views.push(`\n  ${a.name}: ${typeof list === 'string' ? list : list.map((m) => `${m.name}=${m.state}${m.view ? '+view' : ''}`).join(' ')}`);
  }
  const serfState = serf ? `\n  serf-0 exit ${serf.child.exitCode ?? serf.child.signalCode ?? 'running'}, log:\n${serf.log}` : '';
  return `; last seen:${views.join('')}${serfState}`;
});
check(true, `four vigil agents${serf ? ' and a Serf agent' : ''} see each other alive, every vigil member with its view`);

const browser = await launchBrowser();
try {
  const open = async (viewport, theme, list, touch = false) => {
    const context = await browser.newContext({ viewport, deviceScaleFactor: touch ? 2 : 1, hasTouch: touch, isMobile: touch });
    const page = await context.newPage();
    const errors = [];
    page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
    page.on('pageerror', (err) => errors.push(String(err)));
    await page.goto(`${origin}/?demo=live&theme=${theme}&token=${token}&agents=${list}`);
    await waitForFrames(page, 2, 60000);
    return { page, context, errors };
  };
  const state = (page) => page.evaluate(() => window.vigil.state());
  const until = (page, fn, arg, what, timeout = 30000) =>
    page.waitForFunction(fn, arg, { timeout, polling: 200 }).catch((e) => { throw new Error(`${what}: ${e.message}`); });
  // A widget by its label, in page coordinates, scrolled into view.
  const item = async (page, label) => {
    await drawFrames(page, 2);
    const r = (await state(page)).layout.items.find((i) => i.label === label);
    if (!r) throw new Error(`no "${label}" on screen`);
    let top = await page.evaluate(() => document.getElementById('canvas').getBoundingClientRect().top);
    const height = page.viewportSize().height;
    if (r.y + top < 40 || r.y + r.h + top > height - 40) {
      await page.evaluate((y) => window.scrollBy(0, y), r.y + top - height / 2);
      top = await page.evaluate(() => document.getElementById('canvas').getBoundingClientRect().top);
    }
    return { ...r, y: r.y + top };
  };
  const click = async (page, label, touch = false) => {
    const r = await item(page, label);
    if (touch) await page.touchscreen.tap(r.x + r.w / 2, r.y + r.h / 2);
    else {
      await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
      await page.mouse.down();
      await page.mouse.up();
    }
    await drawFrames(page, 3);
  };
  const allConnected = ([n, listed]) => {
    const s = window.vigil.state();
    return s.agents.length === n && s.agents.every((a) => a.status === 'connected' &&
      Object.keys(a.members).length === listed && Object.values(a.members).every((m) => m === 'alive'));
  };

  // ---- desktop, dark: one agent given, three discovered.
  const desk = await open({ width: 1280, height: 800 }, 'dark', `127.0.0.1:${a0.httpPort}`);
  await until(desk.page, () => {
    const s = window.vigil.state();
    return s.agents.length === 1 && s.agents[0].status === 'connected' && s.discovered.length === 3;
  }, null, 'the page to discover three agents');
  let s = await state(desk.page);
  check(JSON.stringify(s.discovered.map((d) => d.name)) === '["agent-1","agent-2","agent-3"]' &&
        s.discovered.every((d) => d.view === `http://127.0.0.1:${agents.find((a) => a.name === d.name).httpPort}`),
        `connected to agent-0 alone, the view lists ${s.discovered.map((d) => `${d.name} (${d.view})`).join(', ')}`);
  await desk.page.screenshot({ path: path.join(shots, 'live_discovered_1280_dark.png') });
  await click(desk.page, '+ agent-1');
  await until(desk.page, () => window.vigil.state().agents.some((a) => a.name === 'agent-1' && a.status === 'connected'),
              null, 'agent-1 to connect after its button');
  s = await state(desk.page);
  check(s.agents.length === 2 && s.discovered.length === 2, `"+ agent-1" adds its row (${s.agents.map((a) => a.name)})`);
  await click(desk.page, 'add all');
  await until(desk.page, allConnected, [4, others], 'all four rows to connect');
  s = await state(desk.page);
  check(s.discovered.length === 0, `"add all" adds the rest: ${s.agents.map((a) => `${a.name} ${a.status}`).join(', ')}`);
  if (serf)
    check(JSON.stringify(s.observed_only) === '["serf-0"]' && s.columns.includes('serf-0') &&
          !s.agents.some((a) => a.name === 'serf-0') &&
          s.layout.texts.some((t) => t.text === 'serf-0*'),
          `the Serf agent is a column marked observed only (serf-0*), with no row (${s.columns.join(', ')})`);
  const found = layoutProblems(s.layout, false);
  check(found.length === 0, `the desktop layout fits (${found.slice(0, 4).join('; ')})`);
  await desk.page.screenshot({ path: path.join(shots, 'live_all_1280_dark.png') });
  check(desk.errors.length === 0, `no console errors (${desk.errors.join(' | ')})`);
  await desk.context.close();

  // ---- desktop light, phone dark and light: one agent given, the rest added by button.
  for (const [viewport, theme, touch, name] of [[{ width: 1280, height: 800 }, 'light', false, '1280_light'],
                                               [{ width: 360, height: 740 }, 'dark', true, '360_dark'],
                                               [{ width: 360, height: 740 }, 'light', true, '360_light']]) {
    const v = await open(viewport, theme, `127.0.0.1:${a0.httpPort}`, touch);
    await until(v.page, () => window.vigil.state().discovered.length === 3, null, `discovery at ${name}`);
    await drawFrames(v.page, 3);
    let st = await state(v.page);
    let problems = layoutProblems(st.layout, touch);
    check(st.layout.narrow === touch && problems.length === 0,
          `${name}: three agents to add, and the layout fits (${problems.slice(0, 4).join('; ')})`);
    await v.page.screenshot({ path: path.join(shots, `live_discovered_${name}.png`), fullPage: true });
    await click(v.page, 'add all', touch);
    await until(v.page, allConnected, [4, others], `all four rows at ${name}`);
    await drawFrames(v.page, 3);
    st = await state(v.page);
    problems = layoutProblems(st.layout, touch);
    check(problems.length === 0, `${name}: with all four rows the layout fits (${problems.slice(0, 4).join('; ')})`);
    await v.page.evaluate(() => window.scrollTo(0, 0));
    await v.page.screenshot({ path: path.join(shots, `live_all_${name}.png`), fullPage: true });
    check(v.errors.length === 0, `${name}: no console errors (${v.errors.join(' | ')})`);
    await v.context.close();
  }

  // ---- kill -9 one agent; a fresh page given all four addresses.
  const victim = agents[3];
  victim.child.kill('SIGKILL');
  await poll(async () => (await getJson(a0.httpPort, '/v1/members')).find((m) => m.name === victim.name).state === 'dead',
             30000, `agent-0 to hold ${victim.name} dead`);
  const fresh = await open({ width: 1280, height: 800 }, 'dark', agents.filter((a) => a.httpPort).map((a) => `127.0.0.1:${a.httpPort}`).join(','));
  await until(fresh.page, (dead) => {
    const st = window.vigil.state();
    return st.agents.length === 3 && st.agents.every((a) => a.status === 'connected' && a.members[dead] === 'dead') &&
      st.dropped.includes(dead);
  }, victim.name, 'the fresh page to drop the dead agent');
  s = await state(fresh.page);
  check(!s.agents.some((a) => a.name === victim.name || a.address.endsWith(`:${victim.httpPort}`)),
        `a fresh view has no row for the dead ${victim.name} (rows: ${s.agents.map((a) => a.name).join(', ')})`);
  check(s.columns.includes(victim.name) && !s.columns.some((c) => c.startsWith('127.')),
        `its column stays while the others list it; no column is an address (${s.columns.join(', ')})`);
  const live = [...agents.slice(0, 3).map((a) => a.name), ...(serf ? ['serf-0'] : [])];
  check(live.includes(s.peer) && s.peer !== s.agents[0].name,
        `the default peer is a live member (${s.peer}), not ${s.agents[0].name} itself`);
  await click(fresh.page, 'block -> peer');
  await until(fresh.page, () => window.vigil.state().agents[0].last_reply !== '', null, 'a reply to block');
  s = await state(fresh.page);
  check(s.agents[0].last_reply === 'ok block', `"block -> peer" is accepted (${s.agents[0].last_reply})`);
  await click(fresh.page, 'unblock');
  await until(fresh.page, () => window.vigil.state().agents[0].last_reply === 'ok unblock', null, 'unblock');
  await fresh.page.screenshot({ path: path.join(shots, 'live_after_kill_1280_dark.png') });
  check(fresh.errors.filter((e) => !/WebSocket/.test(e)).length === 0,
        `no console errors but the refused WebSocket (${fresh.errors.join(' | ')})`);
  await fresh.context.close();
} finally {
  await browser.close();
  stopAll();
}
process.exit(0);
