#!/bin/bash
# EDGEC_ISA from the command line (docs/architecture.md, "Instruction
# sets"): `edgec bench` reports the instruction set its kernels run ("isa"
# in --json, the first line of the text report); avx2 holds them to AVX2;
# avx512 runs the AVX-512 kernels where /proc/cpuinfo lists AVX-512
# F/BW/DQ/VL and is a clear error (exit 1, naming the variable and the
# missing features) elsewhere; unset is the best the CPU has; any other
# value is an error naming the variable, the value and the expected ones.
# Usage: isa_cli_test.sh EDGEC FIXTURES_DIR
set -euo pipefail
edgec=$1
fixtures=$2
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { [[ " $flags " == *" $1 "* ]]; }
best=avx2
if has avx512f && has avx512bw && has avx512dq && has avx512vl; then best=avx512; fi
echo "this CPU: best instruction set $best"

model="$fixtures/act.onnx"
run=(--inputs "$fixtures/act.inputs.npz" --iters 1 --warmup 0 --threads 1)
env -u EDGEC_ISA "$edgec" compile "$model" -o "$t/a.edgec" >/dev/null

isa_of() {  # the "isa" field of bench --json under the environment "$@"
  env "$@" "$edgec" bench "$t/a.edgec" "${run[@]}" --json |
    /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["isa"])'
}
[ "$(isa_of -u EDGEC_ISA)" = "$best" ] || fail "unset EDGEC_ISA should choose $best"
[ "$(isa_of EDGEC_ISA=)" = "$best" ] || fail "empty EDGEC_ISA should choose $best"
[ "$(isa_of EDGEC_ISA=avx2)" = avx2 ] || fail "EDGEC_ISA=avx2 should choose avx2"
[ "$(isa_of EDGEC_ISA=AVX2)" = avx2 ] || fail "EDGEC_ISA=AVX2 should choose avx2"
EDGEC_ISA=avx2 "$edgec" bench "$t/a.edgec" "${run[@]}" >"$t/report"
head -1 "$t/report" | grep -q ", avx2 kernels$" ||
  fail "the text report should name the avx2 kernels"

# A file compiled under one choice runs under the other (a.edgec, compiled
# with EDGEC_ISA unset, ran under avx2 above).
EDGEC_ISA=avx2 "$edgec" compile "$model" -o "$t/b.edgec" >/dev/null
env -u EDGEC_ISA "$edgec" bench "$t/b.edgec" "${run[@]}" >/dev/null ||
  fail "a file compiled under EDGEC_ISA=avx2 should run on the best kernels"

# Errors: exit 1, one "error:" line naming the variable and what was expected.
expect_error() {  # PATTERN COMMAND...
  local pattern=$1
  shift
  local rc=0
  "$@" >"$t/out" 2>"$t/err" || rc=$?
  [ "$rc" = 1 ] || fail "$* exited $rc, expected 1: $(cat "$t/err")"
  grep -q "^error: .*$pattern" "$t/err" || fail "$*: expected an error matching '$pattern', got: $(cat "$t/err")"
  grep -qi "terminate\|exception\|Aborted" "$t/err" && fail "$*: not a clean error: $(cat "$t/err")"
  return 0
}
expect_error "EDGEC_ISA='sse9' names no instruction set.*expected avx2 or avx512" \
  env EDGEC_ISA=sse9 "$edgec" bench "$t/a.edgec" "${run[@]}"
expect_error "EDGEC_ISA='sse9'.*InvalidArgument" env EDGEC_ISA=sse9 "$edgec" compile "$model" -o "$t/c.edgec"
[ ! -e "$t/c.edgec" ] || fail "a failed compile left an output file"
expect_error "EDGEC_ISA='sse9'" env EDGEC_ISA=sse9 "$edgec" run "$t/a.edgec" --inputs "$fixtures/act.inputs.npz" --outputs "$t/o.npz"
if [ "$best" = avx512 ]; then
  [ "$(isa_of EDGEC_ISA=avx512)" = avx512 ] || fail "EDGEC_ISA=avx512 should choose avx512 on this CPU"
else
  expect_error "EDGEC_ISA='avx512' needs CPU features this CPU lacks: .*avx512" \
    env EDGEC_ISA=avx512 "$edgec" bench "$t/a.edgec" "${run[@]}"
fi
echo "PASS"
