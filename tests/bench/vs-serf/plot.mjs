#!/usr/bin/env node
// Turns a vs-serf.mjs result into a Markdown table (stdout, or --md PATH) and, with --svg PATH, a
// plot of four metrics against N: hand-written SVG, 560 px wide, axes and text in currentColor so
// it reads on light and dark pages.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const USAGE = `usage: node tests/bench/vs-serf/plot.mjs RESULT.json [--svg PATH] [--md PATH]

Reads the JSON written by vs-serf.mjs --out and writes
  a Markdown table: per N and kind, each metric's median over the repeats with its range
                    (min-max), and the vigil/serf ratio of the medians (to stdout, or --md PATH)
  an SVG plot:      bytes/s per agent, CPU %, PSS MB and kill -9 detection time against N
                    (log-scaled), vigil and Serf, medians joined by lines, ranges as bars (--svg PATH)

options:
  --svg PATH   write the plot here
  --md PATH    write the table here instead of stdout
  --help       this text`;

const KINDS = [
  { kind: 'vigil', label: 'vigil', colour: '#2f7fd8' },
  { kind: 'serf', label: 'Serf', colour: '#e8740c' },
];

// The table's columns, in the order the task reports them.
const COLUMNS = [
  { key: 'bytes_per_s', head: 'bytes/s', digits: 0 },
  { key: 'cpu_percent', head: 'CPU %', digits: 2 },
  { key: 'pss_mb', head: 'PSS MB', digits: 2 },
  { key: 'join_s', head: 'join s (views)', digits: 2 },
  { key: 'join_events_s', head: 'join s (events)', digits: 2 },
  { key: 'detection_s', head: 'detection s', digits: 2 },
  { key: 'idle_false_deaths', head: 'false deaths, idle', digits: 0 },
];

const fmt = (x, digits) => (x === null || x === undefined ? '–'
                           : x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const cell = (s, digits) => (s && s.n ? `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})` : '–');

function kindsIn(result) { return KINDS.filter((k) => result.summary.some((p) => p[k.kind])); }

export function markdown(result) {
  const kinds = kindsIn(result);
  const c = result.config;
  const lines = [];
  const observers = c.observers === 'all' ? 'every member'
    : `every member up to N = ${c.observers}, above that a sample of ${c.observers} spread evenly over the N (the last of the sample counts)`;
  lines.push(`${kinds.map((k) => k.label).join(' vs ')}, LAN profile, loopback in a network namespace, ` +
             `${result.machine.cores}-core machine; ${c.repeats} interleaved repeat${c.repeats > 1 ? 's' : ''} per point, ` +
             `median (min–max). Idle window ${c.idle_seconds} s; join (views): polled views of ${observers}; ` +
             `join (events): every member's own event line; ` +
             `detection: median of ${c.kills} kill -9 trial${c.kills === 1 ? '' : 's'}, last survivor.`, '');
  lines.push(`| N | kind | ${COLUMNS.map((col) => col.head).join(' | ')} | runs |`);
  lines.push(`|---:|---|${COLUMNS.map(() => '---:').join('|')}|---:|`);
  for (const p of result.summary) {
    for (const k of kinds) {
      const s = p[k.kind];
      const runs = (s.bytes_per_s?.n ?? 0) + (s.failed_runs ? ` (${s.failed_runs} failed)` : '') +
                   (s.skipped_runs ? ` (${s.skipped_runs} not run)` : '');
      lines.push(`| ${p.agents} | ${k.label} | ${COLUMNS.map((col) => cell(s[col.key], col.digits)).join(' | ')} | ${runs} |`);
    }
    if (p.ratio)
      lines.push(`| ${p.agents} | vigil/Serf | ${COLUMNS.map((col) => fmt(p.ratio[col.key], 2)).join(' | ')} | |`);
  }
  return lines.join('\n');
}

// ------------------------------------------------------------------------------------------ SVG

const PANELS = [
  { key: 'bytes_per_s', title: 'bytes/s per agent' },
  { key: 'cpu_percent', title: 'CPU % of a core per agent' },
  { key: 'pss_mb', title: 'PSS per agent, MB' },
  { key: 'detection_s', title: 'kill -9 → dead everywhere, s' },
];

function niceStep(span, ticks) {
  const raw = span / ticks;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw);
}

const num = (v) => {
  if (v >= 10000) return `${+(v / 1000).toFixed(1)}k`;
  return String(+v.toPrecision(6));
};
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function panel(result, kinds, spec, x0, y0, w, h) {
  const m = { left: 44, right: 10, top: 22, bottom: 30 };
  const pw = w - m.left - m.right;
  const ph = h - m.top - m.bottom;
  const ns = result.summary.map((p) => p.agents);
  const logScale = ns.length > 1;
  const lo = Math.log(Math.min(...ns));
  const hi = Math.log(Math.max(...ns));
  // Half a step of margin at both ends so the markers and their bars stay inside the frame.
  const pad = logScale ? (hi - lo) * 0.06 : 0;
  const xOf = (n) => (logScale ? m.left + ((Math.log(n) - lo + pad) / (hi - lo + 2 * pad)) * pw : m.left + pw / 2);
  const values = result.summary.flatMap((p) => kinds.flatMap((k) => {
    const s = p[k.kind] && p[k.kind][spec.key];
    return s && s.n ? [s.max] : [];
  }));
  const top = values.length ? Math.max(...values) : 1;
  const step = niceStep(top > 0 ? top : 1, 4);
  const yMax = Math.max(step, Math.ceil((top * 1.02) / step) * step);
  const yOf = (v) => m.top + ph - (v / yMax) * ph;
  const out = [`<g transform="translate(${x0},${y0})">`];
  out.push(`<text x="${m.left}" y="14" font-weight="600">${esc(spec.title)}</text>`);
  for (let v = 0; v <= yMax + step / 2; v += step) {
    const y = yOf(v).toFixed(1);
    out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${y}" y2="${y}" stroke="currentColor" stroke-opacity="${v ? 0.15 : 0.6}"/>`);
    out.push(`<text x="${m.left - 4}" y="${y}" dy="0.32em" text-anchor="end">${num(v)}</text>`);
  }
  out.push(`<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + ph}" stroke="currentColor" stroke-opacity="0.6"/>`);
  for (const n of ns) {
    const x = xOf(n).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${m.top + ph}" y2="${m.top + ph + 4}" stroke="currentColor" stroke-opacity="0.6"/>`);
    out.push(`<text x="${x}" y="${m.top + ph + 15}" text-anchor="middle">${n}</text>`);
  }
  out.push(`<text x="${m.left + pw / 2}" y="${h - 2}" text-anchor="middle" opacity="0.8">N agents${logScale ? ' (log scale)' : ''}</text>`);
  kinds.forEach((k, i) => {
    const dx = (i - (kinds.length - 1) / 2) * 5;  // side by side, so the range bars do not overlap
    const pts = result.summary.map((p) => ({ n: p.agents, s: p[k.kind] && p[k.kind][spec.key] })).filter((p) => p.s && p.s.n);
    if (pts.length > 1)
      out.push(`<polyline fill="none" stroke="${k.colour}" stroke-width="2" points="${
        pts.map((p) => `${(xOf(p.n) + dx).toFixed(1)},${yOf(p.s.median).toFixed(1)}`).join(' ')}"/>`);
    for (const p of pts) {
      const x = (xOf(p.n) + dx).toFixed(1);
      out.push(`<line x1="${x}" x2="${x}" y1="${yOf(p.s.min).toFixed(1)}" y2="${yOf(p.s.max).toFixed(1)}" stroke="${k.colour}" stroke-width="1.5"/>`);
      const y = yOf(p.s.median).toFixed(1);
      out.push(i === 0 ? `<circle cx="${x}" cy="${y}" r="3.5" fill="${k.colour}"><title>${k.label}, N=${p.n}: ${p.s.median} (${p.s.min}–${p.s.max})</title></circle>`
                       : `<rect x="${x - 3.5}" y="${y - 3.5}" width="7" height="7" fill="${k.colour}"><title>${k.label}, N=${p.n}: ${p.s.median} (${p.s.min}–${p.s.max})</title></rect>`);
    }
  });
  out.push('</g>');
  return out.join('\n');
}

export function svg(result) {
  const kinds = kindsIn(result);
  const W = 560;
  const legendH = 26;
  const pw = W / 2;
  const ph = 200;
  const H = legendH + 2 * ph + 6;
  const parts = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" class="vs-serf-plot" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" ` +
             `font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="11" fill="currentColor">`);
  parts.push(`<title>${kinds.map((k) => k.label).join(' vs ')}: bytes/s, CPU, PSS and detection time against cluster size</title>`);
  parts.push(`<desc>Medians over ${result.config.repeats} repeats joined by lines; bars span min to max.</desc>`);
  // Standalone (an img on a page), the SVG is the root and takes the page theme from the media
  // query; inlined in HTML it is not the root, and inherits the page's text colour instead.
  parts.push('<style>.vs-serf-plot:root{color:#1f2328}@media (prefers-color-scheme:dark){.vs-serf-plot:root{color:#e6edf3}}</style>');
  let x = 44;
  for (const [i, k] of kinds.entries()) {
    parts.push(i === 0 ? `<circle cx="${x + 4}" cy="13" r="4" fill="${k.colour}"/>` : `<rect x="${x}" y="9" width="8" height="8" fill="${k.colour}"/>`);
    parts.push(`<line x1="${x - 8}" x2="${x + 16}" y1="13" y2="13" stroke="${k.colour}" stroke-width="2"/>`);
    parts.push(`<text x="${x + 22}" y="13" dy="0.32em">${k.label}</text>`);
    x += 90;
  }
  parts.push(`<text x="${W - 10}" y="13" dy="0.32em" text-anchor="end" opacity="0.8">median of ${result.config.repeats} repeats; bar: min–max</text>`);
  PANELS.forEach((p, i) => parts.push(panel(result, kinds, p, (i % 2) * pw, legendH + Math.floor(i / 2) * ph, pw, ph)));
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

// ------------------------------------------------------------------------------------------ CLI

function fail(message) {
  process.stderr.write(`plot: ${message}\n`);
  process.exit(2);
}

function main(argv) {
  let input = null;
  const o = { svg: null, md: null };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const key = a.slice(2, eq > 0 ? eq : undefined);
      if (!(key in o)) fail(`unknown option '${a}' (see --help)`);
      const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (!value || (eq < 0 && value.startsWith('--'))) fail(`--${key}: missing value`);
      o[key] = value;
    } else if (input === null) input = a;
    else fail(`one result file only, got '${input}' and '${a}'`);
  }
  if (input === null) fail('missing RESULT.json (see --help)');
  let result;
  try {
    result = JSON.parse(readFileSync(input, 'utf8'));
  } catch (e) {
    fail(`cannot read '${input}': ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  if (!Array.isArray(result.summary) || !result.config || !result.summary.length)
    fail(`'${input}' has no summary of points: is it a vs-serf.mjs result with at least one point?`);
  const table = markdown(result);
  if (o.md) writeFileSync(o.md, table + '\n');
  else console.log(table);
  if (o.svg) {
    writeFileSync(o.svg, svg(result));
    process.stderr.write(`plot: wrote ${path.resolve(o.svg)}\n`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
