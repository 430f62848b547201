#!/usr/bin/env bash
# Paths that are not regular files. Every file the CLI reads (a program
# file, an ONNX model, a textual program, an --inputs or --fix-inputs npz)
# must be a regular file: a FIFO (which made run and inspect wait forever),
# a directory, a socket or a device is refused at once with
# "error: PATH: expected a regular file, got a FIFO" (or the type found),
# exit 1, no output file left. Each case runs under timeout: a hang is a
# failure, and so is a death by a signal (exit >= 128).
set -euo pipefail
edgec=$1 src=$2
fixtures=$src/models/fixtures
py=/usr/bin/python3
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t"

"$edgec" compile "$fixtures/mlp.onnx" -o mlp.edgec --backends none
cp "$src/models/demo.ir" demo.ir
npz=$fixtures/mlp.inputs.npz

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# refused TEXT ARGS...: `edgec ARGS...` exits 1 within the timeout with one
# "error: " line containing TEXT, and leaves no out.* file behind.
refused() {
  local text=$1
  shift
  rm -rf out.* ./*.tmp.*
  set +e
  timeout 20 "$edgec" "$@" >stdout.txt 2>stderr.txt
  local code=$?
  set -e
  if [ "$code" -ge 124 ]; then
    fail "edgec $* died or hung (exit $code): $(head -c 300 stderr.txt)"
    return
  fi
  [ "$code" = 1 ] || fail "edgec $*: exit $code, expected 1: $(head -c 300 stderr.txt)"
  [ "$(wc -l <stderr.txt)" = 1 ] && grep -q "^error: " stderr.txt ||
    fail "edgec $*: expected one 'error: ' line, got: $(cat stderr.txt)"
  grep -qF -- "$text" stderr.txt || fail "edgec $*: '$text' not in: $(cat stderr.txt)"
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

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "hostile paths: all checks passed"
