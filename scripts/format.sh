#!/usr/bin/env bash
# Formats vigil's C++ with clang-format and the repository's .clang-format.
#   scripts/format.sh           rewrite every drifted file in place
#   scripts/format.sh --check   change nothing; list the drifted files and fail if there are any
# The files are git's tracked C++ sources (core, native, web, tests, examples), so build
# directories and fetched third-party code are never touched.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

check=0
case ${1-} in
  --check) check=1 ;;
  "") ;;
  -h | --help)
    sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "[format] unknown argument '$1' (usage: scripts/format.sh [--check])" >&2
    exit 2
    ;;
esac

# The style was written for clang-format 14 (Debian bookworm); another major version formats a
# few constructs differently, so it is named rather than guessed.
tool=""
for candidate in clang-format-14 clang-format; do
  if command -v "$candidate" >/dev/null && "$candidate" --version | grep -q 'version 14\.'; then
    tool=$candidate
    break
  fi
done
if [[ -z $tool ]]; then
  echo "[format] clang-format 14 is needed (Debian package clang-format; scripts/setup.sh installs it)" >&2
  exit 1
fi

mapfile -d '' files < <(git ls-files -z -- '*.cpp' '*.hpp' '*.h')
if ((check)); then
  # One run over every file; each drifted line is reported as "FILE:LINE:COL: error: ...".
  status=0
  report=$("$tool" --dry-run --Werror "${files[@]}" 2>&1) || status=$?
  mapfile -t drifted < <(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' \
    <<<"$report" | sort -u)
  if ((status != 0 && ${#drifted[@]} == 0)); then
    echo "[format] $tool failed:" >&2
    echo "$report" >&2
    exit 1
  fi
  if ((${#drifted[@]})); then
    echo "[format] ${#drifted[@]} of ${#files[@]} files differ from .clang-format (fix: scripts/format.sh):" >&2
    printf '  %s\n' "${drifted[@]}" >&2
    exit 1
  fi
  echo "[format] ${#files[@]} files match .clang-format" >&2
else
  "$tool" -i "${files[@]}"
  echo "[format] formatted ${#files[@]} files" >&2
fi
