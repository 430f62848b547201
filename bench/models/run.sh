#!/usr/bin/env bash
# The comparison users care about: the fixture models (ACT-style,
# Diffusion-style, ResNet-18, transformer, MLP, the bidirectional LSTM and
# the streaming VAD) in PyTorch eager, ONNX Runtime and edgec, in one run
# on this machine. Prints markdown tables and
# rewrites the "Models vs PyTorch and ONNX Runtime" section of
# bench/RESULTS.md (the other sections are kept).
#
#   bench/models/run.sh [--build DIR] [--threads N] [--rounds R] [--iters N]
#                       [--warmup N] [--models a,b] [--backends onednn,none]
#                       [--ort VERSION] [--no-write]
#
# `make bench` runs it after building. What it needs and does not find, it
# installs when run as root (otherwise it says what to install):
# - libopenblas0-pthread: Debian's torch otherwise uses the reference BLAS,
#   several times slower, which would flatter edgec; time (/usr/bin/time
#   measures each process's peak RSS);
# - node and npm, and onnxruntime-node 1.20.1 (or --ort VERSION) into
#   BUILD/bench-models/ort (ort-VERSION for another version;
#   `--ignore-scripts`: its postinstall downloads, which we never do);
# - ResNet-18's ONNX export, made by models/make_fixtures.py into
#   BUILD/models/resnet18 (where `make test` puts it too).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build threads=2 rounds=8 iters=10 warmup=3 write=1
models=act,diffusion,resnet18,transformer,mlp,lstm_bidirectional,vad_stream backends=onednn,none
ort_version=1.20.1
args=("$@")
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --backends) backends=$2; shift 2 ;;
    --ort) ort_version=$2; shift 2 ;;
    --no-write) write=0; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "error: no build folder; run 'make build' first" >&2; exit 1; }
edgec=$build/bin/edgec
[ -x "$edgec" ] || { echo "error: $edgec not found; run 'make build' first" >&2; exit 1; }
if [ $((rounds * iters)) -lt 50 ]; then
  echo "note: $rounds rounds x $iters runs is under the 50 runs per system the report is meant to have" >&2
fi

py=/usr/bin/python3
missing=()
dpkg-query -W -f='${Status}' libopenblas0-pthread 2>/dev/null | grep -q "install ok installed" || missing+=(libopenblas0-pthread)
[ -x /usr/bin/time ] || missing+=(time)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing Debian packages: ${missing[*]}" >&2
    apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
  else
    echo "warning: missing Debian packages; as root run: apt-get install -y ${missing[*]}" >&2
  fi
fi
blas=$(readlink -f /etc/alternatives/libblas.so.3-x86_64-linux-gnu 2>/dev/null || echo none)
case $blas in
  *openblas-pthread*) ;;
  *) echo "warning: libblas.so.3 is $blas, not OpenBLAS (pthread): PyTorch's figures will be too slow;" \
          "see update-alternatives --display libblas.so.3-x86_64-linux-gnu" >&2 ;;
esac
command -v node >/dev/null && command -v npm >/dev/null || { echo "error: node and npm are needed for ONNX Runtime" >&2; exit 1; }

work=$build/bench-models
ort=$work/ort
[ "$ort_version" = 1.20.1 ] || ort=$work/ort-$ort_version
bash "$root/tests/cli/install_ort.sh" "$ort" "$ort_version" >&2

resnet=$build/models/resnet18
if [[ ",$models," == *,resnet18,* ]] && [ ! -f "$resnet/resnet18.inputs.npz" ]; then
  echo "exporting ResNet-18 into $resnet" >&2
  $py "$root/models/make_fixtures.py" "$resnet" --only resnet18 >&2
fi

results=()
[ "$write" = 1 ] && results=(--results "$root/bench/RESULTS.md")
exec $py "$root/bench/models/compare.py" --edgec "$edgec" --work "$work" --node-modules "$ort/node_modules" \
  --resnet18-dir "$resnet" --threads "$threads" --rounds "$rounds" --iters "$iters" --warmup "$warmup" \
  --models "$models" --backends "$backends" --json "$work/results.json" "${results[@]}" \
  --command "bench/models/run.sh${args[*]:+ ${args[*]}}"
