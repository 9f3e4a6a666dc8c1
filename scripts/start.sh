#!/usr/bin/env bash
# The main job: builds everything, starts five local agents (VIGIL_NODES) and serves the web app
# pointed at them on http://127.0.0.1:8080 (VIGIL_HTTP_PORT). Ctrl-C stops everything.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/build.sh"
exec "$here/build/bin/vigil" demo --nodes "${VIGIL_NODES:-5}" --http-port "${VIGIL_HTTP_PORT:-8080}" --web "$here/build/web"
