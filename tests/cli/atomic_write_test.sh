#!/usr/bin/env bash
# No data lost: `edgec compile -o OUT` and `edgec run --outputs OUT` replace
# OUT atomically (a temporary file, then rename). Each is killed with
# SIGKILL at many moments, and OUT must then hold either the previous file,
# byte-identical, or the complete new one -- never a mix, a truncated file,
# or nothing.
#
# Kill moments: a sweep of delays over the command's measured duration, and
# "watch" kills, sent the moment a temporary file appears next to OUT or OUT
# itself changes, which land in the middle of the write (a non-atomic
# writer that truncates OUT is caught there). Leftover temporary files from
# SIGKILLed writers are allowed (nothing can clean up after SIGKILL) and
# reported; after SIGTERM, SIGINT or SIGHUP sent mid-write none may be left
# (the CLI's handlers remove them, io/pending_files.h), and a write past the
# file size limit (ulimit -f) is a clear error that leaves none either.
set -euo pipefail
edgec=$1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# A model big enough that its file takes a while to write (16 MiB of
# weights), and one whose output is 16 MiB.
$py - "$t" <<'EOF'
import sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper
t = sys.argv[1]
rng = np.random.default_rng(0)

def save(graph, path):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    open(path, "wb").write(m.SerializeToString())

n = 4
inits = [numpy_helper.from_array((rng.standard_normal((1024, 1024)) / 32).astype(np.float32), f"w{i}")
         for i in range(n)]
nodes = [helper.make_node("MatMul", ["x" if i == 0 else f"h{i - 1}", f"w{i}"], [f"h{i}"]) for i in range(n)]
save(helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 1024])],
                       [helper.make_tensor_value_info(f"h{n - 1}", TensorProto.FLOAT, [8, 1024])], inits),
     f"{t}/big.onnx")
save(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "small",
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2048, 2048])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2048, 2048])]),
     f"{t}/relu.onnx")
np.savez(f"{t}/x.npz", x=rng.standard_normal((2048, 2048)).astype(np.float32))
np.savez(f"{t}/x_other.npz", x=-np.abs(rng.standard_normal((2048, 2048))).astype(np.float32))
EOF

# The files OUT may hold: the previous one and the complete new one. The run
# model uses the portable kernels: the test is about the output file.
"$edgec" compile "$t/relu.onnx" -o "$t/relu.edgec" --backends none
"$edgec" compile "$t/big.onnx" -o "$t/compile.ref"
cp "$t/relu.edgec" "$t/compile.prev"
"$edgec" run "$t/relu.edgec" --inputs "$t/x.npz" --outputs "$t/run.ref.npz"
"$edgec" run "$t/relu.edgec" --inputs "$t/x_other.npz" --outputs "$t/run.prev.npz"
cmp -s "$t/compile.ref" "$t/compile.prev" && { echo "reference and previous files must differ"; exit 1; }
cmp -s "$t/run.ref.npz" "$t/run.prev.npz" && { echo "reference and previous outputs must differ"; exit 1; }

$py - "$t" "$edgec" <<'EOF'
import filecmp, glob, os, signal, subprocess, sys, time
t, edgec = sys.argv[1], sys.argv[2]

def same(a, b):
    return filecmp.cmp(a, b, shallow=False)

def stamp(path):
    try:
        s = os.stat(path)
        return (s.st_ino, s.st_size, s.st_mtime_ns)
    except FileNotFoundError:
        return None

def trial(name, cmd, out, prev, ref, delay=None, sig=signal.SIGKILL):
    """Runs cmd with `prev` at `out`, kills it (after `delay` seconds, or
    the moment a temporary file appears or `out` changes), and checks
    `out`. Returns (what the kill hit, temporary files left)."""
    for leftover in glob.glob(out + ".tmp*"):
        os.unlink(leftover)
    with open(prev, "rb") as src, open(out, "wb") as dst:
        dst.write(src.read())
    before = stamp(out)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hit = "exited"
    if delay is not None:
        time.sleep(delay)
        if proc.poll() is None:
            hit = "delay"
    else:
        while proc.poll() is None:
            if glob.glob(out + ".tmp*"):
                hit = "temp file"
                break
            if stamp(out) != before:
                hit = "output changed"
                break
    if proc.poll() is None:
        proc.send_signal(sig)
    code = proc.wait()
    if sig != signal.SIGKILL and hit != "exited" and code not in (-sig, 0):
        sys.exit(f"FAIL {name}: after {sig.name} ({hit}) the exit status is {code}, expected death by the signal")
    if not os.path.exists(out):
        sys.exit(f"FAIL {name}: {out} is gone after a kill ({hit})")
    if not (same(out, prev) or same(out, ref)):
        size = os.path.getsize(out)
        sys.exit(f"FAIL {name}: after a kill ({hit}) {out} ({size} bytes) is neither the previous file "
                 f"({os.path.getsize(prev)} bytes) nor the complete new one ({os.path.getsize(ref)} bytes)")
    left = glob.glob(out + ".tmp*")
    return hit, len(left)

def check(name, cmd, out, prev, ref):
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    duration = time.monotonic() - start
    if not same(out, ref):
        sys.exit(f"FAIL {name}: an uninterrupted run does not reproduce the reference")
    step = max(duration / 12, 0.005)
    delays = [i * step for i in range(15)]
    hits, leftovers = {}, 0
    for d in delays:
        hit, left = trial(name, cmd, out, prev, ref, delay=d)
        hits[hit] = hits.get(hit, 0) + 1
        leftovers += left
    for _ in range(6):
        hit, left = trial(name, cmd, out, prev, ref)
        hits[hit] = hits.get(hit, 0) + 1
        leftovers += left
    print(f"{name}: {duration:.3f} s uninterrupted; kills: {hits}; temporary files left by kills: {leftovers}")
    if hits.get("temp file", 0) + hits.get("output changed", 0) == 0:
        print(f"note: no kill of {name} landed during the write this time")

def check_signals(name, cmd, out, prev, ref):
    """Watch kills with the signals the CLI catches: OUT as for SIGKILL,
    and no temporary file left behind."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        hits = {}
        for _ in range(4):
            hit, left = trial(name, cmd, out, prev, ref, sig=sig)
            hits[hit] = hits.get(hit, 0) + 1
            if left:
                sys.exit(f"FAIL {name}: {left} temporary file(s) left after {sig.name} ({hit})")
        print(f"{name}, {sig.name}: kills {hits}, no temporary file left")
        if hits.get("temp file", 0) == 0:
            sys.exit(f"FAIL {name}: no {sig.name} landed during the write in 4 tries (the test proves nothing)")

compile_cmd = [edgec, "compile", f"{t}/big.onnx", "-o", f"{t}/out.edgec"]
run_cmd = [edgec, "run", f"{t}/relu.edgec", "--inputs", f"{t}/x.npz", "--outputs", f"{t}/out.npz"]
check("compile", compile_cmd, f"{t}/out.edgec", f"{t}/compile.prev", f"{t}/compile.ref")
check("run", run_cmd, f"{t}/out.npz", f"{t}/run.prev.npz", f"{t}/run.ref.npz")
check_signals("compile", compile_cmd, f"{t}/out.edgec", f"{t}/compile.prev", f"{t}/compile.ref")
check_signals("run", run_cmd, f"{t}/out.npz", f"{t}/run.prev.npz", f"{t}/run.ref.npz")
EOF

# A write past the file size limit: a clear error naming the file, exit 1,
# the previous OUT kept and no temporary file left.
for what in compile run; do
  if [ $what = compile ]; then
    out=$t/out.edgec; prev=$t/compile.prev; cmd=("$edgec" compile "$t/big.onnx" -o "$out")
  else
    out=$t/out.npz; prev=$t/run.prev.npz; cmd=("$edgec" run "$t/relu.edgec" --inputs "$t/x.npz" --outputs "$out")
  fi
  cp "$prev" "$out"
  rm -f "$out".tmp*
  set +e
  (ulimit -f 1024; "${cmd[@]}") 2> "$t/err.txt"
  code=$?
  set -e
  grep -q "File too large" "$t/err.txt" || { echo "FAIL $what over ulimit -f: $(cat "$t/err.txt")"; exit 1; }
  grep -q "$out" "$t/err.txt" || { echo "FAIL $what over ulimit -f: the error does not name $out"; exit 1; }
  [ "$code" = 1 ] || { echo "FAIL $what over ulimit -f: exit status $code, expected 1"; exit 1; }
  cmp -s "$prev" "$out" || { echo "FAIL $what over ulimit -f: $out changed"; exit 1; }
  if compgen -G "$out.tmp*" > /dev/null; then echo "FAIL $what over ulimit -f: temporary file left"; exit 1; fi
  echo "$what over ulimit -f: $(head -c 200 "$t/err.txt")"
done
