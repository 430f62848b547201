#!/usr/bin/env bash
# Hostile inputs found from outside the suite, and stopping a run (issue 31):
#  - an .npz member recording 16 GB in a 16 MB file (its deflate stream holds
#    16 MB) is refused naming both sizes, with a peak RSS under 1 GiB: the
#    reader never allocates the recorded size;
#  - `edgec opt` on a 400-byte .ir declaring a 4 GiB splat prints it back as
#    a splat with a peak RSS under 1 GiB; a pass, which reads the elements,
#    is refused over EDGEC_MEMORY_LIMIT with a message naming the target;
#  - `edgec run` and `edgec bench` with --timeout stop a loop of 2^40
#    iterations: exit 1, one error naming the timeout, no output file; the
#    same program with 5 iterations runs to y = x + 5 (numpy's sum).
# Each case exits within a bound (expect_error's timeout), never by a signal.
# Memory is bounded by the peak RSS (getrusage of the child), not `ulimit -v`,
# which the sanitized build (make test-sanitize) cannot run under.
set -euo pipefail
edgec=$1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"

# bounded LIMIT_MIB ARGS...: runs `edgec ARGS...` (its output in stdout.txt
# and stderr.txt), sets $code to its exit code and fails the test if its
# peak resident memory passed LIMIT_MIB.
bounded() {
  local limit=$1 rss
  shift
  $py - "$edgec" "$@" >rc.txt <<'PY'
import resource, subprocess, sys
with open("stdout.txt", "wb") as out, open("stderr.txt", "wb") as err:
    code = subprocess.run(sys.argv[1:], stdout=out, stderr=err, timeout=120).returncode
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PY
  read -r code rss <rc.txt
  [ "$rss" -lt "$limit" ] || fail "edgec $*: peak RSS $rss MiB, more than $limit MiB"
}

# ---------------------------------------------------------------- npz
$py - <<'PY'
import os, struct, zlib
# x.npy records 16 GiB of u8 (its .npy header and both zip headers agree,
# zip64), but the deflate stream holds 16 MiB of random bytes.
declared, held = 16 << 30, 16 << 20
hdr = "{'descr': '|u1', 'fortran_order': False, 'shape': (%d,), }" % declared
hdr += ' ' * (63 - (10 + len(hdr)) % 64) + '\n'
npy = b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode()
data = os.urandom(held)
co = zlib.compressobj(0, zlib.DEFLATED, -15)
stream = co.compress(npy + data) + co.flush()
size, crc, name = len(npy) + declared, zlib.crc32(npy + data), b'x.npy'
z64 = struct.pack('<HHQQ', 1, 16, size, len(stream))
local = b'PK\x03\x04' + struct.pack('<HHHHHIIIHH', 45, 0, 8, 0, 33, crc, 0xffffffff, 0xffffffff, len(name), len(z64)) + name + z64
extra = struct.pack('<HHQQQ', 1, 24, size, len(stream), 0)
central = b'PK\x01\x02' + struct.pack('<HHHHHHIIIHHHHHII', 45, 45, 0, 8, 0, 33, crc, 0xffffffff, 0xffffffff, len(name),
                                     len(extra), 0, 0, 0, 0, 0xffffffff) + name + extra
at = len(local) + len(stream)
eocd64 = b'PK\x06\x06' + struct.pack('<QHHIIQQQQ', 44, 45, 45, 0, 0, 1, 1, len(central), at)
locator = b'PK\x06\x07' + struct.pack('<IQI', 0, at + len(central), 1)
eocd = b'PK\x05\x06' + struct.pack('<HHHHIIH', 0, 0, 1, 1, len(central), at, 0)
open('lying.npz', 'wb').write(local + stream + central + eocd64 + locator + eocd)
PY
cat >loop.ir <<'IR'
program dialect = "edge"
signature {
  input user_input %x target = "x"
  input user_input %trips target = "trips"
  output user_output %y target = "y"
}
graph {
  %x = placeholder : f32[3]
  %trips = placeholder : i64[]
  %go = edge.full.default(shape = [], value = 1.0, dtype = bool) : bool[]
  %y = loop(%trips, %go, [%x], []) : f32[3]
  region {
    %i = placeholder : i64[]
    %c = placeholder : bool[]
    %h = placeholder : f32[3]
    %one = edge.full.default(shape = [], value = 1.0, dtype = f32) : f32[]
    %next = edge.add.Tensor(%h, %one) : f32[3]
    %more = edge.full.default(shape = [], value = 1.0, dtype = bool) : bool[]
    output(%more, %next)
  }
  output(%y)
}
IR
"$edgec" compile loop.ir -o loop.edgec --backends none
$py -c "
import numpy as np
x = np.array([1.0, -2.0, 0.5], np.float32)
np.savez('forever.npz', x=x, trips=np.array(1 << 40, np.int64))
np.savez('five.npz', x=x, trips=np.array(5, np.int64))
np.savez('want.npz', y=x + np.float32(5))"

# The 16 GiB claim is refused before it is allocated.
bounded 1024 run loop.edgec --inputs lying.npz --outputs out.npz
[ "$code" = 1 ] || fail "run on lying.npz: exit $code: $(cat stderr.txt)"
grep -qF "lying.npz: array 'x': member inflates to only 16777344 of the 17179869312 bytes its zip entry records" \
  stderr.txt || fail "run on lying.npz: $(cat stderr.txt)"
[ ! -e out.npz ] || fail "run on lying.npz left out.npz"

# ---------------------------------------------------------------- opt
cat >splat.ir <<'IR'
program dialect = "edge"

signature {
  input user_input %x target = "x"
  input constant %w target = "w"
  output user_output %y target = "y"
}

graph {
  %x = placeholder : f32[1073741824]
  %w = placeholder : f32[1073741824]
  %y = edge.add.Tensor(%x, %w) : f32[1073741824]
  output(%y)
}

constants {
  "w" = dense<0.5> : f32[1073741824]
}
IR
[ "$(wc -c <splat.ir)" -lt 450 ] || fail "splat.ir is not small"
bounded 1024 opt splat.ir -o printed.ir
[ "$code" = 0 ] || fail "edgec opt splat.ir: exit $code: $(cat stderr.txt)"
grep -qF '"w" = dense<0.5> : f32[1073741824]' printed.ir || fail "the splat was not printed as one: $(cat printed.ir)"
cmp -s splat.ir printed.ir || fail "edgec opt splat.ir changed the program: $(diff splat.ir printed.ir)"
EDGEC_MEMORY_LIMIT=1GiB expect_error 1 60 \
  'target "w": splat dense data of type f32[1073741824] is 4294967296 bytes, more than the memory limit of 1073741824 bytes (set EDGEC_MEMORY_LIMIT to change it); the passes read stored tensors' \
  opt splat.ir --pass=dce
# A small splat goes through a pass expanded, and prints back the same.
sed 's/1073741824/4/g' splat.ir >small.ir
"$edgec" opt small.ir --pass=dce -o small_out.ir
grep -qF '"w" = dense<0.5> : f32[4]' small_out.ir || fail "small splat after dce: $(cat small_out.ir)"

# ---------------------------------------------------------------- --timeout
start=$(date +%s)
expect_error 1 30 "execution stopped: it ran past --timeout 0.5 s" \
  run loop.edgec --inputs forever.npz --outputs out.npz --timeout 0.5 &&
  grep -q "(Cancelled)" stderr.txt || fail "run --timeout: no Cancelled in: $(cat stderr.txt)"
[ ! -e out.npz ] || fail "a timed-out run left out.npz"
ls out.npz.tmp* >/dev/null 2>&1 && fail "a timed-out run left a temporary file"
expect_error 1 30 "execution stopped: it ran past --timeout 1.5 s" \
  bench loop.edgec --inputs forever.npz --warmup 0 --iters 3 --timeout 1.5
[ ! -s stdout.txt ] || fail "a timed-out bench printed figures: $(cat stdout.txt)"
[ $(($(date +%s) - start)) -lt 20 ] || fail "the timeouts took $(($(date +%s) - start)) s"
# Within the time: the outputs, and bench's figures.
"$edgec" run loop.edgec --inputs five.npz --outputs y.npz --timeout 30
$py "$compare_npz" y.npz want.npz
"$edgec" bench loop.edgec --inputs five.npz --iters 5 --warmup 1 --timeout 30 --json >bench.json
$py -c "import json; j = json.load(open('bench.json')); assert j['iters'] == 5, j"
# Values that are no time are usage errors naming the flag.
for bad in 0 -1 abc 1e9 nan ""; do
  expect_error 2 30 "--timeout: expected seconds, a number above 0 and at most 31536000, got '$bad'" \
    run loop.edgec --inputs five.npz --outputs y2.npz --timeout "$bad"
done
[ ! -e y2.npz ] || fail "a usage error left y2.npz"
report_failures
echo "ok"
