// The explainer's behaviour: fill every number and table from explainer-data.json (written by
// scripts/explainer_data.mjs from `vigil lab`), and load each embedded demo only when it scrolls
// near the viewport. window.explainer reports progress to tests.
import { format, resolve } from './explainer-numbers.mjs';

const status = document.getElementById('data-status');
const report = { ready: false, filled: 0, errors: [], demosLoaded: 0, demos: 0 };
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

// Each demo is a whole WebAssembly app: start it only when it comes within a screen of view.
function lazyDemos() {
  const frames = [...document.querySelectorAll('iframe[data-src]')];
  report.demos = frames.length;
  const load = (frame) => {
    if (frame.src) return;
    frame.src = frame.dataset.src;
    ++report.demosLoaded;
  };
  if (!('IntersectionObserver' in window)) {
    frames.forEach(load);
    return;
  }
  const observer = new IntersectionObserver((entries) => {
    for (const e of entries)
      if (e.isIntersecting) {
        load(e.target);
        observer.unobserve(e.target);
      }
  }, { rootMargin: '100% 0px' });
  frames.forEach((f) => observer.observe(f));
}

async function main() {
  lazyDemos();
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
  document.querySelectorAll('[data-n]').forEach((el) => fillNumber(el, experiments));
  listCommands(experiments);
  if (report.errors.length === 0) status.remove();
  report.ready = true;
}

main();
