#!/usr/bin/env bash
# Instructions per run on an emulated aarch64 CPU (issue 30): the portable
# kernels against the XNNPACK delegate, on the committed fixtures and three
# zoo models, counted under qemu-user with a plugin (bench/arm/insn_count.c)
# at -cpu cortex-a76. There is no ARM machine here: these are instruction
# counts, NOT latencies (a count weighs a division like an add and sees no
# cache, pipeline or memory bandwidth); they compare two ways of running
# the same model on the same emulated CPU.
#
# Each program is compiled by the x86-64 edgec with --target aarch64, then
# `edgec bench --threads 1 --warmup 0` runs under qemu with --iters A and
# with --iters B: (count(B) - count(A)) / (B - A) is one run's instructions,
# without loading, delegate init or the process around it.
#
# Usage: bench/arm/run.sh [--build DIR] [--aarch64 DIR] [--models LIST] [--iters-a N] [--iters-b N]
#   --models: comma-separated fixture names and zoo names (default: every
#   committed fixture with inputs, and mobilenet_v3_small, squeezenet1_1,
#   shufflenet_v2_x1_0). Needs `make build` and `make aarch64`.
# Prints a markdown table (bench/RESULTS.md, "aarch64 under emulation").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$root/build aarch64=$root/build-aarch64 models="" a=1 b=3
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --aarch64) aarch64=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --iters-a) a=$2; shift 2 ;;
    --iters-b) b=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
host=$build/bin/edgec emulate=$aarch64/emulate arm=$aarch64/bin/edgec
for f in "$host" "$emulate" "$arm"; do
  [ -x "$f" ] || { echo "error: $f is missing: run make build and make aarch64 first" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -shared -fPIC -O2 -fvisibility=hidden -o "$work/insn_count.so" "$root/bench/arm/insn_count.c"

fixtures=$root/models/fixtures
zoo=(mobilenet_v3_small squeezenet1_1 shufflenet_v2_x1_0)
if [ -z "$models" ]; then
  list=()
  for m in "$fixtures"/*.onnx; do
    n=$(basename "$m" .onnx)
    [ -f "$fixtures/$n.inputs.npz" ] && list+=("$n")
  done
  list+=("${zoo[@]}")
else
  IFS=, read -r -a list <<<"$models"
fi

# count PROGRAM INPUTS ITERS: the guest instructions of one bench process.
count() {
  EDGEC_QEMU_CPU=cortex-a76 EDGEC_QEMU_PLUGIN="$work/insn_count.so" EDGEC_QEMU_LOG="$work/log" \
    "$emulate" "$arm" bench "$1" --inputs "$2" --iters "$3" --warmup 0 --threads 1 >/dev/null
  awk '/^insns:/ {print $2}' "$work/log"
}
per_run() {  # PROGRAM INPUTS: instructions of one run
  local ca cb
  ca=$(count "$1" "$2" "$a")
  cb=$(count "$1" "$2" "$b")
  echo $(((cb - ca) / (b - a)))
}

echo "| model | portable kernels (M insns/run) | xnnpack delegate (M insns/run) | portable / xnnpack | delegated |"
echo "|---|---|---|---|---|"
for n in "${list[@]}"; do
  if [ -f "$fixtures/$n.onnx" ]; then
    model=$fixtures/$n.onnx inputs=$fixtures/$n.inputs.npz
    # The fixture tests' bounds for symbolic dims and fixed inputs
    # (tests/cli/fixture_lib.sh); a fixture whose graph is invalid is left out.
    flags=$(py=/usr/bin/python3 t=$work name=$n compare_npz=/dev/null && source "$root/tests/cli/fixture_lib.sh" &&
            { [ "$valid" = yes ] && echo "$dim_flags" || echo invalid; })
    [ "$flags" != invalid ] || continue
  else
    /usr/bin/python3 "$root/models/zoo/zoo.py" "$work" "$n" --opsets 17 >/dev/null
    model=$work/$n.opset17.onnx inputs=$work/$n.inputs.npz flags=""
  fi
  if ! "$host" compile "$model" -o "$work/p.edgec" --target aarch64 --backends none $flags 2>"$work/err"; then
    echo "| $n | not compiled: $(head -c 120 "$work/err") | | | |"
    continue
  fi
  "$host" compile "$model" -o "$work/x.edgec" --target aarch64 --backends xnnpack $flags
  delegated=$("$host" inspect --json "$work/x.edgec" | /usr/bin/python3 -c "
import json, sys
j = json.load(sys.stdin)
ops = [o for d in j['delegates'] for o in d['operators']]
print(f\"{len(ops)} of {len(ops) + sum(j['operators'].values())}\")")
  p=$(per_run "$work/p.edgec" "$inputs")
  x=$(per_run "$work/x.edgec" "$inputs")
  /usr/bin/python3 -c "print(f'| $n | {$p/1e6:.2f} | {$x/1e6:.2f} | {$p/max($x,1):.2f} | $delegated |')"
done
