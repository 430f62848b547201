# What the fixture scripts share (fixture_test.sh, cross_target_fixture_test.sh),
# sourced after lib.sh with $fixtures and $name set:
#   valid             "no" when the manifest says the exported graph is invalid
#   dim_flags         --max-dim bounds for symbolic input dims (twice the
#                     largest size the reference input sets use) and
#                     --fix-inputs where the fixture fixes inputs
#   cases             the labels of the extra input sets
#   check OUT REF LABEL   the comparison with PyTorch's outputs
#   run_sets EDGEC PROGRAM LABEL [ENV...]   runs PROGRAM on every input set
valid=$($py -c "
import json,sys
m=json.load(open('$fixtures/manifest.json'))
f=[x for x in m['fixtures'] if x['name']=='$name']
print('yes' if not f or f[0].get('onnx_valid', True) else 'no')")

dim_flags=$($py -c "
import json
m=json.load(open('$fixtures/manifest.json'))
size={}
for f in m['fixtures']:
    if f['name'] != '$name': continue
    for inputs in [f['inputs']] + [c['inputs'] for c in f.get('cases', [])]:
        for i in inputs:
            for d, s in zip(i.get('onnx_shape', []), i['shape']):
                if isinstance(d, str): size[d] = max(size.get(d, 0), s)
print(' '.join(f'--max-dim={d}={2 * s}' for d, s in sorted(size.items())))")
# Inputs a deployment fixes (NAME.fixed.npz, e.g. a sample rate) are given
# at compile time, as --fix-inputs does; they leave the signature.
[ -f "$fixtures/$name.fixed.npz" ] && dim_flags="$dim_flags --fix-inputs $fixtures/$name.fixed.npz"

cases=$($py -c "
import json
m=json.load(open('$fixtures/manifest.json'))
print(' '.join(c['label'] for f in m['fixtures'] if f['name'] == '$name' for c in f.get('cases', [])))")

# Floats within 1e-4 absolute or relative, integers and booleans exact, NaN
# only where PyTorch has NaN (tests/support/compare_npz.py).
check() {
  $py "$compare_npz" "$1" "$2" --atol 1e-4 --rtol 1e-4 --form either --label "$3"
}

run_sets() {
  local cli=$1 program=$2 label=$3
  shift 3
  env "$@" "$cli" run "$program" --inputs "$fixtures/$name.inputs.npz" --outputs "$t/out.npz"
  check "$t/out.npz" "$fixtures/$name.outputs.npz" "$label"
  for c in $cases; do
    env "$@" "$cli" run "$program" --inputs "$fixtures/$name.case-$c.inputs.npz" --outputs "$t/out.npz"
    check "$t/out.npz" "$fixtures/$name.case-$c.outputs.npz" "$label, case-$c"
  done
}
