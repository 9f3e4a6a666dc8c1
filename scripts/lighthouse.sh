#!/usr/bin/env bash
# Lighthouse's four scores (performance, accessibility, best practices, SEO) for the explainer and
# the web app, mobile profile (Lighthouse's default: a mid-range phone, simulated slow 4G and 4x
# CPU slowdown), served by `vigil serve` from build/web. Prints a table and writes each report's
# JSON under build/lighthouse/. Run ./scripts/build.sh first.
#
#   ./scripts/lighthouse.sh [--runs N] [PAGE...]
#
# Default pages: the explainer, the app's front page (index.html, which waits for play) and a demo
# that plays from its first frame (index.html?demo=phi, as every link of the explainer opens one).
# With --runs N each page is measured N times and the run of median performance is reported, as
# Lighthouse's documentation advises for scores that vary between runs; the machine's load
# average is printed before and after, since the CPU slowdown is simulated from what this machine
# measured. Lighthouse is installed on first use, at a pinned version, into build/lighthouse/ (npm
# package lighthouse); Debian's chromium runs it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=12.8.2
tools="$here/build/lighthouse"
web="$here/build/web"
vigil="$here/build/bin/vigil"

[[ -x $vigil && -f $web/index.html ]] || { echo "[lighthouse] build first: ./scripts/build.sh" >&2; exit 1; }
command -v chromium >/dev/null || { echo "[lighthouse] chromium is missing (Debian package chromium)" >&2; exit 1; }
if [[ ! -x $tools/node_modules/.bin/lighthouse ]] ||
   [[ $(node -p "require('$tools/node_modules/lighthouse/package.json').version") != "$version" ]]; then
  echo "[lighthouse] installing lighthouse $version into $tools" >&2
  mkdir -p "$tools"
  (cd "$tools" && [[ -f package.json ]] || echo '{"private": true}' >"$tools/package.json")
  npm install --prefix "$tools" --no-audit --no-fund --silent "lighthouse@$version" >&2
fi

runs=1
if [[ ${1-} == --runs ]]; then
  [[ ${2-} =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [--runs N] [PAGE...]" >&2; exit 2; }
  runs=$2
  shift 2
fi
pages=("$@")
((${#pages[@]})) || pages=(explainer.html index.html 'index.html?demo=phi')
load() { cut -d' ' -f1-3 /proc/loadavg; }

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$vigil" serve --http "127.0.0.1:$port" --web "$web" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  curl -fsS -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && break
  sleep 0.1
done

echo "lighthouse $version, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(load)"
printf '%-28s %12s %14s %15s %5s %10s\n' page performance accessibility best-practices SEO 'TBT (ms)'
for page in "${pages[@]}"; do
  name=$(echo "$page" | tr -c 'A-Za-z0-9.\n' '_')
  reports=()
  for ((run = 1; run <= runs; ++run)); do
    report="$tools/$name.json"
    ((runs == 1)) || report="$tools/$name.run$run.json"
    label=$page
    ((runs == 1)) || label+=" (run $run of $runs)"
    echo "[lighthouse] $label" >&2
    CHROME_PATH=$(command -v chromium) "$tools/node_modules/.bin/lighthouse" "http://127.0.0.1:$port/$page" \
      --quiet --output=json --output-path="$report" \
      --chrome-flags="--headless=new --no-sandbox --disable-gpu --use-angle=swiftshader --enable-unsafe-swiftshader" \
      --only-categories=performance,accessibility,best-practices,seo >&2
    reports+=("$report")
  done
  node -e '
    const [page, ...files] = process.argv.slice(1);
    const runs = files.map((f) => require(f))
      .sort((a, b) => a.categories.performance.score - b.categories.performance.score);
    const r = runs[(runs.length - 1) >> 1];
    const c = r.categories, score = (k) => Math.round(c[k].score * 100);
    const tbt = Math.round(r.audits["total-blocking-time"].numericValue);
    const spread = runs.length > 1
      ? `   (performance ${runs.map((x) => Math.round(x.categories.performance.score * 100)).join(", ")})` : "";
    console.log(page.padEnd(28), String(score("performance")).padStart(12),
                String(score("accessibility")).padStart(14), String(score("best-practices")).padStart(15),
                String(score("seo")).padStart(5), String(tbt).padStart(10) + spread);
  ' "$page" "${reports[@]}"
done
echo "load average after: $(load)"
