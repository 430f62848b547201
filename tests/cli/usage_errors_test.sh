#!/usr/bin/env bash
# Command-line usage errors read like every other error: for every command,
# a bad option value (each numeric option parses its whole text: "12abc",
# "1.5", a sign, 0 or a size beyond int64 are refused naming the flag and
# the text), a missing or repeated argument, an unknown option or command,
# and no arguments at all print one "error: ..." line on stderr, nothing on
# stdout, exit 2, write no output file, and never crash or hang (each case
# runs under timeout; a signal death is exit >= 128). --threads takes 1 to
# the machine's cores: 100000 threads used to crash the runtime (SIGSEGV in
# libgomp) on a portable and on an onednn program. --help still works.
set -euo pipefail
edgec=$1 src=$2
fixtures=$src/models/fixtures
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$t"
# The CLI's core count (std::thread::hardware_concurrency: the online CPUs).
cores=$(getconf _NPROCESSORS_ONLN)
range="1 to $cores (the cores of this machine)"

"$edgec" compile "$fixtures/act.onnx" -o act.none.edgec --backends none
"$edgec" compile "$fixtures/act.onnx" -o act.onednn.edgec
in=$fixtures/act.inputs.npz
cp "$src/models/demo.ir" demo.ir

# usage TEXT ARGS...: `edgec ARGS...` exits 2 with exactly one line on
# stderr, "error: ..." containing TEXT, prints nothing on stdout and
# leaves no out.* file.
usage() {
  local text=$1
  shift
  rm -f out.*
  expect_error 2 60 "$text" "$@" || return 0
  [ ! -s stdout.txt ] || fail "edgec $*: printed on stdout: $(head -c 300 stdout.txt)"
  if compgen -G "out.*" >/dev/null; then fail "edgec $*: left $(echo out.*)"; fi
}

# No command, an unknown one, an option before it.
usage "expected a command: compile, run, inspect, bench, eval, opt or quantize"
usage "unknown command 'foo'; expected compile, run, inspect, bench, eval, opt or quantize" foo
usage "unknown option '--bogus'" --bogus
usage "unknown option '--bogus'" --bogus run act.none.edgec --inputs "$in" --outputs out.npz

# --threads, on every command that takes it; run with a portable and an
# onednn program (the crash).
run_none=(run act.none.edgec --inputs "$in" --outputs out.npz)
run_onednn=(run act.onednn.edgec --inputs "$in" --outputs out.npz)
bench=(bench act.onednn.edgec --inputs "$in")
eval_demo=(eval demo.ir --outputs out.npz)
for cmd in run_none run_onednn bench eval_demo; do
  declare -n args=$cmd
  for bad in 100000 "$((cores + 1))" 0 -1 99999999999 99999999999999999999999; do
    usage "--threads: expected $range, got $bad" "${args[@]}" --threads "$bad"
  done
  for bad in 1.5 abc 1abc " 1" +1 0x1 1e3; do
    usage "--threads: expected an integer from $range, got '$bad'" "${args[@]}" --threads "$bad"
  done
  usage "--threads: expected a value" "${args[@]}" --threads
  usage "--threads: given more than once" "${args[@]}" --threads 1 --threads 1
  unset -n args
done

# bench's run counts.
for bad in 0 -1 2147483647 1000000001 99999999999999999999; do
  usage "--iters: expected 1 to 1000000000, got $bad" "${bench[@]}" --iters "$bad"
done
for bad in abc 12abc 1.5 " 7" 7x; do
  usage "--iters: expected an integer from 1 to 1000000000, got '$bad'" "${bench[@]}" --iters="$bad"
done
usage "--warmup: expected 0 to 1000000000, got -1" "${bench[@]}" --warmup -1
usage "--warmup: expected an integer from 0 to 1000000000, got '2x'" "${bench[@]}" --warmup 2x

# compile's sizes: NAME=SIZE, SIZE from 1 to int64's largest, whole.
compile=(compile demo.ir -o out.edgec)
for flag in --dim --max-dim; do
  for bad in batch=12abc batch=0 batch=-1 batch=1.5 batch= batch=99999999999999999999 "batch= 3"; do
    usage "$flag: expected NAME=SIZE with SIZE an integer from 1 to 9223372036854775807, got '$bad'" \
      "${compile[@]}" "$flag" "$bad"
  done
  usage "$flag: expected NAME=SIZE, got '=3'" "${compile[@]}" "$flag" =3
  usage "$flag: expected NAME=SIZE, got 'batch'" "${compile[@]}" "$flag" batch
  usage "$flag: 'batch' given twice, as 2 and 3" "${compile[@]}" "$flag" batch=2 "$flag" batch=3
done

# opt's byte count and passes.
usage "--elide-data-over: expected an integer from 0 to 9223372036854775807, got '12abc'" opt demo.ir \
  --elide-data-over 12abc
usage "--elide-data-over: expected 0 to 9223372036854775807, got -5" opt demo.ir --elide-data-over -5
usage "unknown pass 'nope'" opt demo.ir --pass nope
usage "pass 'dce' takes no options, got 'x'" opt demo.ir --pass dce=x

# Missing arguments, unknown options and extra arguments, per command.
usage "compile: missing the model argument (the model to compile)" compile
usage "compile: missing --output (the program file to write (atomically))" compile demo.ir
usage "run: missing the program argument (the .edgec file)" run
usage "run: missing --inputs" run act.none.edgec --outputs out.npz
usage "run: missing --outputs" run act.none.edgec --inputs "$in"
usage "--inputs: expected a value" run act.none.edgec --outputs out.npz --inputs
usage "inspect: missing the program argument (the .edgec file)" inspect
usage "bench: missing --inputs" bench act.none.edgec
usage "eval: missing --outputs" eval demo.ir
usage "opt: missing the file argument (the .ir file)" opt
for cmd in "compile demo.ir -o out.edgec" "run act.none.edgec --inputs $in --outputs out.npz" \
  "inspect act.none.edgec" "bench act.none.edgec --inputs $in --iters 1" "eval demo.ir --outputs out.npz" \
  "opt demo.ir"; do
  name=${cmd%% *}
  # shellcheck disable=SC2086
  usage "$name: unknown option '--bogus' (edgec $name --help lists them)" $cmd --bogus
  # shellcheck disable=SC2086
  usage "$name: unexpected argument 'extra'" $cmd extra
done

# --help keeps working: exit 0, the usage on stdout.
for cmd in "" compile run inspect bench eval opt; do
  # shellcheck disable=SC2086
  if ! timeout 60 "$edgec" $cmd --help >stdout.txt 2>stderr.txt; then fail "edgec $cmd --help failed"; fi
  grep -q "^Usage: .*edgec $cmd" stdout.txt || fail "edgec $cmd --help: no usage line: $(head -3 stdout.txt)"
done
grep -q -- "--threads INT:POSITIVE .*threads the kernels may use (default 1)" <("$edgec" run --help) ||
  fail "run --help lost its --threads line"

# The largest thread count is taken.
"$edgec" run act.onednn.edgec --inputs "$in" --outputs ok.npz --threads "$cores"
"$edgec" run act.none.edgec --inputs "$in" --outputs ok.npz --threads "$cores"

report_failures
echo "usage errors: all checks passed"
