#!/usr/bin/env bash
# Compiles one fixture (models/fixtures/NAME.onnx) with `edgec compile`, runs
# it with `edgec run`, and compares every output with PyTorch's (saved by
# models/make_fixtures.py) within 1e-4 absolute or relative. Compiling twice
# must give byte-identical files. A fixture with extra input sets (its
# manifest entry's cases: NAME.case-LABEL.inputs.npz and .outputs.npz) runs
# each of them too, with the same program and the same comparison. A fixture whose manifest entry says the
# exported graph is invalid must be refused instead, with the error line
# its entry gives (expected_error) and no output file.
# MODE: `portable` (the default) compiles with no backend and with the
# reference backend; `onednn` with the onednn delegate, then checks what it
# took and fused (registered only in builds with EDGEC_BACKEND_ONEDNN);
# `xnnpack` with the xnnpack delegate alone, the rest on the portable
# kernels (registered only with EDGEC_BACKEND_XNNPACK).
set -euo pipefail
edgec=$1 fixtures=$2 name=$3 mode=${4:-portable}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

source "$(dirname "${BASH_SOURCE[0]}")/fixture_lib.sh"

if [ "$valid" = no ]; then
  if "$edgec" compile "$fixtures/$name.onnx" -o "$t/out.edgec" 2>"$t/err.txt"; then
    echo "expected $name to be refused"; exit 1
  fi
  [ ! -e "$t/out.edgec" ] || { echo "partial output left"; exit 1; }
  # The whole error output: one line naming the file, the node and its
  # operator, and the reason the manifest entry gives (expected_error).
  $py - "$fixtures/manifest.json" "$name" "$fixtures/$name.onnx" "$t/err.txt" <<'PY'
import json, re, sys
manifest, name, model, err = sys.argv[1:]
entry = [x for x in json.load(open(manifest))["fixtures"] if x["name"] == name][0]
reason = entry.get("expected_error")
assert reason, f"{name}: its manifest entry gives no expected_error"
node = re.match(r"node '[^']+' \(#\d+, (\w+), domain ", reason)
assert node and node.group(1) in entry["op_types"], f"{name}: expected_error names no node and operator of the model: {reason}"
want = f"error: {model}: {reason}\n"
got = open(err).read()
assert got == want, f"{name}: edgec compile said\n  {got!r}\nexpected\n  {want!r}"
print(got, end="")
PY
  exit 0
fi

# The same model on the portable kernels only, with every operator in one
# reference delegate, and with a reference backend that takes a few common
# operators (many partitions interleaved with portable calls, constants
# shared between them): all must match PyTorch (docs/semantics.md §4-6), on
# the main input set and on every extra one (the manifest entry's cases,
# e.g. the other branch of an `if`, other trip counts of a loop, other
# sequence lengths: NAME.case-LABEL.inputs.npz with PyTorch's or numpy's
# outputs in NAME.case-LABEL.outputs.npz), compared as fixture_lib.sh's
# check does. Symbolic input dims get fixture_lib.sh's bounds.
if [ "$mode" = portable ]; then
  backend_lists=(none reference reference:add+mul+conv+matmul+layer_norm)
else
  backend_lists=("$mode")
fi
for backends in "${backend_lists[@]}"; do
  "$edgec" compile "$fixtures/$name.onnx" -o "$t/a.edgec" $dim_flags --backends "$backends"
  "$edgec" compile "$fixtures/$name.onnx" -o "$t/b.edgec" $dim_flags --backends "$backends"
  cmp "$t/a.edgec" "$t/b.edgec"
  run_sets "$edgec" "$t/a.edgec" "$backends"
done

if [ "$mode" = xnnpack ]; then
  # What the delegate took, for the log: its calls, and what stayed on the
  # portable kernels.
  "$edgec" inspect --json "$t/a.edgec" | $py -c "
import json, sys
info = json.load(sys.stdin)
taken = sorted({op for d in info['delegates'] for op in d['operators']})
print(f'[xnnpack] {len(info[\"delegates\"])} delegate(s) running', ', '.join(taken) or 'nothing',
      '; left on the portable kernels:', ', '.join(sorted(info['operators'])) or 'nothing')"
fi
[ "$mode" = onednn ] || exit 0

# The onednn file (a.edgec) stores convolution weights in
# the layout oneDNN chose for this CPU; where it picks another, init
# reorders from the stored one. Run it once more with the instruction set
# switched (EDGEC_ISA: edgec's kernels and oneDNN together): held to AVX2
# when it was free, freed when the AVX2 pass of ctest held it (a no-op on
# an AVX2-only machine).
if [ -n "${EDGEC_ISA:-}" ]; then
  run_sets "$edgec" "$t/a.edgec" "onednn, compiled with EDGEC_ISA=$EDGEC_ISA, run on the best ISA" -u EDGEC_ISA
else
  run_sets "$edgec" "$t/a.edgec" "onednn, run held to AVX2" EDGEC_ISA=avx2
fi

# Issue 6 acceptance: in the ACT-style and ResNet-18 fixtures every
# convolution, matmul and normalization runs in the onednn delegate, so
# none of them is left among the portable-kernel operators.
case "$name" in
  act|act_full|resnet18)
    "$edgec" compile "$fixtures/$name.onnx" -o "$t/a.edgec" $dim_flags --backends onednn
    "$edgec" inspect --json "$t/a.edgec" | $py -c "
import json, sys
ops = json.load(sys.stdin)['operators']
left = sorted(k for k in ops if k in ('conv', 'conv_transpose', 'matmul', 'layer_norm', 'batch_norm', 'instance_norm', 'group_norm'))
assert not left, f'left on the portable kernels: {left}'
print('[onednn] conv/matmul/normalization all delegated')"
    # Load without copying weights: the convolutions oneDNN runs directly
    # (ResNet-18's last two stages, its stem and its 1x1 downsamples) have
    # their weights stored in the layout oneDNN chose at compile time, only
    # in that form (no row-major copy in the file as well).
    if [ "$name" = resnet18 ]; then
      "$edgec" inspect --json "$t/a.edgec" | $py -c "
import json, sys
keys = [c['name'] for d in json.load(sys.stdin)['delegates'] for c in d['constants']]
stored = [k for k in keys if '@onednn:' in k]
assert len(stored) >= 10, f'{len(stored)} weights stored in oneDNN layout: {keys}'
both = [k for k in stored if k.split('@onednn:')[0] in keys]
assert not both, f'stored in both forms: {both}'
print(f'[onednn] {len(stored)} convolution weights stored in oneDNN layout')"
    fi
    # Issue 6, deliverable 2: inside the delegate, batch norm (or the
    # exporter's per-channel mul/add) is folded into the convolution, the
    # residual add and the ReLU are post-ops, and the activations stay in
    # oneDNN's blocked layout (only the boundary reorders). The profile's
    # step names say what each step fused.
    if [ -f "$fixtures/$name.inputs.npz" ]; then
      "$edgec" bench "$t/a.edgec" --inputs "$fixtures/$name.inputs.npz" --iters 1 --warmup 0 --threads 1 --json --profile |
        $py -c "
import json, sys
j = json.load(sys.stdin)
steps = [s for d in j['delegate_profile'] for s in d['steps']]
names = {s['name'] for s in steps}
convs = [s for s in steps if s['name'].startswith('conv')]
assert convs, names
assert not [n for n in names if n.startswith(('batch_norm', 'relu'))], f'unfused: {sorted(names)}'
if '$name' == 'resnet18':
    assert 'conv+sum+relu' in names and 'conv+relu' in names, sorted(names)
    # The 3x3 stride-1 convolutions of the first two stages (up to 128
    # channels) run as Winograd F(4x4, 3x3) with the same fusion.
    assert 'conv (winograd)+sum+relu' in names and 'conv (winograd)+relu' in names, sorted(names)
    to_plain = sum(s['calls'] for s in steps if s['name'] == 'reorder (to plain)')
    assert to_plain <= 2, f'{to_plain} reorders to plain inside the delegate: {sorted(names)}'
print('[onednn] fused steps:', ', '.join(sorted(names)))"
    fi
    ;;
esac

# Issue 17: the sample-rate branch compiled with the rate fixed leaves no
# if, and only the branch taken is in the file (the other's weights are not).
if [ "$name" = vad_stream ]; then
  "$edgec" compile "$fixtures/$name.onnx" -o "$t/a.edgec" $dim_flags --backends onednn
  "$edgec" inspect --json "$t/a.edgec" | $py -c "
import json, sys
info = json.load(sys.stdin)
ops = set(info['operators']) | {op for d in info['delegates'] for op in d['operators']}
names = {c['name'] for c in info['constants']} | {c['name'] for d in info['delegates'] for c in d['constants']}
assert not [o for o in ops if 'if' in o.split('.')], sorted(ops)
assert [n for n in names if 'conv16' in n] and not [n for n in names if 'conv8' in n], sorted(names)
assert [i['name'] for i in info['inputs']] == ['audio', 'h', 'c'], info['inputs']
print('[onednn] sr fixed to 16000: only the 16 kHz front end is in the file; inputs audio, h, c')"
fi

# docs/semantics.md §7.1 (issue 6 acceptance): a constant mask (1-D, 2-D, 3-D, at
# axis 1) is folded into positions and the whole model runs inside one
# onednn delegate; every other mask case stays (partly) on the portable
# kernels with a reason naming the mask (checked by
# tests/lowering/mask_rules_test.cpp) and still matches PyTorch (above).
case "$name" in
  mask_const_1d|mask_const_2d|mask_const_3d|mask_axis1|mask_buffer)
    "$edgec" compile "$fixtures/$name.onnx" -o "$t/a.edgec" $dim_flags --backends onednn
    "$edgec" inspect --json "$t/a.edgec" | $py -c "
import json, sys
info = json.load(sys.stdin)
assert not info['operators'], f'left on the portable kernels: {info[\"operators\"]}'
assert len(info['delegates']) == 1, f'{len(info[\"delegates\"])} delegates'
print('[onednn] the masked gather runs inside the one delegate:', info['delegates'][0]['operators'])"
    ;;
  mask_computed|mask_input|mask_buffer_overridable)
    "$edgec" compile "$fixtures/$name.onnx" -o "$t/a.edgec" $dim_flags --backends onednn
    "$edgec" inspect "$t/a.edgec" | grep -q "SEMANTICS 7.2" || { "$edgec" inspect "$t/a.edgec"; echo "no SEMANTICS 7.2 reason"; exit 1; }
    echo "[onednn] the mask's gather is refused with its SEMANTICS 7.2 reason"
    ;;
esac
