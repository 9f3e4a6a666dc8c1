#!/usr/bin/env bash
# Builds everything: the native `vigil` (build/bin/vigil) and the web app (build/web/).
# Installs missing dependencies first (scripts/setup.sh).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$here/scripts/lib/compiler_cache.sh"
jobs=$(nproc 2>/dev/null || echo 2)

"$here/scripts/setup.sh"

echo "[build] native: build/bin/vigil" >&2
# The presets are in CMakePresets.json. "release" keeps line tables only (-g1): backtraces and
# profiles keep file:line, and the build takes about a quarter less time than with full debug
# information (-g). A build of its own (cmake -B) can have it back for a debugger.
(cd "$here" && cmake --preset release >/dev/null)
cmake --build "$here/build" -j"$jobs"

echo "[build] web: build/web/" >&2
# Emscripten 3.1.6's JS optimiser finds acorn only through NODE_PATH; its cache stays Debian's.
export NODE_PATH=/usr/share/nodejs
unset EM_CACHE
(cd "$here" && emcmake cmake --preset web >/dev/null)
cmake --build "$here/build-web" -j"$jobs"

# The explainer's numbers, from the lab (about 15 s). Rerun only when the binary changed.
data="$here/build/web/explainer-data.json"
if [[ ! -f "$data" || "$here/build/bin/vigil" -nt "$data" || "$here/scripts/explainer_data.mjs" -nt "$data" ]]; then
  echo "[build] explainer numbers: build/web/explainer-data.json" >&2
  node "$here/scripts/explainer_data.mjs" "$here/build/bin/vigil" "$data"
fi

# The documentation site (build/site), and its copy that the server shows at /docs/.
"$here/scripts/site.sh"

# Brotli and gzip variants of the web app's files, which the vigil HTTP server sends when accepted.
"$here/scripts/precompress.sh" "$here/build/web"
