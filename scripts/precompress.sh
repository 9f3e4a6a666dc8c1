#!/usr/bin/env bash
# Writes precompressed siblings of the web app's text and WebAssembly files, which the vigil HTTP
# server sends to browsers that accept them: FILE.br (brotli -q 11) and FILE.gz (gzip -9 -n, so
# that the same input gives the same bytes). Usage: scripts/precompress.sh DIR
#
# DIR and its folders one level down are read (the heartbeat traces sit in traces/). A sibling is rewritten when missing or older than
# its source; one whose source is gone is deleted. Each sibling takes its source's modification
# time from before it was read: if the source changes later, even during compression, the sibling
# is older and the server sends the source instead of stale bytes. A sibling no smaller than its
# source is not kept.
set -euo pipefail

log() { printf '[precompress] %s\n' "$*" >&2; }

if [[ $# -ne 1 || ! -d $1 ]]; then
  echo "usage: $0 DIR   (DIR: the built web app, e.g. build/web)" >&2
  exit 2
fi
dir=${1%/}
for tool in gzip brotli; do
  command -v "$tool" >/dev/null || { log "$tool is missing: run scripts/setup.sh (Debian package $tool)"; exit 1; }
done

extensions=(html css js mjs json wasm svg csv)
made=0 current=0 removed=0
stamp=$(mktemp "$dir/.precompress-stamp.XXXXXX")
tmp=""
trap 'rm -f "$stamp" ${tmp:+"$tmp"}' EXIT

# compress SOURCE SUFFIX COMMAND...: writes SOURCE.SUFFIX from COMMAND < SOURCE, atomically.
compress() {
  local source=$1 suffix=$2
  shift 2
  local target="$source.$suffix"
  if [[ -f $target && ! $source -nt $target ]]; then
    current=$((current + 1))
    return
  fi
  touch -r "$source" "$stamp"
  # Hidden, so that the server (which refuses dot files) never serves a half-written sibling.
  tmp=$(mktemp "$(dirname "$source")/.precompress.XXXXXX")
  "$@" <"$source" >"$tmp"
  if (($(stat -c %s "$tmp") >= $(stat -c %s "$source"))); then
    rm -f "$tmp" "$target"
  else
    touch -r "$stamp" "$tmp"
    chmod 644 "$tmp"
    mv -f "$tmp" "$target"
    made=$((made + 1))
  fi
  tmp=""
}

shopt -s nullglob
for folder in "$dir" "$dir"/*/; do
  folder=${folder%/}
  [[ -L $folder ]] && continue  # a link may lead out of DIR: never write there
  for ext in "${extensions[@]}"; do
    for source in "$folder"/*."$ext"; do
      [[ -f $source ]] || continue
      compress "$source" gz gzip -9 -n -c
      compress "$source" br brotli -q 11 -c
    done
    for sibling in "$folder"/*."$ext".gz "$folder"/*."$ext".br; do
      if [[ ! -f ${sibling%.*} ]]; then
        rm -f "$sibling"
        removed=$((removed + 1))
      fi
    done
  done
done
log "$dir: $made written, $current up to date, $removed removed (source gone)"
