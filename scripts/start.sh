#!/usr/bin/env bash
# The main job: builds everything, then serves the web app on http://127.0.0.1:8080
# (VIGIL_HTTP_PORT to change the port). Ctrl-C stops it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/build.sh"
exec "$here/build/bin/vigil" serve --http "127.0.0.1:${VIGIL_HTTP_PORT:-8080}" --web "$here/build/web"
