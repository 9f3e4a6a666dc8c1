#!/usr/bin/env bash
# Installs everything vigil needs on a Debian bookworm machine, idempotently.
# Run as root. Safe to run again: it only acts on what is missing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
third_party="$here/build/third_party"
imgui_version="1.86+ds-1"
imgui_dir="$third_party/imgui"

log() { printf '[setup] %s\n' "$*" >&2; }

packages=(cmake g++ make pkg-config emscripten libwebsockets-dev libssl-dev nlohmann-json3-dev doctest-dev
          chromium fonts-dejavu-core nodejs npm dpkg-dev
          fonttools brotli  # the web app's font subset (pyftsubset) and precompressed assets
          python3  # a plain static file server for the browser tests (python3 -m http.server)
          serf  # the mixed vigil + Serf cluster test and the vs-serf benchmark
          nftables iproute2 openssl  # the multi-host agent test (namespaces, packet loss), the TLS test's certificate
          python3-sphinx mkdocs mkdocs-material  # docs/embedding.md's snippets, built by their generators
          clang libclang-rt-14-dev  # the fuzz targets: clang 14 and its libFuzzer runtime
          ccache  # compiled objects kept between runs (scripts/lib/compiler_cache.sh)
          clang-format  # the formatting check (scripts/format.sh; clang-format 14 on bookworm)
          clang-tidy)  # the static analysis of scripts/check.sh (.clang-tidy; clang-tidy 14 on bookworm)

need_root() {
  if [[ $(id -u) -ne 0 ]]; then
    log "this step needs root: $*"
    exit 1
  fi
}

apt_updated=0
apt_update() {
  if ((apt_updated == 0)); then
    log "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    apt_updated=1
  fi
}

# 1. Debian packages.
missing=()
for p in "${packages[@]}"; do
  # npm/nodejs may come from a non-Debian build already on the machine; accept the commands.
  case $p in
    nodejs) command -v node >/dev/null && continue ;;
    npm) command -v npm >/dev/null && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  need_root "apt-get install ${missing[*]}"
  apt_update
  log "installing: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. A deb-src entry derived from the machine's own Debian source, for Dear ImGui's source package.
src_list=/etc/apt/sources.list.d/vigil-deb-src.sources
if [[ ! -d $imgui_dir ]]; then
  if [[ ! -f $src_list ]]; then
    need_root "write $src_list"
    if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
      sed -E 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb-src/' \
        /etc/apt/sources.list.d/debian.sources >"$src_list"
    elif grep -qE '^deb ' /etc/apt/sources.list 2>/dev/null; then
      src_list=/etc/apt/sources.list.d/vigil-deb-src.list
      sed -nE 's/^deb (.*)$/deb-src \1/p' /etc/apt/sources.list >"$src_list"
    else
      log "no Debian apt source found to derive a deb-src entry from"
      exit 1
    fi
    apt_updated=0
  fi
  apt_update
  mkdir -p "$third_party/download"
  (cd "$third_party/download" && apt-get source --download-only -qq "imgui=$imgui_version" >/dev/null)
  orig=$(ls "$third_party"/download/imgui_*.orig.tar.* | head -n1)
  rm -rf "$imgui_dir.tmp" && mkdir -p "$imgui_dir.tmp"
  tar -xf "$orig" -C "$imgui_dir.tmp" --strip-components=1
  [[ -f $imgui_dir.tmp/imgui.cpp && -f $imgui_dir.tmp/backends/imgui_impl_glfw.cpp ]] || {
    log "unexpected layout in $orig"
    exit 1
  }
  mv "$imgui_dir.tmp" "$imgui_dir"
  log "Dear ImGui source unpacked in $imgui_dir"
fi

# 3. Node modules for the browser and agent tests (playwright-core drives Debian's chromium; ws
#    speaks to agents; @mdx-js/mdx and React render the Docusaurus snippet of docs/embedding.md). Installed again whenever a package of the lock file is missing.
#    The devDependencies (ESLint, for scripts/check.sh) count as well: npm ci installs both kinds.
node_packages=$(node -e 'const p = require(process.argv[1]);
  console.log(Object.keys({ ...p.dependencies, ...p.devDependencies }).join(" "))' "$here/tests/package.json")
missing_node=0
for p in $node_packages; do [[ -d $here/tests/node_modules/$p ]] || missing_node=1; done
if ((missing_node)); then
  log "npm ci in tests"
  (cd "$here/tests" && npm ci --include=dev --no-audit --no-fund --loglevel=error)
fi

log "ready"
