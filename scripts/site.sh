#!/usr/bin/env bash
# Builds the documentation site (mkdocs.yml: docs/ with the Material theme) into build/site,
# failing on any warning (a link to a page or file that does not exist), and puts a copy in
# build/web/docs/ when the web app is built, where `vigil serve` and `vigil demo` serve it at
# /docs/ beside the app whose demos its pages embed.
# Usage: scripts/site.sh [--web DIR]   (DIR: the built web app; default build/web)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
web=$here/build/web
if [[ $# -eq 2 && $1 == --web ]]; then
  web=${2%/}
elif [[ $# -ne 0 ]]; then
  echo "usage: $0 [--web DIR]" >&2
  exit 2
fi

command -v mkdocs >/dev/null || { echo "[site] mkdocs is missing: run scripts/setup.sh" >&2; exit 1; }

echo "[site] docs: build/site/" >&2
# --strict: a warning fails the build. The theme's template engine prints a Python deprecation
# notice of its own, which is no warning about the site.
(cd "$here" && PYTHONWARNINGS=ignore::DeprecationWarning mkdocs build --strict --site-dir build/site)

if [[ -d $web ]]; then
  echo "[site] served at /docs/: $web/docs/" >&2
  # Replaced whole, so that pages removed from docs/ are gone from the server too; built aside
  # under a hidden name, which the server refuses to serve.
  staging=$(mktemp -d "$web/.docs.XXXXXX")
  cp -R "$here/build/site/." "$staging/"
  chmod 755 "$staging"
  rm -rf "$web/docs"
  mv "$staging" "$web/docs"
fi
