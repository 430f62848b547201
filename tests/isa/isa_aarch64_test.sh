#!/bin/bash
# EDGEC_ISA on aarch64 (docs/architecture.md, "Instruction sets"), on
# emulated CPUs whose features are known: qemu's cortex-a76 reports float16
# arithmetic and the dot product (armv8.2 is the best it has), cortex-a53
# neither (neon). `edgec bench --json` reports the choice; forcing armv8.2
# on the a53 is a clear error naming the missing features; an x86 name is
# an error naming the aarch64 ones.
# Usage: isa_aarch64_test.sh EMULATE EDGEC FIXTURES_DIR
set -euo pipefail
emulate=$1 edgec=$2 fixtures=$3
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

run=(--inputs "$fixtures/mlp.inputs.npz" --iters 1 --warmup 0 --threads 1)
env -u EDGEC_ISA "$emulate" "$edgec" compile "$fixtures/mlp.onnx" -o "$t/a.edgec" >/dev/null
isa_of() {  # CPU ENV...: the "isa" field of bench --json on that CPU
  local cpu=$1
  shift
  env "$@" EDGEC_QEMU_CPU="$cpu" "$emulate" "$edgec" bench "$t/a.edgec" "${run[@]}" --json |
    /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["isa"])'
}
[ "$(isa_of cortex-a76 -u EDGEC_ISA)" = armv8.2 ] || fail "cortex-a76 should choose armv8.2"
[ "$(isa_of cortex-a53 -u EDGEC_ISA)" = neon ] || fail "cortex-a53 should choose neon"
[ "$(isa_of cortex-a76 EDGEC_ISA=neon)" = neon ] || fail "EDGEC_ISA=neon should hold cortex-a76 to neon"
[ "$(isa_of cortex-a76 EDGEC_ISA=ARMv8.2)" = armv8.2 ] || fail "EDGEC_ISA=ARMv8.2 should choose armv8.2"

expect_error() {  # PATTERN ENV...
  local pattern=$1
  shift
  local rc=0
  env "$@" "$emulate" "$edgec" bench "$t/a.edgec" "${run[@]}" >"$t/out" 2>"$t/err" || rc=$?
  [ "$rc" = 1 ] || fail "$* exited $rc, expected 1: $(cat "$t/err")"
  grep -q "^error: .*$pattern" "$t/err" || fail "$*: expected an error matching '$pattern', got: $(cat "$t/err")"
  return 0
}
expect_error "EDGEC_ISA='armv8.2' needs CPU features this CPU lacks: fphp, asimdhp, asimddp" \
  EDGEC_QEMU_CPU=cortex-a53 EDGEC_ISA=armv8.2
expect_error "EDGEC_ISA='avx2' names no instruction set.*expected neon or armv8.2" EDGEC_ISA=avx2
echo "PASS"
