#!/usr/bin/env bash
# Threads under contention and in a control loop (issue 19): ACT-style,
# ResNet-18 and MnasNet 1.0 in edgec and ONNX Runtime 1.30 at 1 and 2
# threads, on an idle machine, with one CPU-bound competitor process, and at
# 50 Hz. Rewrites the "Threads under contention and at 50 Hz" section of
# bench/RESULTS.md (bench/threads/contention.py says what is measured).
#
#   bench/threads/run.sh [--build DIR] [--models act,resnet18,mnasnet1_0]
#                        [--rounds R] [--seconds S] [--rate HZ] [--no-write]
#
# Needs what bench/models/run.sh installs (node, npm, onnxruntime-node
# 1.30.0 into BUILD/npm/ort130, as the zoo tests do); ResNet-18 and MnasNet
# are exported into BUILD/models/resnet18 and BUILD/bench-models/zoo.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build models=act,resnet18,mnasnet1_0 write=1
pass=()
args=("$@")
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --rounds|--seconds|--rate|--rate-runs) pass+=("$1" "$2"); shift 2 ;;
    --no-write) write=0; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "error: no build folder; run 'make build' first" >&2; exit 1; }
edgec=$build/bin/edgec
[ -x "$edgec" ] || { echo "error: $edgec not found; run 'make build' first" >&2; exit 1; }
command -v node >/dev/null || { echo "error: node is needed for ONNX Runtime (make test-deps installs it)" >&2; exit 1; }
py=/usr/bin/python3
ort=$build/npm/ort130
bash "$root/tests/cli/install_ort.sh" "$ort" 1.30.0 >&2

dirs=()
for m in ${models//,/ }; do
  case $m in
    resnet18)
      d=$build/models/resnet18
      [ -f "$d/resnet18.inputs.npz" ] || $py "$root/models/make_fixtures.py" "$d" --only resnet18 >&2 ;;
    act|diffusion|transformer|mlp) d=$root/models/fixtures ;;
    *)
      d=$build/bench-models/zoo
      [ -f "$d/$m.inputs.npz" ] || $py "$root/models/zoo/zoo.py" "$d" "$m" --opsets 17 >&2 ;;
  esac
  dirs+=(--model-dir "$m=$d")
done
results=()
[ "$write" = 1 ] && results=(--results "$root/bench/RESULTS.md")
exec $py "$root/bench/threads/contention.py" --edgec "$edgec" --work "$build/bench-threads" \
  --node-modules "$ort/node_modules" --models "$models" "${dirs[@]}" "${pass[@]}" "${results[@]}" \
  --json "$build/bench-threads/results.json" --command "bench/threads/run.sh${args[*]:+ ${args[*]}}"
