#!/usr/bin/env bash
# QDQ models as ONNX Runtime's quantize_static writes them (issue 32; made at
# test time by models/quantized/qdq_models.py: a small CNN, a depthwise-
# separable block, a transformer-style MLP; uint8 and int8 activations;
# opsets 13 and 21), run by ONNX Runtime 1.30 and compiled and run by edgec
# (models/quantized/check_qdq.py): integer outputs equal ORT's, dequantized
# ones within one quantization step; the fused program within one step of
# the --keep-qdq one; no f32 weights in the file; the QDQ CNN's program file
# at most 0.35 of the float32 one (0.3 on ResNet-50: zoo.quantized).
#   quantized_test.sh EDGEC NODE_MODULES
set -euo pipefail
edgec=$1 node_modules=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"
$py "$root/models/quantized/qdq_models.py" "$t/q" >make.txt 2>&1 || { cat make.txt; exit 1; }
$py "$root/models/quantized/check_qdq.py" "$t/q" --edgec "$edgec" --node-modules "$node_modules"
