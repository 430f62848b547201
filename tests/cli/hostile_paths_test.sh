#!/usr/bin/env bash
# Paths that are not regular files. Every file the CLI reads (a program
# file, an ONNX model, a textual program, an --inputs or --fix-inputs npz)
# must be a regular file: a FIFO (which made run and inspect wait forever),
# a directory, a socket or a device is refused at once with
# "error: PATH: expected a regular file, got a FIFO" (or the type found),
# exit 1, no output file left.
#
# Every file the CLI writes (compile -o and --emit-ir, run and eval
# --outputs, opt -o) replaces a regular file or a new path atomically, but
# a FIFO or a character device is written into, never replaced (a file
# renamed over it made /dev/null a regular file), and a directory, a socket
# or a block device is refused. compile writes its program and its IR both
# or neither (the IR was left behind when the program could not be
# written). Each case runs under timeout: a hang is a failure, and so is a
# death by a signal (exit >= 128). The real /dev/null is never an output
# here: the devices are nodes made in the temporary folder (as root) or
# links to /dev/null, and /dev/null is checked to be a device at the end.
set -euo pipefail
edgec=$1 src=$2
fixtures=$src/models/fixtures
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"

"$edgec" compile "$fixtures/mlp.onnx" -o mlp.edgec --backends none
cp "$src/models/demo.ir" demo.ir
npz=$fixtures/mlp.inputs.npz
$py -c "import numpy as np; np.savez('demo.npz', **{'observation.state': np.ones((2, 4), np.float32)})"

# refused TEXT ARGS...: `edgec ARGS...` exits 1 within the timeout with one
# "error: " line containing TEXT, and leaves no out.* file behind.
refused() {
  local text=$1
  shift
  rm -rf out.* ./*.tmp.*
  expect_error 1 20 "$text" "$@" || return 0
  if compgen -G "out.*" >/dev/null || compgen -G "*.tmp.*" >/dev/null; then
    fail "edgec $*: left $(ls -d out.* ./*.tmp.* 2>/dev/null)"
  fi
}

# One of each kind under each name the commands read. The character device
# is a symbolic link to /dev/zero (followed: what it names is checked),
# which reads without end; a block device, made only when running as root,
# is a node in the temporary folder, never opened.
for ext in edgec onnx ir npz; do
  mkfifo "fifo.$ext"
  mkdir "dir.$ext"
  ln -s /dev/zero "chr.$ext"
  $py -c "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "sock.$ext"
done
if [ "$(id -u)" = 0 ]; then
  for ext in edgec onnx ir npz; do mknod "blk.$ext" b 7 200; done
fi

for entry in fifo dir chr sock blk; do
  [ -e "$entry.edgec" ] || continue
  case $entry in
    fifo) kind="a FIFO" ;; dir) kind="a directory" ;; chr) kind="a character device" ;;
    sock) kind="a socket" ;; blk) kind="a block device" ;;
  esac
  want="expected a regular file, got $kind"
  p=$entry.edgec
  refused "$p: $want" run "$p" --inputs "$npz" --outputs out.npz
  refused "$p: $want" inspect "$p"
  refused "$p: $want" inspect "$p" --json
  refused "$p: $want" bench "$p" --inputs "$npz" --iters 1
  refused "$entry.npz: $want" run mlp.edgec --inputs "$entry.npz" --outputs out.npz
  refused "$entry.npz: $want" bench mlp.edgec --inputs "$entry.npz" --iters 1
  refused "$entry.onnx: $want" compile "$entry.onnx" -o out.edgec
  refused "$entry.ir: $want" compile "$entry.ir" -o out.edgec
  refused "$entry.npz: $want" compile "$fixtures/mlp.onnx" --fix-inputs "$entry.npz" -o out.edgec
  refused "$entry.ir: $want" opt "$entry.ir"
  refused "$entry.ir: $want" opt "$entry.ir" -o out.ir
  refused "$entry.ir: $want" eval "$entry.ir" --outputs out.npz
  refused "$entry.npz: $want" eval demo.ir --inputs "$entry.npz" --outputs out.npz
done
# Nothing was written into the FIFOs or read from them: they are still FIFOs.
for ext in edgec onnx ir npz; do [ -p "fifo.$ext" ] || fail "fifo.$ext is no longer a FIFO"; done


# ---------------------------------------------------------------------------
# Outputs.

# The reference outputs, written to regular files.
"$edgec" compile demo.ir --dim batch=2 -o ref.edgec --emit-ir ref.ir
"$edgec" run mlp.edgec --inputs "$npz" --outputs ref.npz
"$edgec" opt demo.ir -o ref.opt.ir
"$edgec" eval demo.ir --inputs demo.npz --outputs ref.eval.npz

no_temporaries() {  # no_temporaries WHAT: no OUT.tmp.* left anywhere here
  if compgen -G "*.tmp.*" >/dev/null || compgen -G "*/*.tmp.*" >/dev/null; then
    fail "$1: left a temporary file: $(ls -d ./*.tmp.* ./*/*.tmp.* 2>/dev/null)"
  fi
}

# into_fifo REF ARGS...: `edgec ARGS...` (which writes out.fifo) succeeds,
# the reader of the FIFO gets exactly REF, and out.fifo is still a FIFO.
into_fifo() {
  local ref=$1
  shift
  rm -f out.fifo got.bin
  mkfifo out.fifo
  timeout 20 cat out.fifo >got.bin &
  local reader=$!
  set +e
  timeout 20 "$edgec" "$@" >stdout.txt 2>stderr.txt
  local code=$?
  set -e
  [ "$code" = 0 ] || fail "edgec $* into a FIFO: exit $code: $(head -c 300 stderr.txt)"
  if [ -p out.fifo ]; then
    wait "$reader" || fail "edgec $*: the FIFO's reader failed"
    cmp -s got.bin "$ref" || fail "edgec $*: the FIFO's reader got $(wc -c <got.bin) bytes, not $ref"
  else
    fail "edgec $*: out.fifo is no longer a FIFO ($(stat -c %F out.fifo))"
    kill "$reader" 2>/dev/null || true
    wait "$reader" 2>/dev/null || true
  fi
  no_temporaries "edgec $*"
  rm -f out.fifo got.bin
}

# into_device ARGS...: `edgec ARGS...` (which writes out.dev, a character
# device like /dev/null) succeeds and out.dev is still that device.
into_device() {
  rm -f out.dev
  if [ "$(id -u)" = 0 ]; then mknod out.dev c 1 3; else ln -s /dev/null out.dev; fi
  set +e
  timeout 20 "$edgec" "$@" >stdout.txt 2>stderr.txt
  local code=$?
  set -e
  [ "$code" = 0 ] || fail "edgec $* into a character device: exit $code: $(head -c 300 stderr.txt)"
  [ -c out.dev ] || fail "edgec $*: out.dev is no longer a character device ($(stat -L -c %F out.dev))"
  no_temporaries "edgec $*"
  rm -f out.dev
}

into_fifo ref.edgec compile demo.ir --dim batch=2 -o out.fifo
into_fifo ref.edgec compile demo.ir --dim batch=2 -o out.fifo --emit-ir out.ir
cmp -s out.ir ref.ir || fail "compile -o FIFO --emit-ir: out.ir is not the IR"
into_fifo ref.ir compile demo.ir --dim batch=2 -o out.edgec --emit-ir out.fifo
cmp -s out.edgec ref.edgec || fail "compile --emit-ir FIFO: out.edgec is not the program"
into_fifo ref.npz run mlp.edgec --inputs "$npz" --outputs out.fifo
into_fifo ref.opt.ir opt demo.ir -o out.fifo
into_fifo ref.eval.npz eval demo.ir --inputs demo.npz --outputs out.fifo
into_device compile demo.ir --dim batch=2 -o out.dev
into_device compile demo.ir --dim batch=2 -o out.edgec --emit-ir out.dev
into_device run mlp.edgec --inputs "$npz" --outputs out.dev
into_device opt demo.ir -o out.dev
into_device eval demo.ir --inputs demo.npz --outputs out.dev
rm -f out.ir out.edgec

# A FIFO whose reader stops early: a clean error (EPIPE), not SIGPIPE. The
# program file is larger than a pipe's buffer.
"$edgec" compile "$fixtures/act.onnx" -o act.edgec --backends none
rm -f out.fifo
mkfifo out.fifo
timeout 20 head -c 10 out.fifo >/dev/null &
reader=$!
set +e
timeout 20 "$edgec" compile "$fixtures/act.onnx" --backends none -o out.fifo 2>stderr.txt
code=$?
set -e
wait "$reader" || true
[ "$code" = 1 ] || fail "compile into a FIFO whose reader left: exit $code, expected 1: $(cat stderr.txt)"
grep -q "^error: out.fifo: cannot write: Broken pipe$" stderr.txt || fail "no EPIPE error: $(cat stderr.txt)"
[ -p out.fifo ] || fail "out.fifo is no longer a FIFO"
rm -f out.fifo

# A directory, a socket or a block device as an output is refused, before
# anything is written (the IR of compile --emit-ir included).
for entry in dir sock blk; do
  [ -e "$entry.edgec" ] || continue
  case $entry in
    dir) kind="a directory" ;; sock) kind="a socket" ;; blk) kind="a block device" ;;
  esac
  want="expected a regular file or a new path (or a FIFO or a character device to write into), got $kind"
  refused "$entry.edgec: $want" compile demo.ir --dim batch=2 -o "$entry.edgec"
  refused "$entry.edgec: $want" compile demo.ir --dim batch=2 -o "$entry.edgec" --emit-ir out.ir
  refused "$entry.ir: $want" compile demo.ir --dim batch=2 -o out.edgec --emit-ir "$entry.ir"
  refused "$entry.npz: $want" run mlp.edgec --inputs "$npz" --outputs "$entry.npz"
  refused "$entry.ir: $want" opt demo.ir -o "$entry.ir"
  refused "$entry.npz: $want" eval demo.ir --inputs demo.npz --outputs "$entry.npz"
  [ "$entry" != dir ] || [ -d dir.edgec ] || fail "dir.edgec is no longer a directory"
  [ "$entry" != sock ] || [ -S sock.edgec ] || fail "sock.edgec is no longer a socket"
  [ "$entry" != blk ] || [ -b blk.edgec ] || fail "blk.edgec is no longer a block device"
done

# compile -o and --emit-ir: both written or neither. The program file
# cannot be written (its folder does not exist; or, unless running as root,
# is not writable): the IR is not left, an existing IR is untouched, and
# --emit-ir - prints nothing.
mkdir -p locked
chmod 555 locked
bad_outputs="missing/out.edgec"
[ "$(id -u)" = 0 ] || bad_outputs="$bad_outputs locked/out.edgec"
for bad in $bad_outputs; do
  refused "$bad: cannot create file" compile demo.ir --dim batch=2 -o "$bad" --emit-ir out.ir
  echo previous >old.ir
  refused "$bad: cannot create file" compile demo.ir --dim batch=2 -o "$bad" --emit-ir old.ir
  [ "$(cat old.ir)" = previous ] || fail "compile -o $bad changed old.ir"
  refused "$bad: cannot create file" compile demo.ir --dim batch=2 -o "$bad" --emit-ir -
  [ ! -s stdout.txt ] || fail "compile -o $bad --emit-ir - printed the IR"
  refused "${bad%.edgec}.ir: cannot create file" compile demo.ir --dim batch=2 -o out.edgec --emit-ir "${bad%.edgec}.ir"
done
no_temporaries "compile -o and --emit-ir"
chmod 755 locked
# The same file for both is a usage error.
set +e
timeout 20 "$edgec" compile demo.ir --dim batch=2 -o out.edgec --emit-ir ./out.edgec 2>stderr.txt
code=$?
set -e
[ "$code" = 2 ] && grep -qF "error: --emit-ir and -o name the same file" stderr.txt ||
  fail "compile -o X --emit-ir ./X: exit $code: $(cat stderr.txt)"
[ ! -e out.edgec ] || fail "compile -o X --emit-ir ./X wrote X"

[ -c /dev/null ] || fail "/dev/null is no longer a character device"
report_failures
echo "hostile paths: all checks passed"
