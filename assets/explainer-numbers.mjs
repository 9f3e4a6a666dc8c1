// How the explainer turns lab output into the numbers on the page. Shared by the page and by its
// test (tests/e2e/explainer.test.mjs), which checks the page against freshly generated data.

// A path into the data file's experiments, segments separated by '/': an object key, an array
// index, or [field=value,...] picking the first array element whose fields match, e.g.
//   detectors/[scenario=jitter,detector=timeout-300ms]/false_alarms_per_min
// A last segment a÷b divides two fields of the object reached (bytes a second ÷ messages a
// second: bytes a message), so that a ratio the prose states comes from the data too. On an
// array, :N keeps its first N elements, -1 is its last, and Σfield sums a field over it (the
// calls of a run's first 20 seconds: per_second/:20/Σoffered).
export function resolve(experiments, path) {
  const [key, ...rest] = path.split('/');
  if (!experiments[key]) throw new Error(`no experiment '${key}' (in ${path})`);
  let v = experiments[key].result;
  for (const seg of rest) {
    const filter = seg.match(/^\[(.*)\]$/);
    const ratio = seg.split('÷');
    if (ratio.length === 2 && v && typeof v === 'object') {
      const [a, b] = ratio.map((f) => v[f]);
      if (typeof a !== 'number' || typeof b !== 'number' || b === 0) throw new Error(`${path}: no ratio ${seg}`);
      v = a / b;
    } else if (filter) {
      if (!Array.isArray(v)) throw new Error(`${path}: '${seg}' needs an array`);
      const conds = filter[1].split(',').map((c) => c.split('='));
      v = v.find((row) => conds.every(([f, want]) => String(row[f]) === want));
    } else if (Array.isArray(v) && /^:\d+$/.test(seg)) {
      if (v.length < Number(seg.slice(1))) throw new Error(`${path}: fewer than ${seg.slice(1)} elements`);
      v = v.slice(0, Number(seg.slice(1)));
    } else if (Array.isArray(v) && seg.startsWith('Σ')) {
      const field = seg.slice(1);
      if (!v.every((row) => typeof row?.[field] === 'number')) throw new Error(`${path}: no number '${field}' in every element`);
      v = v.reduce((sum, row) => sum + row[field], 0);
    } else if (Array.isArray(v) && /^-?\d+$/.test(seg)) {
      v = v.at(Number(seg));
    } else {
      v = v == null ? undefined : v[seg];
    }
    if (v === undefined) throw new Error(`${path}: nothing at '${seg}'`);
  }
  return v;
}

// One formatter per number of decimals: toLocaleString with options builds a new one per call,
// which for the page's few hundred numbers was most of the work of filling it on a phone.
const formatters = new Map();
function grouped(v, digits) {
  if (!formatters.has(digits))
    formatters.set(digits, new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  return formatters.get(digits).format(v);
}

// Formats by name: int, f1, f2, f3 (fixed decimals, thousands grouped), pct1/pct2/pct3 (a value
// already in percent), frac_pct1 (a fraction shown in percent), odds (a phi shown as the N of
// "one in N": 10^phi, rounded), yesno, rejected (a boolean "was it rejected": rejected /
// accepted), text.
export function format(value, fmt = 'int') {
  if (fmt === 'text') return String(value);
  if (fmt === 'yesno' || fmt === 'rejected') {
    if (typeof value !== 'boolean') throw new Error(`not a boolean: ${value}`);
    if (fmt === 'rejected') return value ? 'rejected' : 'accepted';
    return value ? 'yes' : 'no';
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  const fixed = fmt.match(/^f(\d)$/);
  if (fmt === 'int') return grouped(Math.round(value), 0);
  if (fmt === 'odds') return grouped(Math.round(10 ** value), 0);
  if (fixed) return grouped(value, Number(fixed[1]));
  const pct = fmt.match(/^pct(\d)$/);
  if (pct) return `${grouped(value, Number(pct[1]))} %`;
  const frac = fmt.match(/^frac_pct(\d)$/);
  if (frac) return `${grouped(value * 100, Number(frac[1]))} %`;
  throw new Error(`unknown format '${fmt}'`);
}
