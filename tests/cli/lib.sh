# Shared helpers for the CLI test scripts: source it with the path to vigil as $1.
# shellcheck shell=bash
vigil=${1:?usage: <script> PATH_TO_VIGIL}
failures=0
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# run EXPECTED_EXIT ARGS... : runs vigil, keeps stdout/stderr, checks the exit code.
run() {
  local expected=$1
  shift
  "$vigil" "$@" >"$out" 2>"$err"
  local code=$?
  if [[ $code -ne $expected ]]; then
    echo "not ok - vigil $* exited $code, expected $expected"
    sed 's/^/    stderr: /' "$err" | head -5
    failures=$((failures + 1))
    return 1
  fi
  echo "ok - vigil $* exits $expected"
}

# expect_in FILE TEXT: the output contains TEXT.
expect_in() {
  if grep -qF -- "$2" "$1"; then
    echo "ok -   output has '$2'"
  else
    echo "not ok -   output lacks '$2'"
    head -5 "$1" | sed 's/^/    got: /'
    failures=$((failures + 1))
  fi
}

# json_check EXPRESSION: evaluates a JavaScript expression over the parsed stdout as `j`.
json_check() {
  if node -e "const j = JSON.parse(require('fs').readFileSync('$out', 'utf8')); if (!($1)) process.exit(1)"; then
    echo "ok -   json: $1"
  else
    echo "not ok -   json: $1"
    head -c 400 "$out" | sed 's/^/    got: /'
    failures=$((failures + 1))
  fi
}


# finish: prints the verdict and exits non-zero if any check failed.
finish() {
  if ((failures)); then
    echo "$failures check(s) failed"
    exit 1
  fi
  echo "all CLI checks passed"
}
