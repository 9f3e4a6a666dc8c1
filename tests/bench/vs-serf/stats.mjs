// Small statistics for the benchmark: nearest-rank quantiles and a median with its range, which is
// what a handful of interleaved repeats can honestly support.
export const mean = (xs) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null);

export function quantile(xs, q) {
  // Nearest rank: with fewer than 100 samples p99 is the largest.
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

// The true median (mean of the middle two for an even count): with 2 or 4 repeats nearest rank
// would always pick the lower one and bias the ratios.
export function median(xs) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export const round = (x, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? null
                                         : Math.round(x * 10 ** digits) / 10 ** digits);

export const stat = (xs, digits = 1) => ({ mean: round(mean(xs), digits), max: round(Math.max(...xs), digits) });

// Median and range of the finite values; n says how many repeats gave one.
export function spread(xs, digits = 3) {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x));
  if (!v.length) return { median: null, min: null, max: null, n: 0 };
  return { median: round(median(v), digits), min: round(Math.min(...v), digits), max: round(Math.max(...v), digits),
           n: v.length };
}
