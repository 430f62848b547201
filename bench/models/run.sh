#!/usr/bin/env bash
# The comparison users care about: the fixture models (ACT-style,
# Diffusion-style, ResNet-18, transformer, MLP, the recurrent ones), the
# torchvision zoo (models/zoo/zoo.py) and a GPT-style decoder
# (models/gpt.py) in PyTorch eager, ONNX Runtime 1.30.0 and 1.20.1 and
# edgec, in one run on this machine, at each thread count asked for. Prints
# the expected duration first, then markdown tables, and rewrites the
# "Models vs PyTorch and ONNX Runtime" section of bench/RESULTS.md (the
# other sections are kept).
#
#   bench/models/run.sh [--build DIR] [--work DIR] [--threads 1,2] [--models a,b]
#                       [--rounds R] [--iters N] [--warmup N]
#                       [--backends default,none] [--ort 1.30.0,1.20.1]
#                       [--strict] [--no-write] [--dry-run]
#
# Defaults: every model, threads 1,2, edgec's default backends, both ORT
# versions; rounds, timed and warm-up runs by model size (5 x 10 after 3 for
# the small ones, 5 x 10 after 2 for the medium, 4 x 8 after 1 for ViT-B/16
# and DeepLabV3; --rounds/--iters/--warmup set them for every model).
# --strict exits 1 when a system of a model gave no figures (the ctest
# smoke test uses it). --dry-run prints the plan (runs per model) and the
# expected duration, and measures nothing. Exports, compiled programs and
# results.json go to --work (default BUILD/bench-models); zoo and GPT
# exports are cached there (WORK/zoo, WORK/gpt: delete them after changing
# zoo.py or gpt.py).
#
# `make bench` runs it after building. What it needs and does not find, it
# installs when run as root (otherwise it says what to install):
# - libopenblas0-pthread: Debian's torch otherwise uses the reference BLAS,
#   several times slower, which would flatter edgec; time (/usr/bin/time
#   measures each process's peak RSS);
# - node and npm, and onnxruntime-node of each --ort version from npm
#   (`--ignore-scripts`: its postinstall downloads, which we never do) by
#   tests/cli/install_ort.sh into BUILD/npm/ortXYZ (1.30.0: BUILD/npm/ort130,
#   where the zoo tests put it) or BUILD/bench-models/ort-VERSION (1.20.1
#   also BUILD/bench-models/ort, where earlier runs put it), reusing any
#   that is there;
# - ResNet-18's ONNX export, made by models/make_fixtures.py into
#   BUILD/models/resnet18 (where `make test` puts it too).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build threads=1,2 rounds= iters= warmup= write=1 strict= dry_run= work=
models= backends=default
ort_versions=1.30.0,1.20.1
args=("$@")
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --backends) backends=$2; shift 2 ;;
    --ort) ort_versions=$2; shift 2 ;;
    --strict) strict=--strict; shift ;;
    --dry-run) dry_run=--dry-run; shift ;;
    --no-write) write=0; shift ;;
    -h|--help) sed -n '2,39p' "$0"; exit 0 ;;
    *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "error: no build folder; run 'make build' first" >&2; exit 1; }
edgec=$build/bin/edgec
[ -x "$edgec" ] || { echo "error: $edgec not found; run 'make build' first" >&2; exit 1; }
work=${work:-$build/bench-models}
[ -n "$dry_run" ] || mkdir -p "$work"
case $work in /*) ;; *) work=$PWD/$work ;; esac

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
# The multiarch triple of this machine (x86_64-linux-gnu, aarch64-linux-gnu):
# the benchmark runs unchanged on an aarch64 device.
triple=$(gcc -dumpmachine 2>/dev/null || echo "$(uname -m)-linux-gnu")
blas=$(readlink -f "/etc/alternatives/libblas.so.3-$triple" 2>/dev/null || echo none)
case $blas in
  *openblas-pthread*) ;;
  *) echo "warning: libblas.so.3 is $blas, not OpenBLAS (pthread): PyTorch's figures will be too slow;" \
          "see update-alternatives --display libblas.so.3-$triple" >&2 ;;
esac
command -v node >/dev/null && command -v npm >/dev/null || { echo "error: node and npm are needed for ONNX Runtime" >&2; exit 1; }

ort_args=()
for version in ${ort_versions//,/ }; do
  dir=$work/ort-$version
  # Reuse an install made elsewhere: the zoo tests' 1.30.0, earlier runs' 1.20.1.
  for candidate in "$build/npm/ort$(echo "$version" | cut -d. -f1,2 | tr -d .)" "$work/ort-$version" \
                   "$([ "$version" = 1.20.1 ] && echo "$work/ort")"; do
    if [ -n "$candidate" ] && grep -qs "\"version\": \"$version\"" "$candidate/node_modules/onnxruntime-node/package.json"; then
      dir=$candidate
      break
    fi
  done
  [ -n "$dry_run" ] || bash "$root/tests/cli/install_ort.sh" "$dir" "$version" >&2
  ort_args+=(--ort "$version=$dir/node_modules")
done

opts=()
[ -n "$models" ] && opts+=(--models "$models")
[ -n "$rounds" ] && opts+=(--rounds "$rounds")
[ -n "$iters" ] && opts+=(--iters "$iters")
[ -n "$warmup" ] && opts+=(--warmup "$warmup")
[ -n "$strict" ] && opts+=("$strict")
[ -n "$dry_run" ] && opts+=("$dry_run")
[ "$write" = 1 ] && opts+=(--results "$root/bench/RESULTS.md")
exec $py "$root/bench/models/compare.py" --edgec "$edgec" --work "$work" "${ort_args[@]}" \
  --resnet18-dir "$build/models/resnet18" --threads "$threads" --backends "$backends" \
  --json "$work/results.json" "${opts[@]}" --command "bench/models/run.sh${args[*]:+ ${args[*]}}"
