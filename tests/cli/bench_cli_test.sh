#!/usr/bin/env bash
# `edgec bench` on the MLP fixture: the JSON report has every key with
# positive numbers (timings are never compared with thresholds: the machine
# is shared and noisy), --profile lists exactly the program's operators, the
# text report has its lines, and bad arguments are clean errors.
set -euo pipefail
edgec=$1 fixtures=$2
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"

"$edgec" compile "$fixtures/mlp.onnx" -o mlp.edgec --backends none
"$edgec" inspect mlp.edgec --json > inspect.json

"$edgec" bench mlp.edgec --inputs "$fixtures/mlp.inputs.npz" --iters 5 --warmup 1 --json > bench.json
$py - <<'PY'
import json
j = json.load(open("bench.json"))
for key in ("median_ms", "p90_ms", "min_ms", "mean_ms", "max_ms", "load_ms", "file_bytes", "peak_rss_kib"):
    v = j[key]
    assert isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0, (key, v)
assert j["min_ms"] <= j["median_ms"] <= j["p90_ms"] <= j["max_ms"], j
assert j["iters"] == 5 and j["warmup"] == 1, j
assert isinstance(j["threads"], int) and j["threads"] >= 1, j
assert "profile" not in j, "profile without --profile"
assert j["min_ms"] <= j["p99_ms"] <= j["max_ms"] and j["p90_ms"] <= j["p99_ms"], j
assert j["cpu_ms_per_run"] >= 0 and "rate_hz" not in j, j
assert isinstance(j["reduced_runs"], int) and 0 <= j["reduced_runs"] <= 5, j
print("bench --json: ok")
PY

# OpenMP's idle threads spin briefly, then sleep: edgec sets GOMP_SPINCOUNT=10000
# and starts again when neither it nor OMP_WAIT_POLICY is set, and keeps a caller's.
policy() {
  env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "$@" "$edgec" bench mlp.edgec --inputs "$fixtures/mlp.inputs.npz" \
    --iters 1 --warmup 0 --json | $py -c "import json, sys; j = json.load(sys.stdin); print(j['omp_wait_policy'] + '|' + j['gomp_spincount'])"
}
[ "$(policy)" = "|10000" ] || fail "unset: $(policy)"
[ "$(policy OMP_WAIT_POLICY=active)" = "active|" ] || fail "OMP_WAIT_POLICY=active: $(policy OMP_WAIT_POLICY=active)"
[ "$(policy OMP_WAIT_POLICY=PASSIVE)" = "PASSIVE|" ] || fail "OMP_WAIT_POLICY=PASSIVE: $(policy OMP_WAIT_POLICY=PASSIVE)"
[ "$(policy GOMP_SPINCOUNT=1000)" = "|1000" ] || fail "GOMP_SPINCOUNT=1000: $(policy GOMP_SPINCOUNT=1000)"

# --rate: runs at their ticks, as a control loop; every run is timed and
# counted, none is late at 200 Hz for a model of microseconds, and the CPU
# a run costs is reported (issue 19: what threads burn between calls).
"$edgec" bench mlp.edgec --inputs "$fixtures/mlp.inputs.npz" --iters 10 --warmup 1 --threads 1 --rate 200 --json > rate.json
$py - <<'PY'
import json
j = json.load(open("rate.json"))
assert j["rate_hz"] == 200 and len(j["times_ms"]) == 10, j
assert 0 <= j["missed"] <= 10 and j["cpu_ms_per_run"] >= 0, j
print("bench --rate --json: ok,", j["missed"], "late,", round(j["cpu_ms_per_run"], 4), "ms CPU a run")
PY
"$edgec" bench mlp.edgec --inputs "$fixtures/mlp.inputs.npz" --iters 3 --warmup 0 --rate 500 | grep -q "at 500 Hz: [0-9]* of 3 run(s) started late; CPU" ||
  { echo "bench --rate printed no rate line"; exit 1; }

# --profile: one row per operator of the program, call counts adding up to
# its instructions, shares adding up to 100%.
"$edgec" bench mlp.edgec --inputs "$fixtures/mlp.inputs.npz" --iters 3 --warmup 0 --threads 1 --json --profile > profile.json
$py - <<'PY'
import json
j = json.load(open("profile.json"))
ops = json.load(open("inspect.json"))["operators"]
rows = {r["name"]: r for r in j["profile"]}
assert set(rows) == set(ops), (sorted(rows), sorted(ops))
for name, count in ops.items():
    assert rows[name]["calls"] == count, (name, rows[name], count)
    assert rows[name]["total_ms"] >= 0, rows[name]
assert sum(r["calls"] for r in j["profile"]) == j["instructions"], j
totals = [r["total_ms"] for r in j["profile"]]
assert totals == sorted(totals, reverse=True), "profile not sorted by time"
assert j["profiled_total_ms"] > 0 and abs(sum(r["percent"] for r in j["profile"]) - 100) < 1e-6, j
assert j["threads"] == 1, j
print("bench --profile --json: ok,", ", ".join(f"{r['name']} {r['calls']}" for r in j["profile"]))
PY

# The text report, with the profile table naming every operator.
"$edgec" bench mlp.edgec --inputs "$fixtures/mlp.inputs.npz" --iters 3 --warmup 0 --profile > bench.txt
grep -q "^load .* ms" bench.txt || { cat bench.txt; exit 1; }
grep -q "^execute  median .* ms, p90 .* ms, min .* ms" bench.txt || { cat bench.txt; exit 1; }
for op in $($py -c "import json; print(' '.join(json.load(open('inspect.json'))['operators']))"); do
  grep -q "^$op " bench.txt || { echo "operator $op missing from the profile:"; cat bench.txt; exit 1; }
done

# A program with a delegate: the profile has one row for the delegate call.
"$edgec" compile "$fixtures/mlp.onnx" -o ref.edgec --backends reference
"$edgec" bench ref.edgec --inputs "$fixtures/mlp.inputs.npz" --iters 2 --warmup 0 --json --profile > ref.json
$py -c "
import json
j = json.load(open('ref.json'))
names = [r['name'] for r in j['profile']]
assert 'delegate 0 (reference)' in names, names
print('bench --profile with a delegate: ok,', names)"

# The onednn delegate breaks its time into steps (builds with it only:
# EDGEC_BACKENDS is the list CMake built, passed by tests/CMakeLists.txt).
if [[ ",${EDGEC_BACKENDS:-}," == *,onednn,* ]]; then
  # The fused matmul + bias + relu of the MLP appears as one step, and the
  # steps' time is within the delegate call's.
  "$edgec" compile "$fixtures/mlp.onnx" -o dnnl.edgec --backends onednn
  "$edgec" bench dnnl.edgec --inputs "$fixtures/mlp.inputs.npz" --iters 3 --warmup 0 --threads 1 --json --profile > dnnl.json
  $py -c "
import json
j = json.load(open('dnnl.json'))
dp = j['delegate_profile']
assert dp and all(d['backend'] == 'onednn' for d in dp), dp
assert len(dp) == sum(1 for r in j['profile'] if r['name'].endswith('(onednn)')), (dp, j['profile'])
steps = {s['name']: s for d in dp for s in d['steps']}
assert any(n.startswith('matmul+add+relu') for n in steps), steps
for d in dp:
    call = [r for r in j['profile'] if r['name'] == f\"delegate {d['delegate']} (onednn)\"][0]
    assert 0 < d['steps_total_ms'] <= call['total_ms'] * 1.01 + 1e-3, (d, call)
print('bench --profile inside the onednn delegate: ok,', sorted(steps))"
  "$edgec" bench dnnl.edgec --inputs "$fixtures/mlp.inputs.npz" --iters 2 --warmup 0 --profile > dnnl.txt
  grep -q "^inside delegate 0 (onednn)" dnnl.txt || { cat dnnl.txt; exit 1; }
fi

$py - <<'PY'
import numpy as np
np.savez("bad_shape.npz", x=np.zeros((1, 65), np.float32))
np.savez("extra.npz", x=np.zeros((1, 64), np.float32), other=np.zeros(1, np.float32))
np.savez("missing.npz")
PY
expect_error() {  # expect_error PATTERN CMD...: fails unless CMD fails with "error: ...PATTERN"
  local pattern=$1; shift
  if "$@" >out.txt 2>err.txt; then echo "expected failure: $*"; exit 1; fi
  grep -q "^error: .*$pattern" err.txt || { echo "wrong error for $*:"; cat err.txt; exit 1; }
}
expect_error "input 'x': expected f32\[1, 64\], got f32\[1, 65\]" "$edgec" bench mlp.edgec --inputs bad_shape.npz --iters 1
expect_error "unexpected input 'other'" "$edgec" bench mlp.edgec --inputs extra.npz --iters 1
expect_error "missing input 'x'" "$edgec" bench mlp.edgec --inputs missing.npz --iters 1
expect_error "no-such.npz" "$edgec" bench mlp.edgec --inputs no-such.npz
head -c 1000 mlp.edgec > truncated.edgec
expect_error "invalid program file" "$edgec" bench truncated.edgec --inputs "$fixtures/mlp.inputs.npz"
# Option errors: one error line naming the flag, exit 2, no report
# (usage_errors_test.sh checks every option of every command).
expect_usage() {  # expect_usage TEXT ARGS...
  local text=$1; shift
  set +e
  timeout 60 "$edgec" bench mlp.edgec --inputs "$fixtures/mlp.inputs.npz" "$@" >out.txt 2>err.txt
  local code=$?
  set -e
  [ "$code" = 2 ] || { echo "bench $*: exit $code, expected 2:"; cat err.txt; exit 1; }
  grep -qxF -- "error: $text" err.txt || { echo "wrong error for bench $*:"; cat err.txt; exit 1; }
  [ ! -s out.txt ] || { echo "bench $* printed a report"; exit 1; }
}
expect_usage "--iters: expected 1 to 1000000000, got 0" --iters 0
expect_usage "--iters: expected 1 to 1000000000, got 2147483647" --iters 2147483647
expect_usage "--rate: expected runs per second, a number above 0 and at most 1000000, got '0'" --rate 0
expect_usage "--rate: expected runs per second, a number above 0 and at most 1000000, got 'fast'" --rate fast
expect_usage "--threads: expected 1 to $(getconf _NPROCESSORS_ONLN) (the cores of this machine), got -1" --threads -1

# The runs' times are kept (--json reports every one; the median and p90
# need them all): their memory is checked against the memory limit before
# the program is even loaded: 16 bytes a run, 64 with --json.
expect_memory() {  # expect_memory BYTES ARGS...
  local bytes=$1; shift
  set +e
  EDGEC_MEMORY_LIMIT=1MiB timeout 60 "$edgec" bench mlp.edgec --inputs "$fixtures/mlp.inputs.npz" "$@" >out.txt 2>err.txt
  local code=$?
  set -e
  [ "$code" = 1 ] || { echo "bench $* under a 1 MiB limit: exit $code, expected 1:"; cat err.txt; exit 1; }
  grep -qF "error: --iters: keeping the times of" err.txt || { cat err.txt; exit 1; }
  grep -qF "runs takes $bytes bytes" err.txt || { cat err.txt; exit 1; }
  grep -qF "more than the memory limit of 1048576 bytes" err.txt || { cat err.txt; exit 1; }
  [ ! -s out.txt ] || { echo "bench $* printed a report"; exit 1; }
}
expect_memory 1600000 --iters 100000
expect_memory 1280000 --iters 20000 --json
expect_memory 16000000000 --iters 1000000000 --warmup 1000000000
EDGEC_MEMORY_LIMIT=1MiB "$edgec" bench mlp.edgec --inputs "$fixtures/mlp.inputs.npz" --iters 2000 --warmup 0 --json >small.json
report_failures
echo "bench CLI: all checks passed"
