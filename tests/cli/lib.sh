# What the CLI tests share. Each test sources it first, after its `set`
# line and its arguments:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# It names python (py) and the npz comparison (compare_npz), makes the
# scratch folder $t (removed on exit; the test enters it), and gives the
# tests that count their failures fail, expect_error and report_failures.
py=/usr/bin/python3
compare_npz=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)/compare_npz.py
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

failures=0

# fail MESSAGE: reports a failure and counts it; the test goes on.
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Ends the test: exit 1 if anything failed.
report_failures() {
  [ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
}

# expect_error CODE SECONDS TEXT ARGS...: `edgec ARGS...` ($edgec) exits
# CODE within SECONDS, with exactly one line on stderr, "error: ..."
# containing TEXT. Its output is left in stdout.txt and stderr.txt.
# Returns 1 when edgec died or hung (a timeout or a signal: exit >= 124),
# so that the caller skips its further checks.
expect_error() {
  local want=$1 seconds=$2 text=$3
  shift 3
  set +e
  timeout "$seconds" "$edgec" "$@" >stdout.txt 2>stderr.txt
  local code=$?
  set -e
  if [ "$code" -ge 124 ]; then
    fail "edgec $* died or hung (exit $code): $(head -c 300 stderr.txt)"
    return 1
  fi
  [ "$code" = "$want" ] || fail "edgec $*: exit $code, expected $want: $(head -c 300 stderr.txt)"
  [ "$(wc -l <stderr.txt)" = 1 ] && grep -q "^error: " stderr.txt ||
    fail "edgec $*: expected one 'error: ' line on stderr, got: $(cat stderr.txt)"
  grep -qF -- "$text" stderr.txt || fail "edgec $*: '$text' not in: $(cat stderr.txt)"
  return 0
}
