#!/usr/bin/env bash
# Zoo models quantized by edgec quantize (issue 32, item 7 and the
# acceptance's cosine and file-size figures). For each NAME[:METHOD]:
#   - models/zoo/zoo.py exports the torchvision model at opset 17;
#   - models/quantized/calibration.py makes 32 calibration files from
#     scikit-image's sample photos (SKIMAGE_DATA: skimage/data of Debian's
#     python3-skimage, which make test-deps extracts into the build folder;
#     nothing is downloaded here);
#   - edgec quantize writes the QDQ file (METHOD: minmax by default, or
#     percentile) and its report, holding back the last 6 files; with
#     --no-measure, every Conv / Gemm is quantized (which layers are faster
#     in int8 is measured on the machine, and is the benchmark's business);
#   - models/quantized/zoo_check.py checks: the report's cosine >= 0.99 per
#     output; the int8 program <= 0.3 x the float32 one; on the held-back
#     files, the program on the portable int8 kernels equals ONNX Runtime
#     1.30's outputs of the same QDQ file exactly, and the one with the
#     default delegates is within one quantization step of them everywhere
#     (the distribution is printed: exact on this machine).
#   quantized_zoo_test.sh EDGEC NODE_MODULES SKIMAGE_DATA NAME[:METHOD]...
set -euo pipefail
edgec=$1 node_modules=$2 data=$3
shift 3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"

if [ ! -f "$data/astronaut.png" ]; then
  echo "FAIL: $data has no astronaut.png: scikit-image's sample photos come from Debian's python3-skimage," \
       "extracted by make test-deps (apt-get download python3-skimage; dpkg-deb -x)"
  exit 1
fi

# compile PROGRAM MODEL [ARGS...]: edgec compile, a failure counted.
compile() {
  local program=$1
  shift
  "$edgec" compile "$@" -o "$program" >compile.txt 2>&1 && return 0
  fail "edgec compile $*: $(cat compile.txt)"
  return 1
}

for spec in "$@"; do
  name=${spec%%:*}
  method=minmax
  [ "$spec" = "$name" ] || method=${spec#*:}
  mkdir -p "$name"
  $py "$root/models/zoo/zoo.py" "$name" "$name" --opsets 17 >/dev/null
  model="$name/$name.opset17.onnx"
  $py "$root/models/quantized/calibration.py" "$data" "$name/cal" --model "$model" --count 32
  if ! "$edgec" quantize "$model" --calibration "$name/cal" --holdout 6 --method "$method" --no-measure -o "$name/q.onnx" \
      --report "$name/report.json" >"$name/quantize.txt" 2>&1; then
    fail "$name: edgec quantize: $(cat "$name/quantize.txt")"
    continue
  fi
  head -2 "$name/quantize.txt"
  compile "$name/f32.edgec" "$model" && compile "$name/int8.edgec" "$name/q.onnx" &&
    compile "$name/int8-portable.edgec" "$name/q.onnx" --backends none || continue
  $py "$root/models/quantized/zoo_check.py" --qdq "$name/q.onnx" --report "$name/report.json" \
      --calibration "$name/cal" --node-modules "$node_modules" --edgec "$edgec" --f32 "$name/f32.edgec" \
      --delegated "$name/int8.edgec" --exact "$name/int8-portable.edgec" || fail "$name ($method)"
  rm -rf "$name"
done
report_failures
