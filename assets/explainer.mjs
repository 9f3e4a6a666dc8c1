// The explainer's behaviour: fill every number and table from explainer-data.json (written by
// scripts/explainer_data.mjs from `vigil lab`), and host the embedded demos so that only those
// near the viewport are alive. window.explainer reports progress to tests.
import { format, resolve } from './explainer-numbers.mjs';
import { hostDemos } from './vigil-embed.mjs';

const status = document.getElementById('data-status');
const report = { ready: false, filled: 0, errors: [] };
window.explainer = report;

function fail(message) {
  report.errors.push(message);
  status.textContent = `Some numbers could not be shown: ${report.errors.join('; ')}`;
  status.classList.add('error');
}

function fillNumber(el, experiments) {
  try {
    el.textContent = format(resolve(experiments, el.dataset.n), el.dataset.fmt);
    ++report.filled;
  } catch (e) {
    fail(e.message);
  }
}

// <table data-table="path" data-cols="field:format:heading|...">: one row per array element, each
// cell a data-n span so that it is filled (and tested) like any number in the prose.
function buildTable(table, experiments) {
  let rows;
  try {
    rows = resolve(experiments, table.dataset.table);
    if (!Array.isArray(rows)) throw new Error(`${table.dataset.table} is not a list`);
  } catch (e) {
    fail(e.message);
    return;
  }
  const cols = table.dataset.cols.split('|').map((c) => {
    const [field, fmt, ...heading] = c.split(':');
    return { field, fmt, heading: heading.join(':') };
  });
  const head = table.createTHead().insertRow();
  for (const c of cols) {
    const th = document.createElement('th');
    th.textContent = c.heading;
    head.appendChild(th);
  }
  const body = table.createTBody();
  rows.forEach((_, i) => {
    const tr = body.insertRow();
    for (const c of cols) {
      const span = document.createElement('span');
      span.className = 'n';
      span.dataset.n = `${table.dataset.table}/${i}/${c.field}`;
      span.dataset.fmt = c.fmt;
      tr.insertCell().appendChild(span);
    }
  });
}

// Each cell names its column (data-label), which a phone shows beside the value when the table is
// stacked into cards (explainer.css).
function labelCells(table) {
  const headings = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
  for (const row of table.querySelectorAll('tbody tr'))
    [...row.cells].forEach((cell, i) => { if (headings[i]) cell.dataset.label = headings[i]; });
}

function listCommands(experiments) {
  const list = document.getElementById('commands');
  for (const [key, { command }] of Object.entries(experiments)) {
    const li = document.createElement('li');
    const code = document.createElement('code');
    code.textContent = `${command} --format json`;
    li.append(code, ` → ${key}`);
    list.appendChild(li);
  }
}

// Each demo is a whole WebAssembly app: load it near the viewport, let it sleep off screen and
// unload it far away, so that only a few are alive at any time (vigil-embed.mjs).
function hostAll() {
  // Each frame takes its demo's height: on a phone, its plots, and more once its controls open.
  const stats = hostDemos(document.querySelectorAll('iframe[data-src]'),
                          { loadMargin: '100%', unloadMargin: '200%', fitHeight: true });
  Object.defineProperties(report, {
    demos: { get: () => stats.demos, enumerable: true },
    demosLoaded: { get: () => stats.everLoaded, enumerable: true },  // at least once
    demosLive: { get: () => stats.live, enumerable: true },
    demosMaxLive: { get: () => stats.maxLive, enumerable: true },
    demoLoads: { get: () => stats.loads, enumerable: true },
  });
}

async function main() {
  hostAll();
  let data;
  try {
    const response = await fetch('explainer-data.json', { cache: 'no-cache' });
    if (!response.ok) throw new Error(`explainer-data.json: HTTP ${response.status}`);
    data = await response.json();
  } catch (e) {
    fail(`${e.message} (build the page with ./scripts/build.sh, which runs the lab)`);
    report.ready = true;
    return;
  }
  const experiments = data.experiments;
  document.querySelectorAll('table[data-table]').forEach((t) => buildTable(t, experiments));
  document.querySelectorAll('table.data').forEach(labelCells);
  document.querySelectorAll('[data-n]').forEach((el) => fillNumber(el, experiments));
  listCommands(experiments);
  if (report.errors.length === 0) status.remove();
  report.ready = true;
}

main();
